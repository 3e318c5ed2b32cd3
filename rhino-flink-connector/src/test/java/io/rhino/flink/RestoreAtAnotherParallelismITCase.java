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
import io.rhino.flink.testjobs.CheckpointFiles;
import io.rhino.flink.testjobs.Events;
import io.rhino.flink.testjobs.FailOnDemand;
import io.rhino.flink.testjobs.Multisets;
import io.rhino.flink.testjobs.ReleasableRate;
import io.rhino.flink.testjobs.ResultSink;
import io.rhino.flink.testjobs.ShapeFunctions;
import io.rhino.flink.testjobs.TestPipelines.Mode;
import io.rhino.flink.testjobs.Throttle;
import io.rhino.handover.HandoverManager;
import io.rhino.handover.HandoverResult;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.checkpoint.RestoredCheckpointStats;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A Rhino job whose vnodes a handover scattered restores at another parallelism, with the default
 * vnode count or re-cut into another one, from a canonical savepoint, a native savepoint and a
 * retained checkpoint: every vnode's state comes back at the subtask the rescaled (or re-cut)
 * routing table names, the counts continue exactly as one plain Flink run's, and live handovers go
 * on at the new parallelism.
 */
@Timeout(300)
class RestoreAtAnotherParallelismITCase {

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = RhinoClusters.threeTaskManagers();

    // more than either run emits at this rate: the first run cannot finish before it is stopped,
    // the second is released to full speed once its handovers are done
    private static final long EVENTS = 60_000;
    private static final double EVENTS_PER_SECOND = 1_000;
    private static final int KEYS = 40;

    @TempDir Path checkpoints;
    @TempDir Path savepoints;

    enum Restore {
        CANONICAL_SAVEPOINT,
        NATIVE_SAVEPOINT,
        RETAINED_CHECKPOINT
    }

    /**
     * From, to, and the vnode count the restored job sets: null keeps the restored one, another
     * count re-cuts the key groups into it (the first run has the default, 4 per subtask).
     */
    static Stream<Arguments> rescales() {
        return Stream.of(
                Arguments.of(Restore.CANONICAL_SAVEPOINT, 2, 4, null),
                Arguments.of(Restore.NATIVE_SAVEPOINT, 6, 3, null),
                Arguments.of(Restore.RETAINED_CHECKPOINT, 4, 6, null),
                Arguments.of(Restore.RETAINED_CHECKPOINT, 6, 1, null),
                Arguments.of(Restore.RETAINED_CHECKPOINT, 2, 3, 12),
                Arguments.of(Restore.NATIVE_SAVEPOINT, 4, 2, 4),
                Arguments.of(Restore.CANONICAL_SAVEPOINT, 2, 4, 16));
    }

    @ParameterizedTest(name = "{0} from {1} to {2} subtasks, rhino.vnodes {3}")
    @MethodSource("rescales")
    void restoresEveryVnodeAtTheNewParallelism(
            Restore restore, int before, int after, Integer vnodesAfter) throws Exception {
        List<String> reference = CountPerKeyRuns.plainFlink(3, EVENTS, KEYS);
        String runId = "rescale-" + restore + "-" + before + "-" + after + "-" + UUID.randomUUID();

        JobClient first =
                countPerKey(environment(before, null), runId, null).executeAsync("before");
        HandoverManager manager =
                RhinoHandovers.awaitReady(first.getJobID(), "counts", Duration.ofSeconds(60));
        RoutingTable initial = manager.routingTable();
        assertThat(initial.layout().numVnodes())
                .as("default vnode count at %d subtasks", before)
                .isEqualTo(4 * before);
        CountPerKeyRuns.scatter(manager);
        RoutingTable stopped = manager.routingTable();
        String restorePath = stop(first, restore, runId);
        List<String> output = new ArrayList<>(ResultSink.take(runId));
        ReleasableRate.resume(runId);

        JobClient second =
                countPerKey(environment(after, restorePath), runId, vnodesAfter)
                        .executeAsync("after");
        HandoverManager restored =
                RhinoHandovers.awaitReady(second.getJobID(), "counts", Duration.ofSeconds(60));
        RoutingTable table = restored.routingTable();
        assertThat(table.parallelism()).as("parallelism after the restore").isEqualTo(after);
        if (vnodesAfter == null) {
            assertThat(table.layout())
                    .as("the restored vnodes, not %d x the new parallelism", 4)
                    .isEqualTo(stopped.layout());
        } else {
            assertThat(table.layout().numVnodes())
                    .as("the key groups re-cut into the chosen vnodes")
                    .isEqualTo(vnodesAfter);
            assertThat(table).isEqualTo(stopped.recutTo(table.layout(), after));
        }
        assertThat(table.epoch()).as("epoch after the restore").isGreaterThan(stopped.epoch());
        RandomHandovers handovers = new RandomHandovers(second.getJobID(), List.of("counts"), 11);
        handovers.assertOwnershipMatches("counts", table);
        if (after > 1) {
            CountPerKeyRuns.scatter(restored);
            handovers.assertOwnershipMatches("counts", restored.routingTable());
        }
        ReleasableRate.release(runId);
        second.getJobExecutionResult().get(120, TimeUnit.SECONDS);
        List<String> afterRestore = ResultSink.take(runId);
        output.addAll(afterRestore);

        if (restore == Restore.RETAINED_CHECKPOINT) {
            // the cancelled run wrote past its last checkpoint, and the restore replays from it:
            // lines are unique per key and count, so each appears, none twice after the restore
            assertThat(new TreeSet<>(afterRestore)).hasSameSizeAs(afterRestore);
            Multisets.assertSameMultiset(
                    "counts across the rescale", reference, new TreeSet<>(output));
        } else {
            Multisets.assertSameMultiset("counts across the rescale", reference, output);
        }
    }

