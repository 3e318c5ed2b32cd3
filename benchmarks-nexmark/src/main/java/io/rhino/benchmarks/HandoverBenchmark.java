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

package io.rhino.benchmarks;

import io.rhino.benchmarks.cli.Args;
import io.rhino.benchmarks.cli.BenchmarkMain;
import io.rhino.benchmarks.cluster.EmbeddedCluster;
import io.rhino.benchmarks.cluster.PeerReplicationOptions;
import io.rhino.benchmarks.handover.HandoverReport;
import io.rhino.benchmarks.handover.HandoverReport.CheckpointCost;
import io.rhino.benchmarks.handover.HandoverReport.FlinkRescale;
import io.rhino.benchmarks.handover.HandoverReport.LatencySummary;
import io.rhino.benchmarks.handover.HandoverReport.RhinoHandover;
import io.rhino.benchmarks.handover.LoadEvent;
import io.rhino.benchmarks.handover.LoadGenerator;
import io.rhino.benchmarks.handover.MeasuredStateTransfer;
import io.rhino.benchmarks.handover.PageCache;
import io.rhino.benchmarks.handover.RocksDbOpenSteps;
import io.rhino.benchmarks.handover.RunProbe;
import io.rhino.benchmarks.handover.StateHolder;
import io.rhino.benchmarks.harness.DiskUsage;
import io.rhino.core.handover.VnodeMove;
import io.rhino.core.routing.RoutingTable;
import io.rhino.core.routing.VnodeLayout;
import io.rhino.flink.api.RhinoKeyedStreamOptions;
import io.rhino.flink.api.RhinoStreams;
import io.rhino.flink.config.RhinoOptions;
import io.rhino.flink.coordination.RhinoHandovers;
import io.rhino.flink.replication.TaskManagerReplication;
import io.rhino.handover.HandoverManager;
import io.rhino.handover.HandoverResult;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.core.execution.RecoveryClaimMode;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.checkpoint.CheckpointException;
import org.apache.flink.runtime.checkpoint.CheckpointFailureReason;
import org.apache.flink.runtime.checkpoint.CompletedCheckpointStats;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobgraph.SavepointRestoreSettings;
import org.apache.flink.state.rocksdb.RocksDBConfigurableOptions;
import org.apache.flink.state.rocksdb.RocksDBOptions;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.util.ExceptionUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Handover time versus the size of the moved state, and Flink's own way to move the same state in
 * the same run.
 *
 * <p>For each size S, a Rhino job (keyed parallelism 3, two active subtasks, one standby) fills S
 * bytes of RocksDB state into the vnodes of subtask 0, takes a checkpoint (so the state is already
 * local, as replication will make it), then moves all of subtask 0's vnodes to the standby subtask
 * while probe records flow; it prints the handover's phases and the latency of probes of non-moving
 * vnodes before, during and after. Then a plain Flink job (RocksDB, keyBy, parallelism 2) fills the
 * same state, is stopped with a native savepoint and restarted from it at parallelism 3; the time
 * until every keyed subtask processes again is Flink's figure.
 */
public final class HandoverBenchmark {

    private static final Logger LOG = LoggerFactory.getLogger(HandoverBenchmark.class);
    private static final String OPERATOR = "state";
    private static final int PARALLELISM = 3;

    /** What one invocation measures. */
    record Settings(
            List<Long> sizes,
            int valueBytes,
            int vnodes,
            int keyGroups,
            int probeKeys,
            int probeRate,
            Duration steady,
            Duration after,
            MemorySize managedMemory,
            boolean freshCheckpoint,
            boolean flink,
            int rocksdbFilesOpen,
            boolean toActive,
            boolean peers,
            int handoverThreads,
            Duration settle,
            int timersPerRecord,
            int timerCacheSize,
            Path out) {}

    private HandoverBenchmark() {}

    public static void main(String[] argv) {
        BenchmarkMain.exit(
                "Handover benchmark",
                () -> {
                    run(argv);
                    return true;
                });
    }

