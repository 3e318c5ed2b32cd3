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
import io.rhino.flink.api.RhinoKeyedStreamOptions;
import io.rhino.flink.api.RhinoStreams;
import io.rhino.flink.coordination.RhinoHandovers;
import io.rhino.flink.reconfiguration.OperatorView;
import io.rhino.flink.replication.PeerVnodeReplication;
import io.rhino.flink.replication.ReplicaListing;
import io.rhino.flink.testjobs.FailOnDemand;
import io.rhino.flink.testjobs.Multisets;
import io.rhino.flink.testjobs.ReleasableRate;
import io.rhino.flink.testjobs.ResultSink;
import io.rhino.flink.testjobs.ShapeFunctions;
import io.rhino.flink.testjobs.SkewedEvents;
import io.rhino.flink.testjobs.TestPipelines.Mode;
import io.rhino.handover.HandoverManager;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Handovers between TaskManagers over the replication protocol, on three TaskManagers with their
 * own replication services and stores: a target in the origin's replica chain receives only what
 * was written since the last replicated checkpoint, a target elsewhere receives the whole vnode,
 * and under random handovers between TaskManagers the output equals plain Flink's.
 */
@Timeout(300)
class CrossTaskManagerHandoverITCase {

    private static final String NAME = "moved-across";
    private static final int PARALLELISM = 6; // two subtasks on each of the three TaskManagers
    private static final int VNODES = 12;
    private static final int KEYS = 2_000;
    private static final long EVENTS = 80_000;

    private static final InMemoryReporter METRICS = InMemoryReporter.createWithRetainedMetrics();

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = RhinoClusters.threeTaskManagers(METRICS);

    @TempDir Path checkpoints;
    @TempDir Path replicas;

    @Test
    void vnodesMoveBetweenTaskManagersShippingOnlyWhatTheTargetLacks(
            @InjectMiniCluster MiniCluster miniCluster) throws Exception {
        String runId = "across-" + UUID.randomUUID();
        Configuration config = RhinoClusters.jobConfig(Mode.RHINO);
        RhinoClusters.withCheckpoints(
                config, checkpoints, RhinoClusters.ONLY_TRIGGERED_CHECKPOINTS);
        RhinoClusters.withPeerReplication(config, replicas, null);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        env.setParallelism(PARALLELISM);
        RhinoStreams.keyBy(
                        SkewedEvents.stream(env, EVENTS, KEYS, new ReleasableRate(runId, 4_000)),
                        new ShapeFunctions.ByKey(),
                        RhinoKeyedStreamOptions.builder(NAME).vnodes(VNODES).build())
                .process(new ShapeFunctions.CountPerKeyWithHistory())
                .sinkTo(new ResultSink(runId));
        JobClient job = env.executeAsync("across");
        HandoverManager manager =
                RhinoHandovers.awaitReady(job.getJobID(), NAME, Duration.ofSeconds(60));
        OperatorView operator =
                RhinoHandovers.directory().operator(job.getJobID().toString(), NAME).orElseThrow();
        String prefix = PeerVnodeReplication.operatorPrefix(job.getJobID().toString(), NAME);

        Thread.sleep(5_000); // state to move: ~100 bytes per event at 4,000 events/s
        // nothing new while the first two vnodes move: what they ship is measured exactly
        ReleasableRate.pause(runId);
        Thread.sleep(500);
        RhinoClusters.checkpoint(miniCluster, job.getJobID());

        // to a subtask on a TaskManager holding the origin's replica: the delta only
        Map<Integer, String> taskManagers = operator.taskManagerBySubtask();
        RoutingTable table = manager.routingTable();
        int vnode = largestVnode(operator);
        int origin = table.ownerOf(vnode);
        Set<String> holders = operator.replicaHolders().get(vnode);
        assertThat(holders).as("replica holders of vnode %d", vnode).isNotEmpty();
        int target = subtaskOn(taskManagers, holders, origin);
        long replicatedSst = replicatedSstBytes(prefix, vnode);
        assertThat(replicatedSst)
                .as("SST bytes of vnode %d's replica", vnode)
                .isGreaterThan(100_000);
        long sentToHolder = sentFor(job, manager, vnode, origin, target);
        assertThat(sentToHolder)
                .as(
                        "bytes sent to move vnode %d (%d bytes replicated) to a holder",
                        vnode, replicatedSst)
                .isPositive()
                .isLessThan(replicatedSst / 4);

        // to a subtask on a TaskManager that holds nothing of it: the whole vnode
        table = manager.routingTable();
        int other = anotherVnodeOf(table, vnode, operator);
        int otherOrigin = table.ownerOf(other);
        Set<String> excluded = new java.util.HashSet<>(operator.replicaHolders().get(other));
        excluded.add(taskManagers.get(otherOrigin));
        int farTarget = subtaskNotOn(taskManagers, excluded);
        long otherReplicated = replicatedSstBytes(prefix, other);
        long sentFar = sentFor(job, manager, other, otherOrigin, farTarget);
        assertThat(sentFar)
                .as(
                        "bytes sent to move vnode %d (%d bytes replicated) to a non-holder",
                        other, otherReplicated)
                .isGreaterThan(otherReplicated / 2);

        // random handovers between TaskManagers, checkpoints (and so replication) in between
        ReleasableRate.resume(runId);
        moveRandomlyBetweenTaskManagers(
                miniCluster, job, manager, operator, new Random(20261124), 12);

        ReleasableRate.release(runId);
        job.getJobExecutionResult().get();
        Multisets.assertSameMultiset(
                "output with handovers between TaskManagers vs plain Flink",
                SkewedCountsJob.plainFlink(
                        runId,
                        EVENTS,
                        PARALLELISM,
                        KEYS,
                        new ShapeFunctions.CountPerKeyWithHistory()),
                ResultSink.take(runId));
    }

