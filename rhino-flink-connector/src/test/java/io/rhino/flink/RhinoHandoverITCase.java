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
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rhino.core.handover.InvalidHandoverException;
import io.rhino.core.handover.VnodeMove;
import io.rhino.core.routing.RoutingTable;
import io.rhino.flink.coordination.RhinoHandovers;
import io.rhino.flink.handover.LocalDirectoryStateTransfer;
import io.rhino.flink.testjobs.Multisets;
import io.rhino.flink.testjobs.ResultSink;
import io.rhino.flink.testjobs.TestPipelines;
import io.rhino.flink.testjobs.TestPipelines.Input;
import io.rhino.flink.testjobs.TestPipelines.Mode;
import io.rhino.flink.testjobs.TestPipelines.RhinoSetup;
import io.rhino.handover.HandoverManager;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Live handovers on a running job: random vnode moves across subtasks and TaskManagers (including
 * to a standby subtask) while records flow and checkpoints are taken; the output equals plain
 * Flink's.
 */
class RhinoHandoverITCase {

    @RegisterExtension static final MiniClusterExtension CLUSTER = RhinoClusters.twoTaskManagers();

    private static final Input INPUT = new Input(24_000, 97, 1_000, 2);

    @TempDir Path checkpoints;

    @Test
    @Timeout(180)
    void exactlyOnceUnderRandomHandovers() throws Exception {
        long seed = Long.getLong("rhino.test.seed", System.nanoTime());
        List<String> reference = RhinoEquivalenceITCase.run(Mode.PLAIN, INPUT.unlimited(), 8);

        Configuration config = RhinoClusters.jobConfig(Mode.RHINO);
        config.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(300));
        config.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, checkpoints.toUri().toString());
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        env.setParallelism(3);
        String runId = "handovers-" + UUID.randomUUID();
        // two of three subtasks active: the third is a standby that vnodes can move to
        TestPipelines.build(
                        env,
                        Mode.RHINO,
                        INPUT,
                        new RhinoSetup(8, 2, new LocalDirectoryStateTransfer()),
                        events -> events)
                .sinkTo(new ResultSink(runId));
        JobClient job = env.executeAsync("handovers");
        JobID jobId = job.getJobID();

        HandoverDriver driver = new HandoverDriver(jobId, TestPipelines.RHINO_OPERATORS, seed);
        int completed;
        try {
            driver.awaitRunning(Duration.ofSeconds(60));
            checkRejectedRequestsChangeNothing(jobId);
            // Stop well before the bounded input ends: a handover still running when the sources
            // finish waits for markers that finished gates no longer read, until it times out and
            // the job rolls back (correct, but slow).
            long stopAt = System.nanoTime() + Duration.ofSeconds(14).toNanos();
            completed = driver.run(25, () -> System.nanoTime() > stopAt);
        } catch (Throwable t) {
            throw new AssertionError("seed " + seed + ", history " + driver.history(), t);
        }
        job.getJobExecutionResult().get();

        assertThat(completed).as("completed handovers (seed %s)", seed).isGreaterThanOrEqualTo(20);
        Multisets.assertSameMultiset(
                "output under handovers (seed " + seed + ")", reference, ResultSink.take(runId));
    }

    private static void checkRejectedRequestsChangeNothing(JobID jobId) throws Exception {
        HandoverManager manager = RhinoHandovers.manager(jobId, "process");
        RoutingTable before = manager.routingTable();
        int owner = before.ownerOf(0);
        for (List<VnodeMove> invalid :
                List.of(
                        List.of(new VnodeMove(0, owner, owner)),
                        List.of(new VnodeMove(99, owner, (owner + 1) % 3)),
                        List.of(new VnodeMove(0, owner, 7)))) {
            assertThatThrownBy(() -> manager.handover(invalid).get())
                    .isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(InvalidHandoverException.class);
        }
        assertThat(manager.routingTable()).isEqualTo(before);
    }
}