    /** Parses the flags, measures every size, prints the figures and writes the CSV. */
    public static HandoverReport run(String[] argv) throws Exception {
        Args args =
                new Args("HandoverBenchmark")
                        .flag("sizes", "100m,1g", "moved state sizes, comma-separated (e.g. 5g)")
                        .flag("value-bytes", 1024, "bytes of each key's value")
                        .flag("vnodes", 24, "Rhino vnodes (the moved ones are a third)")
                        .flag("key-groups", RhinoOptions.KEY_GROUPS.defaultValue(), "key groups")
                        .flag("probe-keys", 10_000, "keys of the probe records")
                        .flag("probe-rate", 2_000, "probe records per second")
                        .flag("steady-seconds", 5, "probe time before the move")
                        .flag("after-seconds", 5, "probe time after the move")
                        .flag("managed-memory", "512m", "managed memory of each TaskManager")
                        .flag(
                                "fresh-checkpoint",
                                true,
                                "checkpoint right before the move (false: the only checkpoint is"
                                        + " the one after the fill, so the export copies what"
                                        + " compaction rewrote since)")
                        .flag("flink", true, "also measure Flink's stop-with-savepoint rescale")
                        .flag(
                                "rocksdb-files-open",
                                -1,
                                "state.backend.rocksdb.files.open of every RocksDB instance (-1:"
                                        + " unlimited, Flink's default: opening a database opens"
                                        + " all its files)")
                        .flag(
                                "target",
                                "standby",
                                "where the vnodes go: standby (the subtask that owns none) or"
                                        + " active (subtask 1, whose own vnodes keep receiving"
                                        + " probes while it installs)")
                        .flag(
                                "replication",
                                "none",
                                "none, or peers: every TaskManager replicates its subtasks'"
                                        + " checkpoints to the other (factor 2), and the vnodes move"
                                        + " to a subtask on the other TaskManager, which installs"
                                        + " them from its replicas after receiving the delta"
                                        + " since the last checkpoint over the replication"
                                        + " protocol")
                        .flag(
                                "handover-threads",
                                RhinoOptions.HANDOVER_THREADS.defaultValue(),
                                "rhino.handover.threads: vnodes shipped or opened at once")
                        .flag(
                                "settle-seconds",
                                0,
                                "pause between the checkpoint right before the move and the move"
                                        + " (0: move as soon as it completed)")
                        .flag(
                                "timers-per-record",
                                0,
                                "event-time timers each fill record registers (never firing), as"
                                        + " NBQ8's window join registers one per record: moved"
                                        + " vnodes then hold RocksDB timer queues")
                        .flag(
                                "timer-cache-size",
                                0,
                                "state.backend.rocksdb.timer-service.cache-size: timers each key"
                                        + " group's queue caches (0: Flink's default, 128)")
                        .flag("out", "benchmarks-nexmark/target/handover.csv", "CSV file");
        if (!args.parse(argv)) {
            return new HandoverReport(List.of(), List.of());
        }
        String target = args.get("target");
        if (!target.equals("standby") && !target.equals("active")) {
            throw new IllegalArgumentException(
                    "Flag --target needs standby or active, got '" + target + "'.");
        }
        String replication = args.get("replication");
        if (!replication.equals("none") && !replication.equals("peers")) {
            throw new IllegalArgumentException(
                    "Flag --replication needs none or peers, got '" + replication + "'.");
        }
        Settings settings =
                new Settings(
                        Arrays.stream(args.get("sizes").split(","))
                                .map(s -> MemorySize.parse(s.trim()).getBytes())
                                .toList(),
                        args.getInt("value-bytes", 16),
                        args.getInt("vnodes", 3),
                        args.getInt("key-groups", 3),
                        args.getInt("probe-keys", 1),
                        args.getInt("probe-rate", 1),
                        Duration.ofSeconds(args.getInt("steady-seconds", 1)),
                        Duration.ofSeconds(args.getInt("after-seconds", 1)),
                        MemorySize.parse(args.get("managed-memory")),
                        args.getBoolean("fresh-checkpoint"),
                        args.getBoolean("flink"),
                        args.getInt("rocksdb-files-open", -1),
                        target.equals("active"),
                        replication.equals("peers"),
                        args.getInt("handover-threads", 1),
                        Duration.ofSeconds(args.getInt("settle-seconds", 0)),
                        args.getInt("timers-per-record", 0),
                        args.getInt("timer-cache-size", 0),
                        Paths.get(args.get("out")));
        HandoverReport report = measure(settings);
        report.print(System.out);
        report.writeCsv(settings.out());
        LOG.info("Wrote {}", settings.out().toAbsolutePath());
        return report;
    }

