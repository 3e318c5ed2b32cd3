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

import io.rhino.flink.api.RhinoKeyedStreamOptions;
import io.rhino.flink.api.RhinoStreams;
import io.rhino.flink.coordination.RhinoHandovers;
import io.rhino.flink.testjobs.Events;
import io.rhino.flink.testjobs.HeldEvents;
import io.rhino.flink.testjobs.MigrationShapes;
import io.rhino.flink.testjobs.Multisets;
import io.rhino.flink.testjobs.ResultSink;
import io.rhino.flink.testjobs.ShapeFunctions;
import io.rhino.flink.testjobs.TestPipelines.Mode;
import io.rhino.handover.HandoverManager;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.CommonTestUtils;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend.PriorityQueueStateType;
import org.apache.flink.state.rocksdb.RocksDBOptions;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Keyed state moves into and out of Rhino through canonical savepoints, the operators matched by
 * uid: a job on Flink's own {@code keyBy} (RocksDB or heap backend) continues as a Rhino job at
 * another parallelism, and a Rhino job whose vnodes a handover scattered continues as a {@code
 * keyBy} job; the counts across either move are exactly one plain Flink run's. The same holds for a
 * sliding window, event-time and processing-time timers, a window join, a co-group, session windows
 * and a window with an evictor ({@link MigrationShapes}), with windows open and timers pending at
 * the savepoint.
 */
@Timeout(240)
class MigrationITCase {

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = RhinoClusters.threeTaskManagers();

    private static final long EVENTS = 8_000;
    private static final double EVENTS_PER_SECOND = 1_000;
    private static final int KEYS = 40;

    /** Flink's default max parallelism for small parallelisms, which a keyBy job keeps. */
    private static final int FLINK_DEFAULT_MAX_PARALLELISM = 128;

    @TempDir Path savepoints;

    @ParameterizedTest(name = "from keyBy on {0}")
    @ValueSource(strings = {"rocksdb", "hashmap"})
    void aKeyByJobsSavepointContinuesInRhino(String flinkBackend) throws Exception {
        List<String> reference = CountPerKeyRuns.plainFlink(11, EVENTS, KEYS);
        String runId = "migrate-in-" + flinkBackend + "-" + UUID.randomUUID();

        Configuration plain = RhinoClusters.jobConfig(Mode.PLAIN);
        plain.set(StateBackendOptions.STATE_BACKEND, flinkBackend);
        StreamExecutionEnvironment before = environment(plain, 2, null);
        countOnKeyBy(before, runId, 0);
        JobClient keyBy = before.executeAsync("keyBy");
        String savepoint = stopWhenRunning(keyBy);
        List<String> output = new ArrayList<>(ResultSink.take(runId));

        StreamExecutionEnvironment after =
                environment(RhinoClusters.jobConfig(Mode.RHINO), 4, savepoint);
        countOnRhino(
                after,
                runId,
                RhinoKeyedStreamOptions.builder("counts")
                        .keyGroups(FLINK_DEFAULT_MAX_PARALLELISM)
                        .build());
        JobClient rhino = after.executeAsync("rhino");
        HandoverManager manager =
                RhinoHandovers.awaitReady(rhino.getJobID(), "counts", Duration.ofSeconds(60));
        CountPerKeyRuns.scatter(manager);
        new RandomHandovers(rhino.getJobID(), List.of("counts"), 3)
                .assertOwnershipMatches("counts", manager.routingTable());
        rhino.getJobExecutionResult().get(120, TimeUnit.SECONDS);
        output.addAll(ResultSink.take(runId));

        Multisets.assertSameMultiset("counts from keyBy into Rhino", reference, output);
    }

