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

package io.rhino.flink.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.rhino.flink.coordination.RhinoHandovers;
import io.rhino.handover.HandoverResult;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.runtime.client.JobStatusMessage;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The getting-started guide's job runs on Rhino as written (on a MiniCluster of two TaskManagers),
 * and its Java handover moves vnode 5 while the job keeps running.
 */
@Timeout(120)
class GettingStartedITCase {

    @RegisterExtension
    static final MiniClusterExtension CLUSTER =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(2)
                            .setNumberSlotsPerTaskManager(2)
                            .setConfiguration(
                                    new Configuration()
                                            .set(
                                                    TaskManagerOptions.MANAGED_MEMORY_SIZE,
                                                    MemorySize.parse("256m")))
                            .build());

    @Test
    void theGuidesJobRunsAndItsHandoverCompletes(@InjectMiniCluster MiniCluster miniCluster)
            throws Exception {
        CompletableFuture<Void> job =
                CompletableFuture.runAsync(
                        () -> {
                            try {
                                GettingStartedSnippets.main(new String[0]);
                            } catch (Exception e) {
                                throw new RuntimeException(e);
                            }
                        });
        JobID jobId = awaitRunningJob(miniCluster, job);
        try {
            int before =
                    RhinoHandovers.awaitReady(jobId, "bids-per-auction", Duration.ofSeconds(60))
                            .routingTable()
                            .ownerOf(5);
            HandoverResult result = GettingStartedSnippets.moveVnode5(jobId);
            assertThat(result.isCompleted()).as("handover %s", result).isTrue();
            int newOwner =
                    RhinoHandovers.manager(jobId, "bids-per-auction").routingTable().ownerOf(5);
            assertThat(result.newEpoch()).isEqualTo(1);
            assertThat(miniCluster.getJobStatus(jobId).get()).isEqualTo(JobStatus.RUNNING);
            assertThat(newOwner).as("vnode 5's owner").isEqualTo(before == 0 ? 1 : 0);
        } finally {
            miniCluster.cancelJob(jobId).get(60, TimeUnit.SECONDS);
        }
        // execute() ends with the cancellation
        Throwable ended = job.handle((ok, failure) -> failure).get(60, TimeUnit.SECONDS);
        assertThat(ended).isNotNull();
        assertThat(
                        ExceptionUtils.findThrowableWithMessage(ended, "cancel").isPresent()
                                || ExceptionUtils.findThrowable(
                                                ended,
                                                org.apache.flink.runtime.client
                                                        .JobCancellationException.class)
                                        .isPresent())
                .as("the job ended by the test's cancel: %s", ended)
                .isTrue();
    }

    private static JobID awaitRunningJob(MiniCluster miniCluster, CompletableFuture<Void> job)
            throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            if (job.isDone()) {
                job.get(); // the job failed to build or submit: say why
            }
            for (JobStatusMessage status : miniCluster.listJobs().get()) {
                if (status.getJobState() == JobStatus.RUNNING) {
                    return status.getJobId();
                }
            }
            Thread.sleep(100);
        }
        throw new AssertionError("the guide's job did not start within 60 s");
    }
}
