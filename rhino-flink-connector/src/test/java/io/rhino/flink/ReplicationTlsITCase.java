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

package io.rhino.flink;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.rhino.flink.cluster.ProcessCluster;
import io.rhino.flink.config.RhinoOptions;
import io.rhino.flink.testjobs.Multisets;
import io.rhino.flink.testjobs.TestCertificates;
import io.rhino.flink.testjobs.TestPipelines.Mode;
import io.rhino.replication.SelfSignedKeyStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.util.FileUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Replication with mutual TLS between three TaskManager processes, configured with the stores of
 * Flink's internal SSL, and a TaskManager replaced by a fresh one: it is {@code kill -9}ed and
 * started again at once on its address with an empty replica disk, so the subtask the scheduler
 * restarts there holds no replica and fetches its vnodes from the survivors over TLS while it
 * restores. No vnode is read back from the checkpoint storage, and the output equals plain Flink's.
 */
class ReplicationTlsITCase {

    private static final Logger LOG = LoggerFactory.getLogger(ReplicationTlsITCase.class);

    private static final String NAME = "counts";
    private static final String PASSWORD = "tls-it-password";
    private static final int TASK_MANAGERS = 3;
    private static final int VNODES = 12;

    private static final FileCountsJob JOB =
            new FileCountsJob(NAME, TASK_MANAGERS, VNODES, 150_000, 2_000, 3_000);

    // kept when the test fails: the TaskManagers' logs are in it
    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path directory;

    @Test
    @Timeout(300)
    void aFreshTaskManagerFetchesItsVnodesOverTlsWhileItRestores() throws Exception {
        // every build runs TaskManagerKillITCase with TLS: a kill, fetches from the survivors
        RhinoClusters.onlyWithAllVariants("A fresh TaskManager restoring over TLS");
        Path store = SelfSignedKeyStore.create(directory, "cluster", PASSWORD);
        // one slot each: the job restarts only once the replaced TaskManager registered, however
        // long its JVM takes to start (a restart delay alone lost that race on a slow machine)
        Configuration common = FileCountsJob.oneSubtaskPerTaskManager();
        common.setString("taskmanager.numberOfTaskSlots", "1");
        try (ProcessCluster cluster =
                ProcessCluster.start(
                        directory.resolve("cluster"),
                        TASK_MANAGERS,
                        common,
                        (index, config) -> {
                            config.set(
                                    RhinoOptions.REPLICATION_DIR,
                                    directory.resolve("replicas-" + index).toString());
                            config.set(RhinoOptions.REPLICATION_SSL_ENABLED, true);
                            TestCertificates.withInternalStores(config, store, PASSWORD);
                        })) {
            int restPort = ProcessCluster.freePort();
            Configuration config = RhinoClusters.jobConfig(Mode.RHINO);
            RhinoClusters.withCheckpoints(
                    config,
                    directory.resolve("checkpoints"),
                    RhinoClusters.ONLY_TRIGGERED_CHECKPOINTS);
            RhinoClusters.withPeerReplication(config, directory.resolve("unused"), "tls-it");
            // every vnode on both other TaskManagers: all survive the loss of one
            config.set(RhinoOptions.REPLICATION_FACTOR, TASK_MANAGERS);
            RhinoClusters.withRestarts(config, 20, Duration.ofSeconds(8));
            config.set(RhinoOptions.REST_PORT, restPort);
            Path output = directory.resolve("output");
            JobClient job = JOB.submit(cluster, config, output, "replication-tls");
            String jobId = job.getJobID().toString();
            RemoteOperator operator = new RemoteOperator(cluster, restPort, jobId, NAME, VNODES);
            Random random = new Random(20261125);

            operator.awaitRunning(-1, Duration.ofSeconds(180));
            operator.moveBetweenTaskManagers(random, 2, "before");
            cluster.checkpoint(jobId, Duration.ofSeconds(60));
            long beforeCrash = cluster.checkpoint(jobId, Duration.ofSeconds(60));
            for (int index = 0; index < TASK_MANAGERS; index++) {
                assertThat(Files.readString(taskManagerLog(cluster, index)))
                        .as("log of TaskManager %d", index)
                        .contains("(mutual TLS)");
            }

            int victim =
                    operator.taskManagerOf(operator.view().at("/vnodes/0/taskmanager").asText());
            cluster.kill(victim);
            // a replacement machine: its replica disk starts empty
            FileUtils.deleteDirectory(directory.resolve("replicas-" + victim).toFile());
            cluster.restart(victim);
            cluster.awaitTaskManagers(TASK_MANAGERS, Duration.ofSeconds(120));
            awaitRestored(cluster, jobId, beforeCrash);
            JsonNode after = operator.awaitRunning(-1, Duration.ofSeconds(180));
            long onFresh = vnodesOn(operator, after, victim);
            assertThat(onFresh)
                    .as("vnodes restarted on the fresh TaskManager %d: %s", victim, after)
                    .isPositive();

            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            long restored = 0;
            long fetched = 0;
            while (System.nanoTime() < deadline && (restored < VNODES || fetched < onFresh)) {
                Thread.sleep(500);
                restored = operator.metricSum("rhinoVnodesRestoredFromReplicas");
                fetched = operator.metricSum("rhinoVnodesFetchedFromPeers");
            }
            LOG.info(
                    "{} vnodes on the fresh TaskManager; {} restored from replicas, {} fetched",
                    onFresh,
                    restored,
                    fetched);
            assertThat(restored)
                    .as("vnodes restored from replicas, none from the checkpoint storage")
                    .isEqualTo(VNODES);
            assertThat(fetched)
                    .as("vnodes fetched from peers: at least those on the fresh TaskManager")
                    .isGreaterThanOrEqualTo(onFresh);
            assertThat(Files.readString(taskManagerLog(cluster, victim))).contains("(mutual TLS)");

            operator.moveBetweenTaskManagers(random, 2, "after");
            FileCountsJob.releaseInput(output);
            job.getJobExecutionResult().get(240, TimeUnit.SECONDS);
            assertThat(Multisets.counts(RemoteOperator.committedLines(output)))
                    .as(
                            "committed output with TLS, moves and a replaced TaskManager vs plain Flink")
                    .isEqualTo(Multisets.counts(JOB.plainFlinkLines()));
        }
    }

    private static Path taskManagerLog(ProcessCluster cluster, int index) {
        return cluster.taskManagerDirectory(index).resolve("taskmanager-" + index + ".log");
    }

    private static long vnodesOn(RemoteOperator operator, JsonNode view, int taskManager) {
        long count = 0;
        for (JsonNode vnode : view.get("vnodes")) {
            if (operator.taskManagerOf(vnode.get("taskmanager").asText()) == taskManager) {
                count++;
            }
        }
        return count;
    }

    /** Waits until the job restored {@code checkpoint} (it restarted after the crash). */
    private static void awaitRestored(ProcessCluster cluster, String jobId, long checkpoint)
            throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (System.nanoTime() < deadline) {
            JsonNode restored =
                    cluster.get("/jobs/" + jobId + "/checkpoints").at("/latest/restored/id");
            if (restored.asLong(-1) == checkpoint) {
                return;
            }
            Thread.sleep(250);
        }
        throw new AssertionError("the job did not restore checkpoint " + checkpoint);
    }
}