    /** Measures every size on one embedded cluster of two TaskManagers with two slots each. */
    public static HandoverReport measure(Settings settings) throws Exception {
        Path workDir = Files.createTempDirectory("rhino-handover-bench-");
        List<RhinoHandover> rhino = new ArrayList<>();
        List<FlinkRescale> flink = new ArrayList<>();
        try (EmbeddedCluster cluster =
                EmbeddedCluster.start(2, 2, workDir.resolve("cluster"), settings.managedMemory())) {
            for (long size : settings.sizes()) {
                Path runDir = Files.createDirectories(workDir.resolve("run-" + size));
                rhino.add(
                        measureRhino(
                                cluster,
                                workDir.resolve("cluster"),
                                settings,
                                size,
                                runDir.resolve("rhino")));
                // room on the disk for Flink's copies of the same state
                EmbeddedCluster.deleteRecursively(runDir.resolve("rhino"));
                if (settings.flink()) {
                    flink.add(measureFlink(cluster, settings, size, runDir.resolve("flink")));
                }
                EmbeddedCluster.deleteRecursively(runDir);
            }
        } finally {
            EmbeddedCluster.deleteRecursively(workDir);
        }
        return new HandoverReport(rhino, flink);
    }

    private static RhinoHandover measureRhino(
            EmbeddedCluster cluster, Path clusterDir, Settings settings, long size, Path dir)
            throws Exception {
        String runId = "rhino-" + UUID.randomUUID();
        VnodeLayout layout = new VnodeLayout(settings.keyGroups(), settings.vnodes());
        RoutingTable initial = RoutingTable.initial(layout, PARALLELISM, PARALLELISM - 1);
        BitSet moving = bits(initial.vnodesOwnedBy(0));
        StreamExecutionEnvironment env =
                environment("io.rhino.flink.state.RhinoStateBackendFactory", dir, settings);
        Configuration handovers = new Configuration();
        handovers.set(RhinoOptions.HANDOVER_THREADS, settings.handoverThreads());
        env.configure(handovers);
        if (settings.peers()) {
            Configuration replication = new Configuration();
            PeerReplicationOptions.factorTwo(
                    replication, dir.resolve("replicas"), "handover-benchmark");
            replication.set(RhinoOptions.REPLICATION_TIMEOUT, Duration.ofMinutes(15));
            env.configure(replication);
        }
        DataStream<LoadEvent> events = source(env, settings, layout, moving, size);
        RhinoStreams.keyBy(
                        events,
                        new EventKey(),
                        RhinoKeyedStreamOptions.builder(OPERATOR)
                                .vnodes(settings.vnodes())
                                .keyGroups(settings.keyGroups())
                                .parallelism(PARALLELISM)
                                .activeParallelism(PARALLELISM - 1)
                                .stateTransfer(new MeasuredStateTransfer(runId))
                                .handoverTimeout(Duration.ofMinutes(10))
                                .build())
                .process(new StateHolder(runId, layout, moving, settings.timersPerRecord()))
                .uid(OPERATOR)
                .sinkTo(new DiscardingSink<>());
        JobID jobId = cluster.submit(EmbeddedCluster.jobGraph(env));
        RunProbe probe = RunProbe.of(runId);
        try {
            cluster.awaitRunning(jobId, Duration.ofMinutes(1));
            HandoverManager manager =
                    RhinoHandovers.awaitReady(jobId, OPERATOR, Duration.ofMinutes(1));
            long fillMillis = awaitFill(probe, size / settings.valueBytes(), "rhino");
            long checkpointMillis = checkpoint(cluster, jobId);
            long stateBytes = DiskUsage.directorySize(dir.resolve("checkpoints"));

            probe.enterPhase("steady");
            Thread.sleep(settings.steady().toMillis());
            if (settings.freshCheckpoint()) {
                // the state a handover finds local: the latest checkpoint, as replication keeps it
                checkpointMillis = checkpoint(cluster, jobId);
            }
            Thread.sleep(settings.settle().toMillis());
            LOG.info(
                    "rhino {}: {} MB of the page cache not yet written back at the move",
                    HandoverReport.bytes(size),
                    PageCache.unwrittenBytes() >> 20);
            RoutingTable table = manager.routingTable();
            Map<Integer, String> taskManagers = RhinoHandovers.operators(jobId).get(OPERATOR);
            int target = target(settings, taskManagers);
            List<VnodeMove> moves =
                    Arrays.stream(table.vnodesOwnedBy(0))
                            .mapToObj(v -> new VnodeMove(v, 0, target))
                            .toList();
            long receivedBefore = replicaBytesReceived(taskManagers.get(target));
            LOG.info(
                    "rhino {}: moving {} vnodes from subtask 0 ({}) to subtask {} ({})",
                    HandoverReport.bytes(size),
                    moves.size(),
                    taskManagers.get(0),
                    target,
                    taskManagers.get(target));
            probe.enterPhase("handover");
            HandoverResult result = manager.handover(moves).get(15, TimeUnit.MINUTES);
            probe.enterPhase("after");
            long networkBytes = replicaBytesReceived(taskManagers.get(target)) - receivedBefore;
            if (!result.isCompleted()) {
                throw new IllegalStateException(
                        "The handover failed in "
                                + result.failedIn().orElse(null)
                                + ": "
                                + result.failureCause().orElse("?"));
            }
            Thread.sleep(settings.after().toMillis());
            // with peers on two TaskManagers the target's chain is the origin's TaskManager
            long originReceivedBefore = replicaBytesReceived(taskManagers.get(0));
            CheckpointCost checkpointAfter = checkpointCost(cluster, jobId);
            if (settings.peers()) {
                LOG.info(
                        "rhino {}: the first checkpoint after the move took {} ms, uploaded {}"
                                + " bytes and replicated {} bytes to the origin's TaskManager",
                        HandoverReport.bytes(size),
                        checkpointAfter.millis(),
                        checkpointAfter.uploadedBytes(),
                        replicaBytesReceived(taskManagers.get(0)) - originReceivedBefore);
            }
            List<RocksDbOpenSteps> targetOpens = targetOpens(clusterDir, target, moves);
            return new RhinoHandover(
                    size,
                    stateBytes,
                    fillMillis,
                    checkpointMillis,
                    moves.size(),
                    result,
                    MeasuredStateTransfer.copiedBytes(runId),
                    MeasuredStateTransfer.exportMillis(runId),
                    settings.peers() ? networkBytes : -1,
                    LatencySummary.of(probe.takeLatencies("steady", RunProbe.Group.STAYING)),
                    LatencySummary.of(probe.takeLatencies("handover", RunProbe.Group.STAYING)),
                    LatencySummary.of(probe.takeLatencies("after", RunProbe.Group.STAYING)),
                    LatencySummary.of(probe.takeLatencies("handover", RunProbe.Group.MOVING)),
                    checkpointAfter,
                    targetOpens.size(),
                    RocksDbOpenSteps.medianOf(targetOpens));
        } finally {
            cancel(cluster, jobId);
            RunProbe.remove(runId);
        }
    }