    /**
     * A retained unaligned checkpoint that holds records and markers in flight to the gates, taken
     * at 4 subtasks after handovers scattered the vnodes, restored without a failover (restarts
     * off):
     *
     * <ul>
     *   <li>at 5 with {@code rhino.vnodes} unset: the job built at 5 would cut 20 vnodes, the
     *       checkpoint holds 16 (5 of the 40 keys have another owner at 5 under 20 vnodes than
     *       under 16). Flink hands every new gate all in-flight records and keeps at each those the
     *       edge's partitioner selects, which must follow the restored vnodes;
     *   <li>at 4 re-cut into 32 vnodes: Flink replays each channel into the same gate, whose re-cut
     *       vnodes keep their owners.
     * </ul>
     *
     * In both, replayed markers name subtasks or vnodes the restore renumbered; a gate that took
     * one for a live handover waited for a vnode nobody ships, or gave one away.
     */
    @ParameterizedTest(name = "restored at {0} subtasks, rhino.vnodes {1}, {2} routers")
    @CsvSource(
            value = {"5, null, 1", "4, 32, 1", "4, null, 1", "4, 32, 4", "4, null, 4"},
            nullValues = "null")
    void restoresInFlightRecordsOfAnUnalignedCheckpointByTheRestoredVnodes(
            int after, Integer vnodesAfter, int routers, @InjectMiniCluster MiniCluster miniCluster)
            throws Exception {
        List<String> reference = CountPerKeyRuns.plainFlink(3, EVENTS, KEYS);
        String runId = "unaligned-rescale-" + UUID.randomUUID();

        // keyed operators slower than the source (chained to them, 4 x 100 records/s) back up the
        // gates' input channels, which are then all the gates' tasks persist in flight
        JobClient first =
                throttledCounts(
                                environment(4, null, true),
                                runId,
                                routers,
                                null,
                                new Throttle<>(1, 10))
                        .executeAsync("before");
        JobID firstId = first.getJobID();
        HandoverManager manager =
                RhinoHandovers.awaitReady(firstId, "counts", Duration.ofSeconds(60));
        // vnode 0 to the last subtask, and a vnode that a re-cut into 32 renumbers (5: 10 and 11)
        HandoverResult moved =
                manager.handover(List.of(new VnodeMove(0, 0, 3), new VnodeMove(5, 1, 2)))
                        .get(60, TimeUnit.SECONDS);
        assertThat(moved.outcome()).as("%s", moved).isEqualTo(HandoverResult.Outcome.COMPLETED);
        RoutingTable stopped = manager.routingTable();
        awaitCheckpointWithRecordsInFlight(miniCluster, firstId);
        first.cancel().get(60, TimeUnit.SECONDS);
        Path retained =
                CheckpointFiles.latestCompletedCheckpoint(
                                checkpoints.resolve(firstId.toHexString()))
                        .orElseThrow();
        long retainedId = Long.parseLong(retained.getFileName().toString().substring(4));
        assertThat(
                        RhinoClusters.persistedInFlightBytesOfGates(
                                miniCluster, firstId, retainedId - 1))
                .as("records in flight to the gates in the retained checkpoint %s", retained)
                .isPositive();
        List<String> output = new ArrayList<>(ResultSink.take(runId));
        ReleasableRate.release(runId);

        JobClient second =
                throttledCounts(
                                environment(
                                        after,
                                        retained.toUri().toString(),
                                        true,
                                        // a failover would hide a gate that fails at the restore
                                        // and runs from a later checkpoint
                                        new Configuration()
                                                .set(
                                                        RestartStrategyOptions.RESTART_STRATEGY,
                                                        "none")),
                                runId,
                                routers,
                                vnodesAfter,
                                new Throttle<>(Integer.MAX_VALUE, 0))
                        .executeAsync("after");
        HandoverManager restored =
                RhinoHandovers.awaitReady(second.getJobID(), "counts", Duration.ofSeconds(60));
        RoutingTable table = restored.routingTable();
        assertThat(table.parallelism()).isEqualTo(after);
        if (vnodesAfter == null) {
            assertThat(table.layout()).isEqualTo(stopped.layout());
        } else {
            assertThat(table).isEqualTo(stopped.recutTo(table.layout(), after));
        }
        second.getJobExecutionResult().get(120, TimeUnit.SECONDS);
        output.addAll(ResultSink.take(runId));
        Multisets.assertSameMultiset("counts across the rescale", reference, new TreeSet<>(output));
    }