    /**
     * A failover between moves: the restarted gates get their chains again, the next checkpoint is
     * replicated for every vnode, vnodes keep moving between TaskManagers, and the final counts
     * equal plain Flink's.
     */
    @Test
    void replicationAndMovesBetweenTaskManagersResumeAfterAFailover(
            @InjectMiniCluster MiniCluster miniCluster) throws Exception {
        String runId = "across-failover-" + UUID.randomUUID();
        JobClient job = startFailingOnDemand(runId, "across-failover-it");
        HandoverManager manager =
                RhinoHandovers.awaitReady(job.getJobID(), NAME, Duration.ofSeconds(60));
        OperatorView operator =
                RhinoHandovers.directory().operator(job.getJobID().toString(), NAME).orElseThrow();
        Random random = new Random(20261125);
        Thread.sleep(1_000);
        moveRandomlyBetweenTaskManagers(miniCluster, job, manager, operator, random, 4);
        RhinoClusters.checkpoint(miniCluster, job.getJobID());

        FailOnDemand.arm(runId);
        manager = RhinoClusters.awaitRecovered(job.getJobID(), NAME, runId);
        operator =
                RhinoHandovers.directory().operator(job.getJobID().toString(), NAME).orElseThrow();
        RhinoClusters.checkpoint(miniCluster, job.getJobID());
        long afterFailover = RhinoClusters.checkpoint(miniCluster, job.getJobID());
        String prefix = PeerVnodeReplication.operatorPrefix(job.getJobID().toString(), NAME);
        for (int vnode = 0; vnode < VNODES; vnode++) {
            assertThat(
                            storesWithListing(
                                    ReplicaListing.path(
                                            ReplicaListing.vnodeDirectory(prefix, vnode),
                                            afterFailover)))
                    .as(
                            "TaskManagers holding vnode %d as of checkpoint %d, after the failover",
                            vnode, afterFailover)
                    .isEqualTo(1);
        }
        moveRandomlyBetweenTaskManagers(miniCluster, job, manager, operator, random, 4);

        ReleasableRate.release(runId);
        job.getJobExecutionResult().get();
        assertThat(FailOnDemand.failures(runId)).as("injected failures").isEqualTo(1);
        assertDistinctLinesArePlainFlinks(
                runId, "distinct key=count lines, with a failover between moves vs plain Flink");
    }