    /**
     * The steps of each moved vnode's RocksDB open at the target, from the information logs of the
     * target subtask's instances of those vnodes (their working directories are named after the
     * subtask, {@code _<index + 1>_<parallelism>_}, and the vnode).
     */
    private static List<RocksDbOpenSteps> targetOpens(
            Path clusterDir, int target, List<VnodeMove> moves) throws IOException {
        String ofTarget = "__" + (target + 1) + "_" + PARALLELISM + "__vnode_";
        Set<String> instanceNames =
                moves.stream()
                        .map(move -> ofTarget + move.vnode() + "_uuid_")
                        .collect(Collectors.toSet());
        List<RocksDbOpenSteps> opens = new ArrayList<>();
        try (Stream<Path> files = Files.walk(clusterDir)) {
            for (Path log : files.filter(f -> f.getFileName().toString().equals("LOG")).toList()) {
                String instance = log.getParent().getParent().getFileName().toString();
                if (instanceNames.stream().anyMatch(instance::contains)) {
                    RocksDbOpenSteps.lastOpenIn(
                                    Files.readAllLines(log, StandardCharsets.ISO_8859_1))
                            .ifPresent(opens::add);
                }
            }
        }
        return opens;
    }

    /**
     * The subtask the vnodes move to: the standby, or subtask 1 with {@code --target active}; with
     * replication, the first of these on another TaskManager than subtask 0.
     */
    private static int target(Settings settings, Map<Integer, String> taskManagers) {
        List<Integer> candidates =
                settings.toActive() ? List.of(1, PARALLELISM - 1) : List.of(PARALLELISM - 1, 1);
        if (!settings.peers()) {
            return candidates.get(0);
        }
        return candidates.stream()
                .filter(subtask -> !taskManagers.get(subtask).equals(taskManagers.get(0)))
                .findFirst()
                .orElseThrow(
                        () ->
                                new IllegalStateException(
                                        "Every keyed subtask runs on subtask 0's TaskManager: "
                                                + taskManagers));
    }