    /**
     * A native savepoint of a keyBy job on Flink's RocksDB backend (incremental: one RocksDB handle
     * per old subtask) restores into Rhino at another parallelism: each vnode's RocksDB instance
     * restores from the old subtasks' instances that hold its key groups, clipped to them.
     */
    @Test
    void aKeyByJobsNativeRocksDbSavepointContinuesInRhino() throws Exception {
        List<String> reference = CountPerKeyRuns.plainFlink(11, EVENTS, KEYS);
        String runId = "migrate-in-native-" + UUID.randomUUID();

        Configuration plain = RhinoClusters.jobConfig(Mode.PLAIN);
        plain.set(StateBackendOptions.STATE_BACKEND, "rocksdb");
        plain.set(
                org.apache.flink.configuration.CheckpointingOptions.INCREMENTAL_CHECKPOINTS, true);
        StreamExecutionEnvironment before = environment(plain, 2, null);
        countOnKeyBy(before, runId, 0);
        String savepoint =
                stopWhenRunning(before.executeAsync("keyBy-native"), SavepointFormatType.NATIVE);
        List<String> output = new ArrayList<>(ResultSink.take(runId));

        StreamExecutionEnvironment after =
                environment(RhinoClusters.jobConfig(Mode.RHINO), 4, savepoint);
        countOnRhino(
                after,
                runId,
                RhinoKeyedStreamOptions.builder("counts")
                        .keyGroups(FLINK_DEFAULT_MAX_PARALLELISM)
                        .build());
        JobClient rhino = after.executeAsync("rhino-from-native");
        HandoverManager manager =
                RhinoHandovers.awaitReady(rhino.getJobID(), "counts", Duration.ofSeconds(60));
        CountPerKeyRuns.scatter(manager);
        rhino.getJobExecutionResult().get(120, TimeUnit.SECONDS);
        output.addAll(ResultSink.take(runId));

        Multisets.assertSameMultiset("counts from a native keyBy savepoint", reference, output);
    }

    /**
     * At 3 subtasks Flink's key-group ranges of 128 key groups cut vnodes: the job fails without
     * restarting, naming the vnodes and what parallelism to restore at.
     */
    @Test
    void aKeyByJobsSavepointAtAParallelismThatCutsVnodesIsRefused() throws Exception {
        String runId = "migrate-in-refused-" + UUID.randomUUID();
        StreamExecutionEnvironment before =
                environment(RhinoClusters.jobConfig(Mode.PLAIN), 2, null);
        countOnKeyBy(before, runId, 0);
        String savepoint = stopWhenRunning(before.executeAsync("keyBy"));

        StreamExecutionEnvironment after =
                environment(RhinoClusters.jobConfig(Mode.RHINO), 3, savepoint);
        countOnRhino(
                after,
                runId,
                RhinoKeyedStreamOptions.builder("counts")
                        .keyGroups(FLINK_DEFAULT_MAX_PARALLELISM)
                        .build());
        JobClient rhino = after.executeAsync("rhino-at-3");
        assertThatThrownBy(() -> rhino.getJobExecutionResult().get(60, TimeUnit.SECONDS))
                .satisfies(
                        failure ->
                                assertThat(ExceptionUtils.stringifyException(failure))
                                        .contains(
                                                "restores state of Flink's keyBy at parallelism 3")
                                        .contains("reach beyond it")
                                        .contains("divides the 128 key groups"));
        ResultSink.take(runId);
    }

    @ParameterizedTest(name = "into keyBy on {0}")
    @ValueSource(strings = {"rocksdb", "hashmap"})
    void aRhinoJobsSavepointContinuesOnKeyBy(String flinkBackend) throws Exception {
        List<String> reference = CountPerKeyRuns.plainFlink(11, EVENTS, KEYS);
        String runId = "migrate-out-" + UUID.randomUUID();

        StreamExecutionEnvironment before =
                environment(RhinoClusters.jobConfig(Mode.RHINO), 2, null);
        countOnRhino(before, runId, RhinoKeyedStreamOptions.builder("counts").build());
        JobClient rhino = before.executeAsync("rhino");
        HandoverManager manager =
                RhinoHandovers.awaitReady(rhino.getJobID(), "counts", Duration.ofSeconds(60));
        CountPerKeyRuns.scatter(manager);
        int keyGroups = manager.routingTable().layout().numKeyGroups();
        String savepoint = stopWhenRunning(rhino);
        List<String> output = new ArrayList<>(ResultSink.take(runId));

        Configuration plain = RhinoClusters.jobConfig(Mode.PLAIN);
        plain.set(StateBackendOptions.STATE_BACKEND, flinkBackend);
        // Rhino's router and gate have no counterpart in a keyBy job
        plain.set(StateRecoveryOptions.SAVEPOINT_IGNORE_UNCLAIMED_STATE, true);
        StreamExecutionEnvironment after = environment(plain, 3, savepoint);
        countOnKeyBy(after, runId, keyGroups);
        after.execute("keyBy");
        output.addAll(ResultSink.take(runId));

        Multisets.assertSameMultiset("counts from Rhino into keyBy", reference, output);
    }

    /** Plain Flink's output of {@link MigrationShapes}, without any stop; every case shares it. */
    private static List<String> shapesReference;

