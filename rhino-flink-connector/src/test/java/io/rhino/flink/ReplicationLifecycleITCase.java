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

import io.rhino.core.routing.RoutingTable;
import io.rhino.flink.api.RhinoKeyedStreamOptions;
import io.rhino.flink.config.RhinoOptions;
import io.rhino.flink.coordination.RhinoHandovers;
import io.rhino.flink.replication.PeerVnodeReplication;
import io.rhino.flink.replication.ReplicaListing;
import io.rhino.flink.state.PathSegment;
import io.rhino.flink.testjobs.Multisets;
import io.rhino.flink.testjobs.ReleasableRate;
import io.rhino.flink.testjobs.ResultSink;
import io.rhino.flink.testjobs.TestPipelines.Mode;
import io.rhino.handover.HandoverManager;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Replication around Flink's lifecycle: savepoints (native and canonical) and a canonical
 * stop-with-savepoint while checkpoints are replicated with unaligned checkpoints on, moves between
 * TaskManagers before and after, a restore from the stop savepoint that replicates again, and
 * cancel. The output of the two runs together equals plain Flink's; a stopped or cancelled job's
 * replicas leave every TaskManager's disk.
 */
@Timeout(300)
class ReplicationLifecycleITCase {

    private static final String NAME = "replicated-lifecycle";
    private static final long EVENTS = 60_000;
    private static final int VNODES = 8;

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = RhinoClusters.threeTaskManagers();

    @TempDir Path checkpoints;
    @TempDir Path savepoints;
    @TempDir Path replicas;

    @Test
    void stopWithSavepointAndRestoreWhileReplicatingGivePlainFlinksOutput(
            @InjectMiniCluster MiniCluster miniCluster) throws Exception {
        Random random = new Random(20261125);
        String firstRun = "replicated-stop-" + UUID.randomUUID();
        JobClient first = submit(firstRun, null);
        JobID firstId = first.getJobID();
        HandoverManager manager = RhinoHandovers.awaitReady(firstId, NAME, Duration.ofSeconds(60));

        long replicated = RhinoClusters.checkpoint(miniCluster, firstId);
        RhinoClusters.moveAcrossTaskManagers(firstId, NAME, manager, random, 3);
        assertEveryVnodeHeld(firstId, manager, RhinoClusters.checkpoint(miniCluster, firstId));
        assertThat(replicated).isPositive();

        // a savepoint in each format while replicating, moves after each
        miniCluster
                .triggerSavepoint(
                        firstId, savepoints.toUri().toString(), false, SavepointFormatType.NATIVE)
                .get(60, TimeUnit.SECONDS);
        RhinoClusters.moveAcrossTaskManagers(firstId, NAME, manager, random, 2);
        miniCluster
                .triggerSavepoint(
                        firstId,
                        savepoints.toUri().toString(),
                        false,
                        SavepointFormatType.CANONICAL)
                .get(60, TimeUnit.SECONDS);
        RhinoClusters.moveAcrossTaskManagers(firstId, NAME, manager, random, 2);
        assertEveryVnodeHeld(firstId, manager, RhinoClusters.checkpoint(miniCluster, firstId));

        String stopSavepoint =
                miniCluster
                        .stopWithSavepoint(
                                firstId,
                                savepoints.toUri().toString(),
                                false,
                                SavepointFormatType.CANONICAL)
                        .get(120, TimeUnit.SECONDS);
        first.getJobExecutionResult().get(120, TimeUnit.SECONDS);
        awaitNoReplicasOf(firstId);

        String secondRun = "replicated-restored-" + UUID.randomUUID();
        JobClient second = submit(secondRun, stopSavepoint);
        JobID secondId = second.getJobID();
        HandoverManager restored =
                RhinoHandovers.awaitReady(secondId, NAME, Duration.ofSeconds(60));
        RhinoClusters.checkpoint(miniCluster, secondId);
        RhinoClusters.moveAcrossTaskManagers(secondId, NAME, restored, random, 3);
        assertEveryVnodeHeld(secondId, restored, RhinoClusters.checkpoint(miniCluster, secondId));
        ReleasableRate.release(secondRun);
        second.getJobExecutionResult().get(180, TimeUnit.SECONDS);
        awaitNoReplicasOf(secondId);

        List<String> lines = new ArrayList<>(ResultSink.take(firstRun));
        lines.addAll(ResultSink.take(secondRun));
        Multisets.assertSameMultiset(
                "output of a replicated run stopped with a savepoint and restored vs plain Flink",
                SkewedCountsJob.plainFlink(firstRun, EVENTS),
                lines);
    }