    /** Bytes the replication service of {@code taskManager} received so far (0 without one). */
    private static long replicaBytesReceived(String taskManager) {
        return TaskManagerReplication.serviceOf(taskManager)
                .map(service -> service.stats().bytesReceived())
                .orElse(0L);
    }

    private static FlinkRescale measureFlink(
            EmbeddedCluster cluster, Settings settings, long size, Path dir) throws Exception {
        String runId = "flink-" + UUID.randomUUID();
        VnodeLayout layout = new VnodeLayout(settings.keyGroups(), settings.vnodes());
        BitSet moving =
                bits(RoutingTable.initial(layout, PARALLELISM, PARALLELISM - 1).vnodesOwnedBy(0));
        JobGraph before = plainJob(settings, layout, moving, size, dir, runId, PARALLELISM - 1);
        JobID jobId = cluster.submit(before);
        RunProbe probe = RunProbe.of(runId);
        String savepoint;
        long stopStart;
        long savepointMillis;
        long fillMillis;
        long stateBytes;
        try {
            cluster.awaitRunning(jobId, Duration.ofMinutes(1));
            fillMillis = awaitFill(probe, size / settings.valueBytes(), "flink");
            checkpoint(cluster, jobId);
            stateBytes = DiskUsage.directorySize(dir.resolve("checkpoints"));
            Thread.sleep(settings.steady().toMillis());
            stopStart = System.currentTimeMillis();
            savepoint =
                    cluster.miniCluster()
                            .stopWithSavepoint(
                                    jobId,
                                    dir.resolve("savepoints").toUri().toString(),
                                    false,
                                    SavepointFormatType.NATIVE)
                            .get(15, TimeUnit.MINUTES);
            savepointMillis = System.currentTimeMillis() - stopStart;
        } catch (Exception e) {
            cancel(cluster, jobId);
            throw e;
        } finally {
            RunProbe.remove(runId);
        }

        String restoredRunId = runId + "-restored";
        JobGraph after = plainJob(settings, layout, moving, size, dir, restoredRunId, PARALLELISM);
        after.setSavepointRestoreSettings(
                SavepointRestoreSettings.forPath(savepoint, false, RecoveryClaimMode.NO_CLAIM));
        long submitted = System.currentTimeMillis();
        JobID restored = cluster.submit(after);
        try {
            Map<Integer, Long> firstProbes = awaitAllProcessing(restoredRunId, PARALLELISM);
            long resumed = firstProbes.values().stream().mapToLong(Long::longValue).max().orElse(0);
            return new FlinkRescale(
                    size,
                    stateBytes,
                    fillMillis,
                    savepointMillis,
                    resumed - submitted,
                    resumed - stopStart);
        } finally {
            cancel(cluster, restored);
            RunProbe.remove(restoredRunId);
        }
    }

    private static JobGraph plainJob(
            Settings settings,
            VnodeLayout layout,
            BitSet moving,
            long size,
            Path dir,
            String runId,
            int parallelism) {
        StreamExecutionEnvironment env = environment("rocksdb", dir, settings);
        SingleOutputStreamOperator<Void> state =
                source(env, settings, layout, moving, size)
                        .keyBy(new EventKey())
                        .process(new StateHolder(runId, layout, moving, settings.timersPerRecord()))
                        .uid(OPERATOR)
                        .name(OPERATOR)
                        .setParallelism(parallelism)
                        .setMaxParallelism(settings.keyGroups());
        state.sinkTo(new DiscardingSink<>()).setParallelism(parallelism);
        return EmbeddedCluster.jobGraph(env);
    }