    /**
     * After a handover to a subtask whose chain is the origin's TaskManager, the target's first
     * checkpoint sends none of the moved vnode's SST files down its chain: the origin's TaskManager
     * keeps the exported files as a replica, by hard links. The replica that round completes is
     * whole: a failover right after it restores every vnode from replicas, and the counts equal
     * plain Flink's.
     */
    @Test
    void theTargetsFirstCheckpointSendsNoneOfTheMovedFilesItsChainHolds(
            @InjectMiniCluster MiniCluster miniCluster) throws Exception {
        String runId = "across-seeded-" + UUID.randomUUID();
        JobClient job = startFailingOnDemand(runId, "across-seeded-it");
        HandoverManager manager =
                RhinoHandovers.awaitReady(job.getJobID(), NAME, Duration.ofSeconds(60));
        OperatorView operator =
                RhinoHandovers.directory().operator(job.getJobID().toString(), NAME).orElseThrow();
        String prefix = PeerVnodeReplication.operatorPrefix(job.getJobID().toString(), NAME);

        Thread.sleep(5_000);
        // nothing new from here on: every SST file of the moved vnode is one its replica holds
        ReleasableRate.pause(runId);
        Thread.sleep(500);
        RhinoClusters.checkpoint(miniCluster, job.getJobID());

        Map<Integer, String> taskManagers = operator.taskManagerBySubtask();
        int vnode = largestVnode(operator);
        int origin = manager.routingTable().ownerOf(vnode);
        int target =
                subtaskReplicatingTo(manager.routingTable(), operator, taskManagers.get(origin));
        long movedSst = replicatedSstBytes(prefix, vnode);
        assertThat(movedSst).as("SST bytes of vnode %d's replica", vnode).isGreaterThan(100_000);
        java.nio.file.attribute.FileTime beforeTheMove =
                java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis());
        sentFor(job, manager, vnode, origin, target);
        // the origin's TaskManager checksums what it adopted in the background
        Thread.sleep(1_000);
        long afterTheMove = RhinoClusters.checkpoint(miniCluster, job.getJobID());

        String listing =
                ReplicaListing.path(ReplicaListing.vnodeDirectory(prefix, vnode), afterTheMove);
        assertThat(storesWithListing(listing))
                .as("stores holding vnode %d as of checkpoint %d", vnode, afterTheMove)
                .isEqualTo(1);
        long sentSst = sstBytesStoredSince(prefix, vnode, afterTheMove, beforeTheMove);
        assertThat(sentSst)
                .as(
                        "SST bytes of vnode %d (%d bytes) its new owner's first checkpoint sent",
                        vnode, movedSst)
                .isLessThan(movedSst / 100);

        ReleasableRate.resume(runId);
        FailOnDemand.arm(runId);
        RhinoClusters.awaitRecovered(job.getJobID(), NAME, runId);
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        long fromReplicas = 0;
        while (System.nanoTime() < deadline && fromReplicas < VNODES) {
            fromReplicas =
                    RhinoClusters.gaugeSum(
                            METRICS, job.getJobID(), "rhinoVnodesRestoredFromReplicas");
            Thread.sleep(100);
        }
        assertThat(fromReplicas)
                .as("vnodes restored from replicas after the failover")
                .isEqualTo(VNODES);

