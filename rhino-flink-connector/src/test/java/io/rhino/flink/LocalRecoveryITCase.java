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
import io.rhino.flink.api.RhinoKeyedStreamOptions;
import io.rhino.flink.api.RhinoStreams;
import io.rhino.flink.config.RhinoOptions;
import io.rhino.flink.coordination.RhinoHandovers;
import io.rhino.flink.replication.ReplicaListing;
import io.rhino.flink.testjobs.CheckpointFiles;
import io.rhino.flink.testjobs.Events;
import io.rhino.flink.testjobs.QuietPhase;
import io.rhino.flink.testjobs.ResultSink;
import io.rhino.flink.testjobs.ShapeFunctions;
import io.rhino.flink.testjobs.TestPipelines.Mode;
import io.rhino.handover.HandoverManager;
import io.rhino.handover.HandoverResult;
import io.rhino.replication.testing.ChangingFileTree;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.FileUtils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * With task-local recovery configured, a Rhino job restores correctly after a failure, its subtasks
 * restoring their vnodes from the local copies Flink's local state store kept for them on their
 * TaskManagers (none downloaded), and handovers leave no local snapshot directories behind.
 */
@Timeout(180)
class LocalRecoveryITCase {

    private static final Path LOCAL_STATE = RhinoClusters.localStateRoot("rhino-local-state");

    private static final InMemoryReporter METRICS = InMemoryReporter.createWithRetainedMetrics();

    @RegisterExtension
    static final MiniClusterExtension CLUSTER =
            RhinoClusters.twoTaskManagers(
                    RhinoClusters.withLocalRecovery(
                            METRICS.addToConfiguration(new Configuration()), LOCAL_STATE));

    private static final Map<String, AtomicBoolean> ARMED = new ConcurrentHashMap<>();

    @TempDir Path checkpoints;

    @Test
    void failureAfterHandoversRestoresExactlyWithLocalRecoveryConfigured(
            @InjectMiniCluster MiniCluster miniCluster) throws Exception {
        long events = 6_000;
        List<String> reference = plainFlinkCounts(events);

        String runId = "local-recovery-" + UUID.randomUUID();
        ARMED.put(runId, new AtomicBoolean());
        Configuration config = RhinoClusters.jobConfig(Mode.RHINO);
        RhinoClusters.withCheckpoints(config, checkpoints, Duration.ofMillis(200));
        RhinoClusters.withRestarts(config, 3, Duration.ofMillis(100));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        env.setParallelism(2);
        String name = "counts";
        countWithFailure(runId, name, 4, Events.stream(env, "events", 1, events, 5, 13, 1_000, 1));
        JobClient job = env.executeAsync("local-recovery");

        HandoverManager manager =
                RhinoHandovers.awaitReady(job.getJobID(), name, Duration.ofSeconds(60));
        for (int vnode = 0; vnode < 2; vnode++) {
            int owner = manager.routingTable().ownerOf(vnode);
            HandoverResult moved =
                    manager.handover(List.of(new VnodeMove(vnode, owner, 1 - owner)))
                            .get(60, TimeUnit.SECONDS);
            assertThat(moved.outcome()).isEqualTo(HandoverResult.Outcome.COMPLETED);
        }
        // the handovers may have ended before the first periodic checkpoint: take one now
        RhinoClusters.checkpoint(miniCluster, job.getJobID());
        assertThat(localCheckpointDirectories("chk_"))
                .as("local copies of checkpoints: local backup is on")
                .isNotEmpty();
        assertThat(localCheckpointDirectories("chk_-"))
                .as("local snapshot directories of vnode exports (pseudo-checkpoints < 0)")
                .isEmpty();
        Thread.sleep(600); // a checkpoint after the handovers, then fail and restore from it
        ARMED.get(runId).set(true);
        job.getJobExecutionResult().get();

        assertThat(ARMED.get(runId).get()).as("the injected failure happened").isFalse();
        assertThat(new TreeSet<>(ResultSink.take(runId)))
                .as("every count once, none lost or doubled across the restore")
                .isEqualTo(new TreeSet<>(reference));
        assertThat(gaugeSum(job.getJobID(), "rhinoVnodesRestoredFromLocalCopies"))
                .as("vnodes restored from their task-local copies after the failure")
                .isEqualTo(4);
    }