    private static StreamExecutionEnvironment environment(
            String backend, Path dir, Settings settings) {
        Configuration config = new Configuration();
        config.set(RocksDBConfigurableOptions.MAX_OPEN_FILES, settings.rocksdbFilesOpen());
        if (settings.timerCacheSize() > 0) {
            config.set(
                    RocksDBOptions.ROCKSDB_TIMER_SERVICE_FACTORY_CACHE_SIZE,
                    settings.timerCacheSize());
        }
        config.set(StateBackendOptions.STATE_BACKEND, backend);
        config.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, true);
        config.set(
                CheckpointingOptions.CHECKPOINTS_DIRECTORY,
                dir.resolve("checkpoints").toUri().toString());
        // checkpoints are triggered by the benchmark; the interval only enables them
        config.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofHours(1));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        env.setParallelism(PARALLELISM);
        return env;
    }

    private static DataStream<LoadEvent> source(
            StreamExecutionEnvironment env,
            Settings settings,
            VnodeLayout layout,
            BitSet moving,
            long size) {
        LoadGenerator generator =
                new LoadGenerator(
                        size / settings.valueBytes(),
                        settings.valueBytes(),
                        layout,
                        moving,
                        settings.probeKeys(),
                        settings.probeRate());
        return env.fromSource(
                        new DataGeneratorSource<>(
                                generator, Long.MAX_VALUE, TypeInformation.of(LoadEvent.class)),
                        WatermarkStrategy.noWatermarks(),
                        "load")
                .uid("load")
                .setParallelism(1);
    }

    /** Waits until every fill record was processed, logging progress; returns the time it took. */
    private static long awaitFill(RunProbe probe, long records, String sut)
            throws InterruptedException {
        long start = System.currentTimeMillis();
        long lastLog = start;
        while (probe.filledRecords() < records) {
            Thread.sleep(50);
            long now = System.currentTimeMillis();
            if (now - lastLog >= 5_000) {
                lastLog = now;
                long bytes = probe.filledBytes();
                LOG.info(
                        "{}: filled {} of {} ({} /s)",
                        sut,
                        HandoverReport.bytes(bytes),
                        HandoverReport.bytes(
                                records * (bytes / Math.max(1, probe.filledRecords()))),
                        HandoverReport.bytes(bytes * 1000 / Math.max(1, now - start)));
            }
        }
        return System.currentTimeMillis() - start;
    }

    /**
     * Takes a checkpoint and returns how long it took. Retries while some task is still starting
     * (Flink declines checkpoints until every task runs; gates report in before that).
     */
    private static long checkpoint(EmbeddedCluster cluster, JobID jobId) throws Exception {
        long start = System.currentTimeMillis();
        long deadline = start + TimeUnit.MINUTES.toMillis(1);
        while (true) {
            try {
                cluster.miniCluster().triggerCheckpoint(jobId).get(15, TimeUnit.MINUTES);
                return System.currentTimeMillis() - start;
            } catch (ExecutionException e) {
                boolean starting =
                        ExceptionUtils.findThrowable(e, CheckpointException.class)
                                .map(
                                        c ->
                                                c.getCheckpointFailureReason()
                                                        == CheckpointFailureReason
                                                                .NOT_ALL_REQUIRED_TASKS_RUNNING)
                                .orElse(false);
                if (!starting || System.currentTimeMillis() > deadline) {
                    throw e;
                }
                Thread.sleep(100);
                start = System.currentTimeMillis();
            }
        }
    }

    /** Takes a checkpoint; how long it took and what it uploaded, from Flink's statistics. */
    private static CheckpointCost checkpointCost(EmbeddedCluster cluster, JobID jobId)
            throws Exception {
        long millis = checkpoint(cluster, jobId);
        long uploaded =
                cluster.latestCompletedCheckpoint(jobId)
                        .map(CompletedCheckpointStats::getCheckpointedSize)
                        .orElse(-1L);
        return new CheckpointCost(millis, uploaded);
    }

    private static Map<Integer, Long> awaitAllProcessing(String runId, int subtasks)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(15);
        RunProbe probe = RunProbe.of(runId);
        while (probe.firstProbeMillisBySubtask().size() < subtasks) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        "The restored job did not process on every subtask within 15 minutes");
            }
            Thread.sleep(5);
        }
        return probe.firstProbeMillisBySubtask();
    }

    private static void cancel(EmbeddedCluster cluster, JobID jobId) {
        try {
            cluster.miniCluster().cancelJob(jobId).get(1, TimeUnit.MINUTES);
            cluster.awaitResult(jobId, Duration.ofMinutes(1));
        } catch (Exception e) {
            LOG.debug("Cancelling {}: {}", jobId, e.toString());
        }
    }

    private static BitSet bits(int[] values) {
        BitSet bits = new BitSet();
        Arrays.stream(values).forEach(bits::set);
        return bits;
    }

    /** The key of a load event. */
    private static final class EventKey implements KeySelector<LoadEvent, Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public Long getKey(LoadEvent event) {
            return event.key;
        }
    }
}