        ReleasableRate.release(runId);
        job.getJobExecutionResult().get();
        assertDistinctLinesArePlainFlinks(
                runId,
                "distinct key=count lines, after a seeded replica and a failover vs plain Flink");
    }

    /**
     * The sink is at-least-once across a restart: lines after the restored checkpoint come twice.
     * Each line is "key=count", so lost or double-counted state shows as a count plain Flink never
     * wrote, or one missing.
     */
    private static void assertDistinctLinesArePlainFlinks(String runId, String what)
            throws Exception {
        assertThat(new TreeSet<>(ResultSink.take(runId)))
                .as(what)
                .isEqualTo(
                        new TreeSet<>(
                                SkewedCountsJob.plainFlink(
                                        runId,
                                        EVENTS,
                                        PARALLELISM,
                                        KEYS,
                                        new ShapeFunctions.CountPerKeyWithHistory())));
    }

    /**
     * Starts the counting job with peer replication under {@code secret}, restarts, and a failure
     * that {@link FailOnDemand} injects under {@code runId}.
     */
    private JobClient startFailingOnDemand(String runId, String secret) throws Exception {
        Configuration config = RhinoClusters.jobConfig(Mode.RHINO);
        RhinoClusters.withCheckpoints(
                config, checkpoints, RhinoClusters.ONLY_TRIGGERED_CHECKPOINTS);
        RhinoClusters.withPeerReplication(config, replicas, secret);
        RhinoClusters.withRestarts(config, 3, Duration.ofMillis(100));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        env.setParallelism(PARALLELISM);
        RhinoStreams.keyBy(
                        SkewedEvents.stream(env, EVENTS, KEYS, new ReleasableRate(runId, 4_000))
                                .map(new FailOnDemand<>(runId)),
                        new ShapeFunctions.ByKey(),
                        RhinoKeyedStreamOptions.builder(NAME).vnodes(VNODES).build())
                .process(new ShapeFunctions.CountPerKeyWithHistory())
                .sinkTo(new ResultSink(runId));
        return env.executeAsync(runId);
    }

    /**
     * The bytes of the SST files that the listing of {@code checkpoint} names for {@code vnode} and
     * that arrived in its store after {@code since}: what the round sent (an adopted or earlier
     * replica file keeps its older time).
     */
    private long sstBytesStoredSince(
            String prefix, int vnode, long checkpoint, java.nio.file.attribute.FileTime since)
            throws Exception {
        String vnodeDirectory = ReplicaListing.vnodeDirectory(prefix, vnode);
        long bytes = 0;
        try (Stream<Path> stores = Files.list(replicas)) {
            for (Path store : stores.toList()) {
                Path listing = store.resolve(ReplicaListing.path(vnodeDirectory, checkpoint));
                if (!Files.isRegularFile(listing)) {
                    continue;
                }
                for (String file : ReplicaListing.read(listing).files()) {
                    Path stored = store.resolve(vnodeDirectory).resolve(file);
                    if (file.endsWith(".sst")
                            && Files.getLastModifiedTime(stored).compareTo(since) > 0) {
                        bytes += Files.size(stored);
                    }
                }
            }
        }
        return bytes;
    }

    private long storesWithListing(String listing) throws Exception {
        try (Stream<Path> stores = Files.list(replicas)) {
            return stores.filter(store -> Files.isRegularFile(store.resolve(listing))).count();
        }
    }

    /**
     * Moves random vnodes to random subtasks on other TaskManagers than their owners', with a
     * checkpoint (and so a replication round) before every third move.
     */
    private static void moveRandomlyBetweenTaskManagers(
            MiniCluster miniCluster,
            JobClient job,
            HandoverManager manager,
            OperatorView operator,
            Random random,
            int moves)
            throws Exception {
        Map<Integer, String> taskManagers = operator.taskManagerBySubtask();
        for (int round = 0; round < moves; round++) {
            if (round % 3 == 0) {
                RhinoClusters.checkpoint(miniCluster, job.getJobID());
            }
            RoutingTable table = manager.routingTable();
            int moved = random.nextInt(VNODES);
            int from = table.ownerOf(moved);
            List<Integer> elsewhere = new ArrayList<>();
            for (int s = 0; s < PARALLELISM; s++) {
                if (!taskManagers.get(s).equals(taskManagers.get(from))) {
                    elsewhere.add(s);
                }
            }
            int to = elsewhere.get(random.nextInt(elsewhere.size()));
            assertThat(
                            manager.handover(List.of(new VnodeMove(moved, from, to)))
                                    .get(60, TimeUnit.SECONDS)
                                    .isCompleted())
                    .as("handover %d: vnode %d from %d to %d", round, moved, from, to)
                    .isTrue();
        }
    }

    /** Moves one vnode and returns the bytes its origin sent to the target's TaskManager. */
    private static long sentFor(JobClient job, HandoverManager manager, int vnode, int from, int to)
            throws Exception {
        long before = counter(job, "rhinoHandoverBytesSent");
        assertThat(
                        manager.handover(List.of(new VnodeMove(vnode, from, to)))
                                .get(60, TimeUnit.SECONDS)
                                .isCompleted())
                .isTrue();
        return counter(job, "rhinoHandoverBytesSent") - before;
    }

    private static int largestVnode(OperatorView operator) {
        int largest = 0;
        for (int v = 1; v < VNODES; v++) {
            if (operator.stateBytes(v) > operator.stateBytes(largest)) {
                largest = v;
            }
        }
        return largest;
    }

    /** The vnode after {@code not} whose owner has a TaskManager without its replica. */
    private static int anotherVnodeOf(RoutingTable table, int not, OperatorView operator) {
        int best = -1;
        for (int v = 0; v < VNODES; v++) {
            if (v != not
                    && (best < 0 || operator.stateBytes(v) > operator.stateBytes(best))
                    && !operator.replicaHolders().get(v).isEmpty()) {
                best = v;
            }
        }
        return best;
    }

    /** A subtask whose replica chain is {@code taskManager}: where its vnodes' replicas lie. */
    private static int subtaskReplicatingTo(
            RoutingTable table, OperatorView operator, String taskManager) {
        for (int subtask = 0; subtask < PARALLELISM; subtask++) {
            Set<String> chain = new java.util.HashSet<>();
            for (int v = 0; v < VNODES; v++) {
                if (table.ownerOf(v) == subtask) {
                    chain.addAll(operator.replicaHolders().get(v));
                }
            }
            if (chain.equals(Set.of(taskManager))) {
                return subtask;
            }
        }
        throw new AssertionError(
                "no subtask replicates to "
                        + taskManager
                        + ": "
                        + operator.replicaHolders()
                        + " by vnode, owners "
                        + table);
    }

    private static int subtaskOn(Map<Integer, String> taskManagers, Set<String> among, int not) {
        return taskManagers.entrySet().stream()
                .filter(e -> e.getKey() != not && among.contains(e.getValue()))
                .mapToInt(Map.Entry::getKey)
                .findFirst()
                .orElseThrow(() -> new AssertionError("no subtask on " + among));
    }

    private static int subtaskNotOn(Map<Integer, String> taskManagers, Set<String> excluded) {
        return taskManagers.entrySet().stream()
                .filter(e -> !excluded.contains(e.getValue()))
                .mapToInt(Map.Entry::getKey)
                .findFirst()
                .orElseThrow(() -> new AssertionError("every subtask is on " + excluded));
    }

    /** The SST bytes of the newest replica of {@code vnode}, on whichever store holds it. */
    private long replicatedSstBytes(String prefix, int vnode) throws Exception {
        String vnodeDirectory = ReplicaListing.vnodeDirectory(prefix, vnode);
        long newest = -1;
        long bytes = 0;
        try (Stream<Path> stores = Files.list(replicas)) {
            for (Path store : stores.toList()) {
                Path directory = store.resolve(vnodeDirectory);
                if (!Files.isDirectory(directory)) {
                    continue;
                }
                try (Stream<Path> checkpointDirectories = Files.list(directory)) {
                    for (Path checkpoint : checkpointDirectories.toList()) {
                        Path listing = checkpoint.resolve(ReplicaListing.NAME);
                        String name = checkpoint.getFileName().toString();
                        if (!name.startsWith("chk-") || !Files.isRegularFile(listing)) {
                            continue;
                        }
                        long id = Long.parseLong(name.substring(4));
                        if (id > newest) {
                            newest = id;
                            bytes = 0;
                            for (String file : ReplicaListing.read(listing).files()) {
                                if (file.endsWith(".sst")) {
                                    bytes += Files.size(directory.resolve(file));
                                }
                            }
                        }
                    }
                }
            }
        }
        return bytes;
    }

    private static long counter(JobClient job, String name) {
        long sum = 0;
        for (var entry : METRICS.getMetricsByGroup().entrySet()) {
            if (job.getJobID().toString().equals(entry.getKey().getAllVariables().get("<job_id>"))
                    && entry.getValue().get(name) instanceof Counter counter) {
                sum += counter.getCount();
            }
        }
        return sum;
    }
}