    /**
     * Idle vnodes cost nothing at a checkpoint with local backup on too: a checkpoint taken while
     * all vnodes but one idle reuses their earlier snapshots, keeping each one's task-local copy
     * (linked into its own local directory), and a failure right after restores every vnode from
     * such a copy, the reused ones included, with every count right.
     */
    @Test
    void idleVnodesReusedWithLocalBackupRestoreFromTheirLocalCopies(
            @InjectMiniCluster MiniCluster miniCluster) throws Exception {
        long events = 24_000;
        int vnodes = 8;
        // after 2 s every event goes to key 1 until 20 s: one vnode written, the others idle
        QuietPhase quiet = new QuietPhase(2_000, 20_000, 1);
        List<String> reference = plainFlinkCounts(events, 1, quiet);

        String runId = "local-recovery-idle-" + UUID.randomUUID();
        ARMED.put(runId, new AtomicBoolean());
        Configuration config = RhinoClusters.jobConfig(Mode.RHINO);
        RhinoClusters.withCheckpoints(config, checkpoints, Duration.ofMillis(300));
        RhinoClusters.withRestarts(config, 3, Duration.ofMillis(100));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        env.setParallelism(2);
        countWithFailure(
                runId,
                "counts",
                vnodes,
                Events.stream(env, "events", 1, events, 1, 13, 1_000, 1).map(quiet));
        JobClient job = env.executeAsync("local-recovery-idle-vnodes");

        long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        long reused = 0;
        while ((reused = gaugeSum(job.getJobID(), "rhinoVnodesReusedAtLastCheckpoint"))
                < vnodes - 1) {
            assertThat(System.nanoTime())
                    .as(
                            "a checkpoint in the quiet phase reusing all vnodes but one (last: %s)",
                            reused)
                    .isLessThan(deadline);
            Thread.sleep(50);
        }
        // the gauge moves in a checkpoint's synchronous part: the failure must restore a
        // checkpoint that completed with the reused snapshots, so one more completes first
        RhinoClusters.checkpoint(miniCluster, job.getJobID());
        assertThat(gaugeSum(job.getJobID(), "rhinoVnodesReusedAtLastCheckpoint"))
                .as("vnodes reused by the checkpoints after the one seen reusing")
                .isGreaterThanOrEqualTo(vnodes - 1);
        ARMED.get(runId).set(true);
        job.getJobExecutionResult().get();

        assertThat(ARMED.get(runId).get()).as("the injected failure happened").isFalse();
        assertThat(gaugeSum(job.getJobID(), "rhinoVnodesRestoredFromLocalCopies"))
                .as("vnodes restored from task-local copies, the reused snapshots' included")
                .isEqualTo(vnodes);
        assertThat(new TreeSet<>(ResultSink.take(runId)))
                .as("every count once, none lost or doubled across the restore")
                .isEqualTo(new TreeSet<>(reference));
    }

    /**
     * With replication too, the vnodes restored from their task-local copies keep replicating into
     * the replica directories their chain already holds (seeded with what it held), instead of
     * sending every file again into new ones.
     */
    @Test
    void withReplicationTheRestoredVnodesReplicateIntoTheReplicasTheChainHolds(
            @TempDir Path replicas, @InjectMiniCluster MiniCluster miniCluster) throws Exception {
        String runId = "local-recovery-replicated-" + UUID.randomUUID();
        ARMED.put(runId, new AtomicBoolean());
        Configuration config = RhinoClusters.jobConfig(Mode.RHINO);
        RhinoClusters.withCheckpoints(config, checkpoints, Duration.ofMillis(200));
        RhinoClusters.withRestarts(config, 3, Duration.ofMillis(100));
        RhinoClusters.withPeerReplication(config, replicas, "local-recovery");
        // long enough to keep the replicas across the restart, short enough that the replication
        // services stop soon after the cancellation (later tests count threads)
        config.set(RhinoOptions.REPLICATION_RETAIN_AFTER_TASKS, Duration.ofSeconds(10));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        // three subtasks on two TaskManagers of two slots: both run one, so both replicate
        env.setParallelism(3);
        countWithFailure(
                runId, "counts", 4, Events.stream(env, "events", 1, 60_000, 5, 200, 1_000, 1));
        JobClient job = env.executeAsync("local-recovery-replicated");
        try {
            // A vnode's replica listing is written before its checkpoint completes: fail only
            // after one completed, or the job restarts without state and nothing restores locally.
            long completed = RhinoClusters.checkpoint(miniCluster, job.getJobID());
            Map<Integer, Listed> before = awaitListings(replicas, completed - 1);
            ARMED.get(runId).set(true);
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (gaugeSum(job.getJobID(), "rhinoVnodesRestoredFromLocalCopies") < 4) {
                assertThat(System.nanoTime()).as("vnodes restored locally").isLessThan(deadline);
                Thread.sleep(100);
            }
            long newest = before.values().stream().mapToLong(Listed::checkpoint).max().orElse(0);
            Map<Integer, Listed> after = awaitListings(replicas, newest);
            for (int vnode = 0; vnode < 4; vnode++) {
                assertThat(after.get(vnode).instanceDirectories())
                        .as("replica directories of vnode %d after the restore", vnode)
                        .isEqualTo(before.get(vnode).instanceDirectories());
            }
        } finally {
            job.cancel().get(60, TimeUnit.SECONDS);
            ResultSink.take(runId);
        }
        // after the finally block, so that a timeout here cannot hide the test's own failure
        awaitReplicasDeleted(replicas, job.getJobID().toString());
    }