    /**
     * A sliding window, event-time and processing-time timers, a window join, a co-group, session
     * windows and an evicting window move from {@code keyBy} into Rhino at another parallelism with
     * windows open and timers pending at the savepoint: the output across the move is exactly plain
     * Flink's.
     */
    @ParameterizedTest(name = "windows, timers, joins from keyBy on {0}")
    @ValueSource(strings = {"rocksdb", "rocksdb-native", "rocksdb-heap-timers", "hashmap"})
    void windowsTimersAndJoinsContinueInRhino(
            String flinkBackend, @InjectMiniCluster MiniCluster miniCluster) throws Exception {
        if (flinkBackend.equals("hashmap")) {
            RhinoClusters.onlyWithAllVariants("Migration in from " + flinkBackend);
        }
        List<String> reference = shapesReference();
        String runId = "shapes-in-" + flinkBackend + "-" + UUID.randomUUID();

        StreamExecutionEnvironment before = shapesEnvironment(flinkBackend(flinkBackend), 2, null);
        shapes(before, Mode.PLAIN, 0, runId);
        // rocksdb-native: Flink's incremental RocksDB files restore into the vnodes' instances
        String savepoint =
                stopMidStream(
                        before.executeAsync("shapes-keyBy"),
                        runId,
                        reference,
                        miniCluster,
                        flinkBackend.equals("rocksdb-native")
                                ? SavepointFormatType.NATIVE
                                : SavepointFormatType.CANONICAL);
        List<String> output = new ArrayList<>(ResultSink.take(runId));

        StreamExecutionEnvironment after =
                shapesEnvironment(rhinoBackend(flinkBackend), 4, savepoint);
        shapes(after, Mode.RHINO, FLINK_DEFAULT_MAX_PARALLELISM, runId);
        assertThat(MigrationShapes.restoredEventTimersFired(runId)).isZero();
        assertThat(MigrationShapes.restoredProcessingTimersFired(runId)).isZero();
        runToEnd(after.executeAsync("shapes-rhino"), runId, output);
        assertRestoredTimersFired(runId, 0, 0);
        Multisets.assertSameMultiset(
                "windows, timers and joins from keyBy into Rhino", reference, output);
    }

    /**
     * The same job moves out of Rhino, after handovers scattered the vnodes of the timers, the
     * join, the session windows and the evicting window, into {@code keyBy} at another parallelism:
     * exactly plain Flink's output.
     */
    @ParameterizedTest(name = "windows, timers, joins into keyBy on {0}")
    @ValueSource(strings = {"rocksdb", "rocksdb-heap-timers", "hashmap"})
    void windowsTimersAndJoinsContinueOnKeyBy(
            String flinkBackend, @InjectMiniCluster MiniCluster miniCluster) throws Exception {
        if (flinkBackend.equals("rocksdb-heap-timers")) {
            RhinoClusters.onlyWithAllVariants("Migration out into " + flinkBackend);
        }
        List<String> reference = shapesReference();
        String runId = "shapes-out-" + flinkBackend + "-" + UUID.randomUUID();

        StreamExecutionEnvironment before = shapesEnvironment(rhinoBackend(flinkBackend), 2, null);
        shapes(before, Mode.RHINO, 0, runId);
        // the input waits while the Rhino operators start and while handovers move their state,
        // which both take their time on a busy machine
        HeldEvents.pause(runId);
        JobClient rhino = before.executeAsync("shapes-rhino");
        CommonTestUtils.waitForAllTaskRunning(miniCluster, rhino.getJobID(), false);
        List<HandoverManager> managers = new ArrayList<>();
        for (String name : List.of("timers", "join", "session", "evicting")) {
            managers.add(RhinoHandovers.awaitReady(rhino.getJobID(), name, Duration.ofSeconds(60)));
        }
        HeldEvents.resume(runId);
        awaitOutput(runId);
        HeldEvents.pause(runId);
        for (HandoverManager manager : managers) {
            CountPerKeyRuns.scatter(manager);
        }
        int keyGroups = managers.get(0).routingTable().layout().numKeyGroups();
        HeldEvents.resume(runId);
        String savepoint =
                stopMidStream(rhino, runId, reference, miniCluster, SavepointFormatType.CANONICAL);
        List<String> output = new ArrayList<>(ResultSink.take(runId));

        Configuration plain = flinkBackend(flinkBackend);
        // Rhino's routers, gates and tagging maps have no counterpart in a keyBy job
        plain.set(StateRecoveryOptions.SAVEPOINT_IGNORE_UNCLAIMED_STATE, true);
        StreamExecutionEnvironment after = shapesEnvironment(plain, 3, savepoint);
        shapes(after, Mode.PLAIN, keyGroups, runId);
        long eventTimers = MigrationShapes.restoredEventTimersFired(runId);
        long processingTimers = MigrationShapes.restoredProcessingTimersFired(runId);
        runToEnd(after.executeAsync("shapes-keyBy"), runId, output);
        assertRestoredTimersFired(runId, eventTimers, processingTimers);
        Multisets.assertSameMultiset(
                "windows, timers and joins from Rhino into keyBy", reference, output);
    }

