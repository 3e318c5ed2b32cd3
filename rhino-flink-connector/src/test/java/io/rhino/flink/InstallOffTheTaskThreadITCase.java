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

import io.rhino.core.handover.VnodeMove;
import io.rhino.core.routing.RoutingTable;
import io.rhino.core.routing.VnodeLayout;
import io.rhino.flink.api.RhinoKeyedStreamOptions;
import io.rhino.flink.config.RhinoOptions;
import io.rhino.flink.coordination.RhinoHandovers;
import io.rhino.flink.testjobs.BlockingInstallStateTransfer;
import io.rhino.flink.testjobs.Multisets;
import io.rhino.flink.testjobs.ReleasableRate;
import io.rhino.flink.testjobs.ResultSink;
import io.rhino.flink.testjobs.TestPipelines.Mode;
import io.rhino.handover.HandoverManager;
import io.rhino.handover.HandoverResult;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * While a target subtask installs an incoming vnode (here an install held for seconds, as opening a
 * large RocksDB instance can take), it keeps processing the records of the vnodes it already owns:
 * the install runs off its task thread. The output still equals plain Flink's.
 */
class InstallOffTheTaskThreadITCase {

    private static final String NAME = "counts";
    private static final int VNODES = 8;
    private static final long EVENTS = 60_000;

    @RegisterExtension static final MiniClusterExtension CLUSTER = RhinoClusters.twoTaskManagers();

    @Test
    @Timeout(180)
    void theTargetProcessesItsOwnVnodesWhileAnIncomingOneInstalls() throws Exception {
        String runId = "install-" + UUID.randomUUID();
        JobClient job =
                submit(runId, RhinoClusters.jobConfig(Mode.RHINO), "install-off-the-task-thread");
        try {
            HandoverManager manager =
                    RhinoHandovers.awaitReady(job.getJobID(), NAME, Duration.ofSeconds(60));
            RoutingTable table = manager.routingTable();
            VnodeLayout layout = new VnodeLayout(RhinoOptions.KEY_GROUPS.defaultValue(), VNODES);
            int moved = table.vnodesOwnedBy(0)[0];
            int target = 1;

            CompletableFuture<HandoverResult> handover =
                    manager.handover(List.of(new VnodeMove(moved, 0, target)));
            BlockingInstallStateTransfer.awaitInstallStarted(runId, Duration.ofSeconds(30));
            long before = linesOfSubtask(runId, table, layout, target);
            Thread.sleep(1_500);
            long during = linesOfSubtask(runId, table, layout, target);
            assertThat(handover).as("the handover waits for the held install").isNotDone();
            assertThat(during)
                    .as("results of the target's own vnodes while it installs vnode %d", moved)
                    .isGreaterThan(before);

            BlockingInstallStateTransfer.release(runId);
            assertThat(handover.get(60, TimeUnit.SECONDS).isCompleted()).isTrue();
            ReleasableRate.release(runId);
            job.getJobExecutionResult().get(120, TimeUnit.SECONDS);
        } finally {
            BlockingInstallStateTransfer.release(runId);
            ReleasableRate.release(runId);
        }
        assertThat(Multisets.counts(ResultSink.take(runId)))
                .as("output with a held install vs plain Flink")
                .isEqualTo(Multisets.counts(SkewedCountsJob.plainFlink(runId, EVENTS)));
    }

    /**
     * An install that fails on the install thread fails the target's task from its mailbox: the job
     * restores its last checkpoint (taken before the handover), the handover ends FAILED with the
     * routing unchanged, and no count is lost or doubled.
     */
    @Test
    @Timeout(180)
    void anInstallFailingOffTheTaskThreadFailsOverToTheLastCheckpoint(
            @InjectMiniCluster MiniCluster miniCluster, @TempDir Path checkpoints)
            throws Exception {
        String runId = "install-fails-" + UUID.randomUUID();
        Configuration config = RhinoClusters.jobConfig(Mode.RHINO);
        RhinoClusters.withCheckpoints(
                config, checkpoints, RhinoClusters.ONLY_TRIGGERED_CHECKPOINTS);
        RhinoClusters.withRestarts(config, 3, Duration.ofMillis(200));
        JobClient job = submit(runId, config, "install-fails");
        try {
            HandoverManager manager =
                    RhinoHandovers.awaitReady(job.getJobID(), NAME, Duration.ofSeconds(60));
            RhinoClusters.checkpoint(miniCluster, job.getJobID());
            int moved = manager.routingTable().vnodesOwnedBy(0)[0];
            CompletableFuture<HandoverResult> handover =
                    manager.handover(List.of(new VnodeMove(moved, 0, 1)));
            BlockingInstallStateTransfer.awaitInstallStarted(runId, Duration.ofSeconds(30));
            BlockingInstallStateTransfer.fail(runId);

            HandoverResult result = handover.get(60, TimeUnit.SECONDS);
            assertThat(result.outcome())
                    .as(result.toString())
                    .isEqualTo(HandoverResult.Outcome.FAILED);
            HandoverManager recovered =
                    RhinoHandovers.awaitReady(job.getJobID(), NAME, Duration.ofSeconds(60));
            assertThat(recovered.routingTable().ownerOf(moved))
                    .as("owner of vnode %d after the failover", moved)
                    .isEqualTo(0);
            ReleasableRate.release(runId);
            job.getJobExecutionResult().get(120, TimeUnit.SECONDS);
        } finally {
            ReleasableRate.release(runId);
        }
        assertThat(new TreeSet<>(ResultSink.take(runId)))
                .as("every count once, none lost or doubled across the failover")
                .isEqualTo(new TreeSet<>(SkewedCountsJob.plainFlink(runId, EVENTS)));
    }

    /**
     * Result lines ({@code key=count}) of keys whose vnode {@code subtask} owns in {@code table}.
     */
    private static long linesOfSubtask(
            String runId, RoutingTable table, VnodeLayout layout, int subtask) {
        return ResultSink.lines(runId).stream()
                .map(line -> Long.parseLong(line.substring(0, line.indexOf('='))))
                .filter(key -> table.ownerOf(layout.vnodeOfKey(key)) == subtask)
                .count();
    }

    /** The skewed counts job with a transfer whose installs the test holds or fails. */
    private static JobClient submit(String runId, Configuration config, String jobName)
            throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        SkewedCountsJob.rhino(
                env,
                runId,
                EVENTS,
                RhinoKeyedStreamOptions.builder(NAME)
                        .vnodes(VNODES)
                        .stateTransfer(new BlockingInstallStateTransfer(runId))
                        .build());
        return env.executeAsync(jobName);
    }
}