    /**
     * Waits until the TaskManagers deleted the job's replicas, which they do once the retention
     * after its tasks ended is over: until then they still write and delete files under {@code
     * replicas}, and JUnit's deletion of that directory would race with them.
     */
    private static void awaitReplicasDeleted(Path replicas, String jobId) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (ChangingFileTree.regularFiles(replicas).stream()
                .anyMatch(file -> file.toString().contains(jobId))) {
            assertThat(System.nanoTime())
                    .as("replicas of the cancelled job deleted after their retention")
                    .isLessThan(deadline);
            Thread.sleep(200);
        }
    }

    /** A vnode's newest replica listing: its checkpoint and the directories of its SST files. */
    private record Listed(long checkpoint, Set<String> instanceDirectories) {}

    /** Waits until every vnode has a listing of a checkpoint after {@code after}; the newest. */
    private static Map<Integer, Listed> awaitListings(Path replicas, long after) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (true) {
            Map<Integer, Listed> newest = new TreeMap<>();
            for (Path file : CheckpointFiles.filesNamed(replicas, ReplicaListing.NAME::equals)) {
                // <store>/<job>/<operator>/vnode-V/chk-C/_files
                Path checkpointDirectory = file.getParent();
                int vnode =
                        Integer.parseInt(
                                checkpointDirectory
                                        .getParent()
                                        .getFileName()
                                        .toString()
                                        .substring(6));
                long checkpoint =
                        Long.parseLong(checkpointDirectory.getFileName().toString().substring(4));
                Set<String> directories = new TreeSet<>();
                try {
                    for (String listed : ReplicaListing.read(file).files()) {
                        if (listed.endsWith(".sst")) {
                            directories.add(listed.substring(0, listed.lastIndexOf('/')));
                        }
                    }
                } catch (IOException gone) {
                    continue; // dropped by the holder's garbage collection meanwhile
                }
                if (checkpoint > after
                        && !directories.isEmpty()
                        && (!newest.containsKey(vnode)
                                || newest.get(vnode).checkpoint() < checkpoint)) {
                    newest.put(vnode, new Listed(checkpoint, directories));
                }
            }
            if (newest.size() == 4) {
                return newest;
            }
            assertThat(System.nanoTime())
                    .as("listings of all 4 vnodes after checkpoint %d, got %s", after, newest)
                    .isLessThan(deadline);
            Thread.sleep(100);
        }
    }

    /**
     * Counts per key of {@code events} in a Rhino operator {@code name} of {@code vnodes} vnodes
     * into the run's result sink, failing once where the test arms it.
     */
    private static void countWithFailure(
            String runId, String name, int vnodes, DataStream<Tuple3<Long, Long, Long>> events) {
        RhinoStreams.keyBy(
                        events.map(new FailWhenArmed(runId)),
                        new ShapeFunctions.ByKey(),
                        RhinoKeyedStreamOptions.builder(name).vnodes(vnodes).build())
                .process(new ShapeFunctions.CountPerKey())
                .sinkTo(new ResultSink(runId));
    }

    private static long gaugeSum(JobID jobId, String name) {
        return RhinoClusters.gaugeSum(METRICS, jobId, name);
    }

    /** The counts of a failure-free plain Flink run. */
    private static List<String> plainFlinkCounts(long events) throws Exception {
        return plainFlinkCounts(events, 5, QuietPhase.NONE);
    }

    private static List<String> plainFlinkCounts(long events, long millisPerEvent, QuietPhase quiet)
            throws Exception {
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.getExecutionEnvironment(
                        RhinoClusters.jobConfig(Mode.PLAIN));
        env.setParallelism(2);
        String runId = "local-recovery-reference-" + UUID.randomUUID();
        Events.stream(env, "events", 1, events, millisPerEvent, 13, 0, 1)
                .map(quiet)
                .keyBy(new ShapeFunctions.ByKey())
                .process(new ShapeFunctions.CountPerKey())
                .sinkTo(new ResultSink(runId));
        env.execute("local-recovery-reference");
        return ResultSink.take(runId);
    }

    /**
     * The local checkpoint directories named {@code prefix...}; {@code chk_-} matches those of
     * pseudo-checkpoints, i.e. of vnode exports.
     */
    private static Set<Path> localCheckpointDirectories(String prefix) throws IOException {
        // Flink discards older local checkpoints asynchronously: what vanishes mid-walk is skipped
        return CheckpointFiles.directoriesUnder(LOCAL_STATE, prefix);
    }

    /** Throws once, in subtask 0, after the test armed it. */
    private static final class FailWhenArmed
            extends RichMapFunction<Tuple3<Long, Long, Long>, Tuple3<Long, Long, Long>> {
        private final String runId;

        FailWhenArmed(String runId) {
            this.runId = runId;
        }

        @Override
        public Tuple3<Long, Long, Long> map(Tuple3<Long, Long, Long> event) {
            if (getRuntimeContext().getTaskInfo().getIndexOfThisSubtask() == 0
                    && ARMED.get(runId).compareAndSet(true, false)) {
                throw new RuntimeException("Injected failure after handovers");
            }
            return event;
        }
    }

    @AfterAll
    static void deleteLocalState() throws IOException {
        FileUtils.deleteDirectory(LOCAL_STATE.toFile());
    }
}
