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

import io.rhino.flink.testjobs.CheckpointFiles;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.FileUtils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link RhinoLifecycleScenarios} with Flink's task-local recovery on, as the README recommends:
 * savepoints, failures after handovers, restarts under handover requests, unaligned checkpoints and
 * cancellation. Every run's output still equals plain Flink's; after each injected failure some
 * vnodes restored from their task-local copies; and once a job ended, its TaskManagers keep none of
 * its local state.
 */
class RhinoLifecycleLocalRecoveryITCase extends RhinoLifecycleScenarios {

    private static final Path LOCAL_STATE =
            RhinoClusters.localStateRoot("rhino-lifecycle-local-state");

    private static final InMemoryReporter METRICS = InMemoryReporter.createWithRetainedMetrics();

    @RegisterExtension
    static final MiniClusterExtension CLUSTER =
            RhinoClusters.twoTaskManagers(
                    RhinoClusters.withLocalRecovery(
                            METRICS.addToConfiguration(new Configuration()), LOCAL_STATE));

    @Override
    protected void withoutFailover(String scenario) {
        // task-local copies serve failovers only: RhinoLifecycleITCase runs it in every build
        RhinoClusters.onlyWithAllVariants(scenario + " with task-local recovery");
    }

    @Override
    protected void restoreCoveredByAnotherScenario(String scenario) {
        // the failovers after handovers and the retained files' scenario restore from local copies
        RhinoClusters.onlyWithAllVariants(scenario + " with task-local recovery");
    }

    @Override
    protected void afterRecovery(JobID jobId) {
        long restoredLocally =
                RhinoClusters.gaugeSum(METRICS, jobId, "rhinoVnodesRestoredFromLocalCopies");
        assertThat(restoredLocally)
                .as("vnodes restored from task-local copies after the failure")
                .isPositive();
    }

    @Override
    protected void afterJobEnded(JobID jobId) throws Exception {
        // Flink deletes a job's local state when its slots are freed, a moment after it ended
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        Set<Path> left = CheckpointFiles.directoriesUnder(LOCAL_STATE, "jid_" + jobId);
        while (!left.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(100);
            left = CheckpointFiles.directoriesUnder(LOCAL_STATE, "jid_" + jobId);
        }
        assertThat(left).as("local state of job %s after it ended", jobId).isEmpty();
    }

    @AfterAll
    static void deleteLocalState() throws IOException {
        FileUtils.deleteDirectory(LOCAL_STATE.toFile());
    }
}
