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
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * The default build's deployment check: rhino-flink-dist in the lib/ of a session cluster of
 * separate Flink processes whose class path holds nothing else but Flink's jars, a job jar with
 * only the job uploaded and run through Flink's REST API, replication over TLS between the
 * TaskManagers, one handover between them over Rhino's REST API. The output equals the same job's
 * on Flink's keyBy, and once the job is cancelled nothing of Rhino is left in any process. Every
 * scenario (both placements, two jobs, a {@code kill -9}): {@link DeploymentITCase}.
 */
class DeploymentSmokeITCase {

    // kept when the test fails: the processes' logs are in it
    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path directory;

    @Test
    @Timeout(300)
    void aJobOnTheDistributionJarHandsOverAndLeavesNothingWhenCancelled() throws Exception {
        try (Deployment deployment = Deployment.start(Placement.LIB, directory, 2, 2, 2)) {
            Map<String, Integer> reference = deployment.plainFlinkCounts(2);

            Deployment.RhinoJob job = deployment.runRhino("counts", 2);
            job.rest().awaitRunning(Duration.ofSeconds(120));
            job.rest().awaitReplicated(Duration.ofSeconds(60));
            job.rest().moveToAnotherTaskManager();

            assertThat(Deployment.committedCounts(job))
                    .as("Rhino's committed lines vs plain Flink's")
                    .isEqualTo(reference);
            Set<String> services = deployment.replicationServices();
            assertThat(services).as("replication services started").hasSize(2);
            deployment.session().rest().cancel(job.jobId(), Duration.ofSeconds(60));
            deployment.assertNothingLeft(Set.of(job.rest().port()), services);
        }
    }
}