    /**
     * A failover, the restore that happens most often, of a job at 4 whose handovers scattered the
     * vnodes, from an unaligned checkpoint with records in flight to the gates. Flink restores at
     * the same parallelism but redistributes the in-flight records, since its routers run at 1:
     * each must be kept at the gate that restored its vnode, which is not the owner of Flink's
     * key-group range any more. Before, the restored job failed at every restore until its restarts
     * ran out.
     */
    @Test
    void failsOverFromAnUnalignedCheckpointWithRecordsInFlightToMovedVnodes(
            @InjectMiniCluster MiniCluster miniCluster) throws Exception {
        List<String> reference = CountPerKeyRuns.plainFlink(3, EVENTS, KEYS);
        String runId = "unaligned-failover-" + UUID.randomUUID();
        Configuration restarts =
                RhinoClusters.withRestarts(new Configuration(), 2, Duration.ofMillis(100));
        JobClient job =
                throttledCounts(
                                environment(4, null, true, restarts),
                                runId,
                                1,
                                null,
                                new ThrottleUntilReleased<>(runId))
                        .executeAsync("failover");
        JobID jobId = job.getJobID();
        CountPerKeyRuns.scatter(RhinoHandovers.awaitReady(jobId, "counts", Duration.ofSeconds(60)));
        long afterScatter = awaitCheckpointWithRecordsInFlight(miniCluster, jobId);
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();

        FailOnDemand.arm(runId);
        RestoredCheckpointStats restored;
        while ((restored =
                        miniCluster
                                .getExecutionGraph(jobId)
                                .get()
                                .getCheckpointStatsSnapshot()
                                .getLatestRestoredCheckpoint())
                == null) {
            assertThat(System.nanoTime()).as("the failover's restore").isLessThan(deadline);
            Thread.sleep(20);
        }
        long restoredId = restored.getCheckpointId();
        assertThat(restoredId).as("restored after the handovers").isGreaterThan(afterScatter);
        assertThat(
                        RhinoClusters.persistedInFlightBytesOfGates(
                                        miniCluster, jobId, restoredId - 1)
                                - RhinoClusters.persistedInFlightBytesOfGates(
                                        miniCluster, jobId, restoredId))
                .as("records in flight to the gates in restored checkpoint %d", restoredId)
                .isPositive();
        ThrottleUntilReleased.release(runId);
        ReleasableRate.release(runId);
        job.getJobExecutionResult().get(120, TimeUnit.SECONDS);

        assertThat(FailOnDemand.failures(runId)).as("one injected failure").isEqualTo(1);
        // the sink is not transactional: lines written after the restored checkpoint come again
        Multisets.assertSameMultiset(
                "counts across the failover", reference, new TreeSet<>(ResultSink.take(runId)));
    }

    /**
     * Waits until a checkpoint completed after the current latest holds records in flight to the
     * gates; returns the latest completed checkpoint before the wait.
     */
    private static long awaitCheckpointWithRecordsInFlight(MiniCluster miniCluster, JobID jobId)
            throws Exception {
        long before = RhinoClusters.latestCompletedCheckpointId(miniCluster, jobId);
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (RhinoClusters.persistedInFlightBytesOfGates(miniCluster, jobId, before) == 0) {
            assertThat(System.nanoTime())
                    .as("a checkpoint with records in flight")
                    .isLessThan(deadline);
            Thread.sleep(50);
        }
        return before;
    }

    /** Slows every record by 10 ms until the test releases its run; static, as the job restarts. */
    private static final class ThrottleUntilReleased<T> implements MapFunction<T, T> {

        private static final Set<String> RELEASED = ConcurrentHashMap.newKeySet();

        private final String runId;