    private static synchronized List<String> shapesReference() throws Exception {
        if (shapesReference == null) {
            String runId = "shapes-reference-" + UUID.randomUUID();
            StreamExecutionEnvironment env =
                    shapesEnvironment(RhinoClusters.jobConfig(Mode.PLAIN), 2, null);
            shapes(env, Mode.PLAIN, 0, runId);
            List<String> reference = new ArrayList<>();
            runToEnd(env.executeAsync("shapes-reference"), runId, reference);
            shapesReference = reference;
        }
        return shapesReference;
    }

    private static void shapes(
            StreamExecutionEnvironment env, Mode mode, int keyGroups, String runId) {
        MigrationShapes.build(env, mode, keyGroups, runId)
                .sinkTo(new ResultSink(runId))
                .uid("results");
    }

    /**
     * Flink's {@code rocksdb} or {@code hashmap} backend, RocksDB keeping its timers on heap, or
     * RocksDB with incremental checkpoints, whose native savepoints hold its files.
     */
    private static Configuration flinkBackend(String name) {
        Configuration config = RhinoClusters.jobConfig(Mode.PLAIN);
        if (name.equals("rocksdb-heap-timers")) {
            config.set(StateBackendOptions.STATE_BACKEND, "rocksdb");
            config.set(RocksDBOptions.TIMER_SERVICE_FACTORY, PriorityQueueStateType.HEAP);
        } else if (name.equals("rocksdb-native")) {
            config.set(StateBackendOptions.STATE_BACKEND, "rocksdb");
            config.set(
                    org.apache.flink.configuration.CheckpointingOptions.INCREMENTAL_CHECKPOINTS,
                    true);
        } else {
            config.set(StateBackendOptions.STATE_BACKEND, name);
        }
        return config;
    }

    /**
     * Rhino's backend, with the timer factory of Flink's backend {@code name}: Rhino keyed
     * operators keep their timers in RocksDB even where the factory says heap.
     */
    private static Configuration rhinoBackend(String name) {
        Configuration config = RhinoClusters.jobConfig(Mode.RHINO);
        if (name.equals("rocksdb-heap-timers")) {
            config.set(RocksDBOptions.TIMER_SERVICE_FACTORY, PriorityQueueStateType.HEAP);
        }
        return config;
    }

    /**
     * Stops the job with a savepoint of {@code format}, its input held, soon after its first
     * event-time timer line: windows are open, event-time and processing-time timers pending (the
     * latter registered by the input's first half), and the input far from its end.
     */
    private String stopMidStream(
            JobClient job,
            String runId,
            List<String> reference,
            MiniCluster miniCluster,
            SavepointFormatType format)
            throws Exception {
        // a savepoint needs every task running: the first output does not mean they all are
        CommonTestUtils.waitForAllTaskRunning(miniCluster, job.getJobID(), false);
        awaitEventTimerLine(runId);
        // the input holds still from here, so a slow savepoint cannot let it run to its end
        HeldEvents.pause(runId);
        String savepoint;
        try {
            savepoint =
                    job.stopWithSavepoint(false, savepoints.toUri().toString(), format)
                            .get(60, TimeUnit.SECONDS);
        } finally {
            HeldEvents.resume(runId); // the restored job reads the same run's input
        }
        // the event-time timers' lines follow the main input's watermark alone
        assertThat(MigrationShapes.eventTimerLines(ResultSink.lines(runId)))
                .as("event-time timer lines before the savepoint")
                .isPositive()
                .isLessThan(MigrationShapes.eventTimerLines(reference) / 2);
        return savepoint;
    }

