/*
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 *     http://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */

package io.rhino.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rhino deployed both ways on a session cluster of three TaskManager processes whose class path is
 * Flink's jars only (plus, in {@link Placement#LIB}, rhino-flink-dist): two Rhino jobs from one
 * uploaded job jar run at once, each gets a handover over Rhino's REST API, a TaskManager running
 * subtasks of both dies with {@code kill -9} and both recover from the replicas on the survivors,
 * each gets a handover again, and both outputs equal plain Flink's. Once both are cancelled,
 * nothing of Rhino is left: no thread, no Rhino class in a user class loader after a GC, no REST or
 * replication port, no replica file. With {@code -Pdeployment}.
 */
@EnabledIfSystemProperty(named = "rhino.deployment.full", matches = "true")
class DeploymentITCase {

    private static final Logger LOG = LoggerFactory.getLogger(DeploymentITCase.class);

    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path directory;

    @ParameterizedTest(name = "Rhino in {0}")
    @EnumSource(Placement.class)
    @Timeout(600)
    void twoJobsHandOverRecoverFromAKillAndLeaveNothing(Placement placement) throws Exception {
        try (Deployment deployment = Deployment.start(placement, directory, 3, 3, 3)) {
            Map<String, Integer> reference = deployment.plainFlinkCounts(3);

            List<Deployment.RhinoJob> jobs =
                    List.of(deployment.runRhino("counts-a", 3), deployment.runRhino("counts-b", 3));
            Set<Integer> restPorts = new HashSet<>();
            for (Deployment.RhinoJob job : jobs) {
                job.rest().awaitRunning(Duration.ofSeconds(180));
                restPorts.add(job.rest().port());
            }
            for (Deployment.RhinoJob job : jobs) {
                job.rest().awaitReplicated(Duration.ofSeconds(90));
                job.rest().moveToAnotherTaskManager();
            }
            // replicated again after the moves: the vnodes' new owners' chains hold them
            for (Deployment.RhinoJob job : jobs) {
                job.rest().awaitReplicated(Duration.ofSeconds(90));
            }

            Set<String> shared = new HashSet<>(jobs.get(0).rest().taskManagerAddresses());
            shared.retainAll(jobs.get(1).rest().taskManagerAddresses());
            assertThat(shared).as("TaskManagers running both jobs").isNotEmpty();
            int victim = deployment.session().taskManagerAt(shared.iterator().next());
            deployment.session().taskManagers().get(victim).kill();
            LOG.info("TaskManager {} killed under both jobs", victim);

            for (Deployment.RhinoJob job : jobs) {
                awaitRestoredFromReplicas(deployment, job);
                job.rest().awaitReplicated(Duration.ofSeconds(120));
                job.rest().moveToAnotherTaskManager();
            }
            for (Deployment.RhinoJob job : jobs) {
                assertThat(Deployment.committedCounts(job))
                        .as(
                                "%s's committed lines across a handover and a kill -9 vs plain Flink's",
                                job.operator())
                        .isEqualTo(reference);
            }
            Set<String> services = deployment.replicationServices();
            for (Deployment.RhinoJob job : jobs) {
                deployment.session().rest().cancel(job.jobId(), Duration.ofSeconds(60));
            }
            // the killed TaskManager's replica store stays on its disk until a TaskManager starts
            // there
            deployment.assertNothingLeft(restPorts, services, victim);
        }
    }

    /** Every vnode of the job restored from a replica after the kill, none from the storage. */
    private static void awaitRestoredFromReplicas(Deployment deployment, Deployment.RhinoJob job)
            throws Exception {
        job.rest().awaitRunning(Duration.ofSeconds(180));
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        long restored = 0;
        while (System.nanoTime() < deadline) {
            restored =
                    deployment
                            .session()
                            .rest()
                            .metricSum(job.jobId(), "rhinoVnodesRestoredFromReplicas");
            if (restored >= Deployment.VNODES) {
                LOG.info("{}: {} vnodes restored from replicas", job.operator(), restored);
                return;
            }
            Thread.sleep(500);
        }
        assertThat(restored)
                .as("%s's vnodes restored from replicas after the kill", job.operator())
                .isGreaterThanOrEqualTo(Deployment.VNODES);
    }
}