    @Test
    void aCancelledJobsReplicasLeaveAfterTheRetention(@InjectMiniCluster MiniCluster miniCluster)
            throws Exception {
        String run = "replicated-cancel-" + UUID.randomUUID();
        JobClient job = submit(run, null);
        HandoverManager manager =
                RhinoHandovers.awaitReady(job.getJobID(), NAME, Duration.ofSeconds(60));
        RhinoClusters.checkpoint(miniCluster, job.getJobID());
        assertEveryVnodeHeld(
                job.getJobID(), manager, RhinoClusters.checkpoint(miniCluster, job.getJobID()));
        job.cancel().get(60, TimeUnit.SECONDS);
        awaitNoReplicasOf(job.getJobID());
        ReleasableRate.release(run);
        ResultSink.take(run);
    }

    private JobClient submit(String runId, String savepoint) throws Exception {
        Configuration config = RhinoClusters.jobConfig(Mode.RHINO);
        RhinoClusters.withCheckpoints(
                config, checkpoints, RhinoClusters.ONLY_TRIGGERED_CHECKPOINTS);
        RhinoClusters.withPeerReplication(config, replicas, "replication-lifecycle-it");
        config.set(CheckpointingOptions.ENABLE_UNALIGNED, true);
        config.set(RhinoOptions.REPLICATION_RETAIN_AFTER_TASKS, Duration.ofSeconds(2));
        if (savepoint != null) {
            config.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        SkewedCountsJob.rhino(
                env, runId, EVENTS, RhinoKeyedStreamOptions.builder(NAME).vnodes(VNODES).build());
        return env.executeAsync(runId);
    }

    /** Every vnode's listing of {@code checkpoint} is on a TaskManager other than its owner's. */
    private void assertEveryVnodeHeld(JobID jobId, HandoverManager manager, long checkpoint)
            throws Exception {
        Map<Integer, String> taskManagers = RhinoHandovers.operators(jobId).get(NAME);
        RoutingTable table = manager.routingTable();
        String prefix = PeerVnodeReplication.operatorPrefix(jobId.toString(), NAME);
        for (int vnode = 0; vnode < VNODES; vnode++) {
            String listing =
                    ReplicaListing.path(ReplicaListing.vnodeDirectory(prefix, vnode), checkpoint);
            String owner = PathSegment.of(taskManagers.get(table.ownerOf(vnode)));
            List<String> holders = new ArrayList<>();
            try (Stream<Path> stores = Files.list(replicas)) {
                for (Path store : stores.toList()) {
                    if (Files.isRegularFile(store.resolve(listing))) {
                        holders.add(store.getFileName().toString());
                    }
                }
            }
            assertThat(holders)
                    .as("holders of vnode %d as of checkpoint %d", vnode, checkpoint)
                    .hasSize(1)
                    .doesNotContain(owner);
        }
    }

    /** Waits until no TaskManager's store holds anything of the job. */
    private void awaitNoReplicasOf(JobID jobId) throws Exception {
        String job = PathSegment.of(jobId.toString());
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        List<Path> left;
        do {
            left = new ArrayList<>();
            try (Stream<Path> stores = Files.list(replicas)) {
                for (Path store : stores.toList()) {
                    if (Files.exists(store.resolve(job))) {
                        left.add(store.resolve(job));
                    }
                }
            }
            if (left.isEmpty()) {
                return;
            }
            Thread.sleep(200);
        } while (System.nanoTime() < deadline);
        assertThat(left).as("replicas of job %s 30 s after it ended", jobId).isEmpty();
    }
}