        ThrottleUntilReleased(String runId) {
            this.runId = runId;
        }

        static void release(String runId) {
            RELEASED.add(runId);
        }

        @Override
        public T map(T value) throws InterruptedException {
            if (!RELEASED.contains(runId)) {
                Thread.sleep(10);
            }
            return value;
        }
    }

    private static StreamExecutionEnvironment throttledCounts(
            StreamExecutionEnvironment env,
            String runId,
            int routers,
            Integer vnodes,
            MapFunction<String, String> throttle) {
        DataStream<Tuple3<Long, Long, Long>> events = events(env, runId, routers);
        RhinoKeyedStreamOptions.Builder options = RhinoKeyedStreamOptions.builder("counts");
        if (vnodes != null) {
            options.vnodes(vnodes);
        }
        RhinoStreams.keyBy(events, new ShapeFunctions.ByKey(), options.build())
                .process(new ShapeFunctions.CountPerKey())
                .map(throttle)
                .uid("throttle")
                .map(new FailOnDemand<>(runId))
                .uid("fail-on-demand")
                .sinkTo(new ResultSink(runId))
                .uid("results");
        return env;
    }

    private String stop(JobClient job, Restore restore, String runId) throws Exception {
        Thread.sleep(1_000); // some records and a checkpoint after the handover
        ReleasableRate.pause(runId); // checkpoints go on; the source emits nothing more
        return switch (restore) {
            case CANONICAL_SAVEPOINT ->
                    job.stopWithSavepoint(
                                    false,
                                    savepoints.toUri().toString(),
                                    SavepointFormatType.CANONICAL)
                            .get(60, TimeUnit.SECONDS);
            case NATIVE_SAVEPOINT ->
                    job.stopWithSavepoint(
                                    false,
                                    savepoints.toUri().toString(),
                                    SavepointFormatType.NATIVE)
                            .get(60, TimeUnit.SECONDS);
            case RETAINED_CHECKPOINT -> {
                Path jobCheckpoints = checkpoints.resolve(job.getJobID().toHexString());
                long completed = CheckpointFiles.completedCheckpoints(jobCheckpoints).size();
                long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                while (CheckpointFiles.completedCheckpoints(jobCheckpoints).size() <= completed
                        && System.nanoTime() < deadline) {
                    Thread.sleep(50);
                }
                job.cancel().get(60, TimeUnit.SECONDS);
                yield CheckpointFiles.latestCompletedCheckpoint(jobCheckpoints)
                        .orElseThrow(() -> new AssertionError("no checkpoint completed in 60 s"))
                        .toUri()
                        .toString();
            }
        };
    }

    /** The runs' input, paced and released per run. */
    private static DataStream<Tuple3<Long, Long, Long>> events(
            StreamExecutionEnvironment env, String runId) {
        return events(env, runId, 1);
    }

    /** The events, read by {@code routers} source subtasks, each chained to a router. */
    private static DataStream<Tuple3<Long, Long, Long>> events(
            StreamExecutionEnvironment env, String runId, int routers) {
        return Events.stream(
                        env,
                        "events",
                        3,
                        EVENTS,
                        5,
                        KEYS,
                        new ReleasableRate(runId, EVENTS_PER_SECOND),
                        routers)
                .uid("events");
    }

    private static StreamExecutionEnvironment countPerKey(
            StreamExecutionEnvironment env, String runId, Integer vnodes) {
        DataStream<Tuple3<Long, Long, Long>> events = events(env, runId);
        CountPerKeyRuns.rhinoCounts(events, runId, vnodes);
        return env;
    }

    private StreamExecutionEnvironment environment(int parallelism, String restorePath) {
        return environment(parallelism, restorePath, false);
    }

    private StreamExecutionEnvironment environment(
            int parallelism, String restorePath, boolean unaligned) {
        return environment(parallelism, restorePath, unaligned, new Configuration());
    }

    private StreamExecutionEnvironment environment(
            int parallelism, String restorePath, boolean unaligned, Configuration extra) {
        Configuration config = RhinoClusters.jobConfig(Mode.RHINO);
        config.addAll(extra);
        if (unaligned) {
            config.set(CheckpointingOptions.ENABLE_UNALIGNED, true);
            config.set(CheckpointingOptions.ALIGNED_CHECKPOINT_TIMEOUT, Duration.ZERO);
        }
        config.set(PipelineOptions.AUTO_GENERATE_UIDS, false);
        config.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(300));
        config.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, checkpoints.toUri().toString());
        config.set(
                CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
                ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
        if (restorePath != null) {
            config.set(StateRecoveryOptions.SAVEPOINT_PATH, restorePath);
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        env.setParallelism(parallelism);
        return env;
    }
}