    /** Timers registered before the savepoint fired after the restore, in both time domains. */
    private static void assertRestoredTimersFired(
            String runId, long eventTimersBefore, long processingTimersBefore) {
        assertThat(MigrationShapes.restoredEventTimersFired(runId))
                .as("restored event-time timers that fired")
                .isGreaterThan(eventTimersBefore);
        assertThat(MigrationShapes.restoredProcessingTimersFired(runId))
                .as("restored processing-time timers that fired")
                .isGreaterThan(processingTimersBefore);
    }

    /**
     * Lets the job's last event go once its processing-time timers emitted all their lines (with
     * {@code before}, the output before a stop), or after 30 s; adds its output to {@code before}.
     */
    private static void runToEnd(JobClient job, String runId, List<String> before)
            throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (MigrationShapes.processingLines(before)
                                + MigrationShapes.processingLines(ResultSink.lines(runId))
                        < MigrationShapes.PROCESSING_LINES
                && System.nanoTime() < deadline
                && !job.getJobStatus().get().isTerminalState()) {
            Thread.sleep(100);
        }
        HeldEvents.releaseLastEvent(runId);
        job.getJobExecutionResult().get(120, TimeUnit.SECONDS);
        before.addAll(ResultSink.take(runId));
    }

    private static void awaitOutput(String runId) throws InterruptedException {
        awaitLines(runId, "first output", lines -> !lines.isEmpty());
    }

    private static void awaitEventTimerLine(String runId) throws InterruptedException {
        awaitLines(
                runId,
                "first event-time timer line",
                lines -> MigrationShapes.eventTimerLines(lines) > 0);
    }

    /** Waits up to 60 s until the run's output so far satisfies {@code done}. */
    private static void awaitLines(String runId, String what, Predicate<List<String>> done)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!done.test(ResultSink.lines(runId))) {
            assertThat(System.nanoTime()).as(what + " of " + runId).isLessThan(deadline);
            Thread.sleep(20);
        }
    }

    /** Auto-generated uids stay on: Flink's join and co-group tag their inputs without uids. */
    private static StreamExecutionEnvironment shapesEnvironment(
            Configuration config, int parallelism, String savepoint) {
        StreamExecutionEnvironment env = environment(config, parallelism, savepoint);
        env.getConfig().enableAutoGeneratedUIDs();
        return env;
    }

    /**
     * Counts per key on Flink's {@code keyBy}, the keyed operator's uid "counts", at max
     * parallelism {@code maxParallelism} (0: Flink's default).
     */
    private static void countOnKeyBy(
            StreamExecutionEnvironment env, String runId, int maxParallelism) {
        var counts =
                events(env)
                        .keyBy(new ShapeFunctions.ByKey())
                        .process(new ShapeFunctions.CountPerKey());
        if (maxParallelism > 0) {
            counts.setMaxParallelism(maxParallelism);
        }
        counts.uid("counts").sinkTo(new ResultSink(runId)).uid("results");
    }

    /** The same counts through a Rhino keyed stream, its keyed operator's uid "counts" as well. */
    private static void countOnRhino(
            StreamExecutionEnvironment env, String runId, RhinoKeyedStreamOptions options) {
        RhinoStreams.keyBy(events(env), new ShapeFunctions.ByKey(), options)
                .process(new ShapeFunctions.CountPerKey())
                .uid("counts")
                .sinkTo(new ResultSink(runId))
                .uid("results");
    }

    private static DataStream<Tuple3<Long, Long, Long>> events(StreamExecutionEnvironment env) {
        return Events.stream(env, "events", 11, EVENTS, 5, KEYS, EVENTS_PER_SECOND, 1)
                .uid("events");
    }

    private String stopWhenRunning(JobClient job) throws Exception {
        return stopWhenRunning(job, SavepointFormatType.CANONICAL);
    }

    private String stopWhenRunning(JobClient job, SavepointFormatType format) throws Exception {
        Thread.sleep(2_000); // records and checkpoints pass
        return job.stopWithSavepoint(false, savepoints.toUri().toString(), format)
                .get(60, TimeUnit.SECONDS);
    }

    private static StreamExecutionEnvironment environment(
            Configuration config, int parallelism, String savepoint) {
        config.set(PipelineOptions.AUTO_GENERATE_UIDS, false);
        config.set(
                org.apache.flink.configuration.CheckpointingOptions.CHECKPOINTING_INTERVAL,
                Duration.ofMillis(300));
        if (savepoint != null) {
            config.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        env.setParallelism(parallelism);
        return env;
    }
}
