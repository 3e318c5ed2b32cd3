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

package io.rhino.benchmarks.studies;

import io.rhino.benchmarks.cli.Args;
import io.rhino.benchmarks.cli.BenchmarkMain;
import io.rhino.benchmarks.cluster.EmbeddedCluster;
import io.rhino.benchmarks.cluster.PeerReplicationOptions;
import io.rhino.flink.api.RhinoKeyedStreamOptions;
import io.rhino.flink.api.RhinoStreams;
import io.rhino.flink.config.RhinoOptions;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.configuration.WebOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.runtime.checkpoint.AbstractCheckpointStats;
import org.apache.flink.runtime.checkpoint.CheckpointStatsStatus;
import org.apache.flink.runtime.checkpoint.CompletedCheckpointStats;
import org.apache.flink.runtime.checkpoint.TaskStateStats;
import org.apache.flink.runtime.executiongraph.AccessExecutionGraph;
import org.apache.flink.runtime.executiongraph.AccessExecutionJobVertex;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.util.Collector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How long checkpoints stall the task threads (issue 12, goal 4): Flink's synchronous checkpoint
 * phase of a keyed RocksDB operator, Rhino (many vnode instances per subtask) against plain Flink
 * (one instance per subtask), with the same state; {@code rhino-replicated} replicates every
 * checkpoint to a second TaskManager. Each system fills {@code --state-gb} of incompressible values
 * at full speed, with a checkpoint every {@code --fill-checkpoint-seconds} during the fill, then
 * takes {@code --rest-checkpoints} checkpoints at rest under a trickle of writes. Every
 * checkpoint's slowest subtask synchronous duration (what Flink reports as {@code sync_duration})
 * and end-to-end duration come from Flink's checkpoint statistics; the table is printed and written
 * as CSV. {@code --local-backup true} turns task-local recovery on for every system.
 */
public final class CheckpointSyncBenchmark {

    private static final Logger LOG = LoggerFactory.getLogger(CheckpointSyncBenchmark.class);
    private static final String OPERATOR = "state";
    private static final String REPLICATED = "rhino-replicated";
    // Rhino with every vnode snapshotted at every checkpoint, idle or not (also
    // rhino-replicated-no-reuse)
    private static final String NO_REUSE = "-no-reuse";
    private static final Map<String, AtomicLong> FILLED = new ConcurrentHashMap<>();

    /** One checkpoint of one system. */
    record Row(
            String sut,
            String phase,
            long checkpointId,
            long filledBytes,
            long syncMaxMs,
            long syncMeanMs,
            long endToEndMs,
            long checkpointedBytes) {}

    private CheckpointSyncBenchmark() {}

    public static void main(String[] argv) {
        BenchmarkMain.exit(
                "Checkpoint sync-phase benchmark",
                () -> {
                    run(argv);
                    return true;
                });
    }

    static List<Row> run(String[] argv) throws Exception {
        Args args =
                new Args("CheckpointSyncBenchmark")
                        .flag("state-gb", 3.0, "state to fill per system, GB of values")
                        .flag("value-bytes", 1024, "bytes of each key's value")
                        .flag("parallelism", 2, "subtasks of the keyed operator")
                        .flag("vnodes", 16, "Rhino vnodes in all")
                        .flag(
                                "fill-checkpoint-seconds",
                                10,
                                "pause between checkpoints in the fill")
                        .flag("rest-checkpoints", 3, "checkpoints after the fill")
                        .flag(
                                "trickle-keys",
                                0,
                                "keys the trickle of writes goes to (0: every key); a few keys"
                                        + " leave most vnodes idle")
                        .flag("managed-memory", "512m", "managed memory of the TaskManager")
                        .flag(
                                "local-backup",
                                false,
                                "task-local recovery on: every snapshot also keeps a local copy")
                        .flag(
                                "suts",
                                "rhino,flink",
                                "systems, comma-separated: rhino, rhino-replicated (factor 2 to a"
                                        + " second TaskManager), rhino-no-reuse and"
                                        + " rhino-replicated-no-reuse (idle vnodes snapshotted"
                                        + " too), flink")
                        .flag("dir", System.getProperty("java.io.tmpdir"), "working directory")
                        .flag("out", "benchmarks-nexmark/target/checkpoint-sync.csv", "CSV file");
        if (!args.parse(argv)) {
            return List.of();
        }
        long stateBytes = (long) (args.getPositiveDouble("state-gb") * (1L << 30));
        int valueBytes = args.getInt("value-bytes", 1);
        int parallelism = args.getInt("parallelism", 1);
        Path work = Files.createTempDirectory(Paths.get(args.get("dir")), "rhino-sync-bench-");
        List<Row> rows = new ArrayList<>();
        try {
            for (String sut : args.get("suts").split(",")) {
                Path dir = work.resolve(sut.trim());
                boolean replicated = sut.trim().startsWith(REPLICATED);
                // replicated: a second TaskManager, and one subtask on each to replicate to
                // the other (per slot the same managed memory as without)
                Configuration clusterOptions = new Configuration();
                boolean localBackup = args.getBoolean("local-backup");
                clusterOptions.set(CheckpointingOptions.LOCAL_BACKUP_ENABLED, localBackup);
                if (replicated) {
                    clusterOptions.set(
                            TaskManagerOptions.TASK_MANAGER_LOAD_BALANCE_MODE,
                            TaskManagerOptions.TaskManagerLoadBalanceMode.SLOTS);
                }
                try (EmbeddedCluster cluster =
                        EmbeddedCluster.start(
                                replicated ? 2 : 1,
                                parallelism + 1,
                                dir,
                                MemorySize.parse(args.get("managed-memory")),
                                clusterOptions)) {
                    rows.addAll(
                            measure(
                                    cluster,
                                    sut.trim(),
                                    dir,
                                    stateBytes,
                                    valueBytes,
                                    parallelism,
                                    args.getInt("vnodes", 1),
                                    Duration.ofSeconds(args.getInt("fill-checkpoint-seconds", 0)),
                                    args.getInt("rest-checkpoints", 0),
                                    args.getLong("trickle-keys"),
                                    localBackup));
                }
                EmbeddedCluster.deleteRecursively(dir);
            }
        } finally {
            EmbeddedCluster.deleteRecursively(work);
        }
        print(rows, System.out);
        writeCsv(rows, Paths.get(args.get("out")));
        return rows;
    }

    private static List<Row> measure(
            EmbeddedCluster cluster,
            String sut,
            Path dir,
            long stateBytes,
            int valueBytes,
            int parallelism,
            int vnodes,
            Duration fillPause,
            int restCheckpoints,
            long trickleKeys,
            boolean localBackup)
            throws Exception {
        String runId = sut + "-" + UUID.randomUUID();
        long keys = Math.max(1, stateBytes / valueBytes);
        long trickled = trickleKeys > 0 ? Math.min(trickleKeys, keys) : keys;
        Configuration config = new Configuration();
        config.set(
                StateBackendOptions.STATE_BACKEND,
                sut.equals("flink") ? "rocksdb" : "io.rhino.flink.state.RhinoStateBackendFactory");
        config.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, true);
        config.set(
                CheckpointingOptions.CHECKPOINTS_DIRECTORY, dir.resolve("cp").toUri().toString());
        config.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofHours(1));
        config.set(WebOptions.CHECKPOINTS_HISTORY_SIZE, 1000);
        config.set(RhinoOptions.STATE_REUSE_IDLE_VNODES, !sut.endsWith(NO_REUSE));
        config.set(CheckpointingOptions.LOCAL_BACKUP_ENABLED, localBackup);
        if (sut.startsWith(REPLICATED)) {
            PeerReplicationOptions.factorTwo(
                    config, dir.resolve("replicas"), "checkpoint-sync-benchmark");
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        env.setParallelism(parallelism);
        DataStream<Tuple2<Long, byte[]>> fill =
                env.fromSource(
                                new DataGeneratorSource<>(
                                        index -> Tuple2.of(index, payload(valueBytes)),
                                        keys,
                                        Types.TUPLE(Types.LONG, TypeInformation.of(byte[].class))),
                                WatermarkStrategy.noWatermarks(),
                                "fill")
                        .setParallelism(1);
        DataStream<Tuple2<Long, byte[]>> trickle =
                env.fromSource(
                                new DataGeneratorSource<>(
                                        index -> Tuple2.of(index % trickled, payload(valueBytes)),
                                        Long.MAX_VALUE,
                                        RateLimiterStrategy.perSecond(200),
                                        Types.TUPLE(Types.LONG, TypeInformation.of(byte[].class))),
                                WatermarkStrategy.noWatermarks(),
                                "trickle")
                        .setParallelism(1);
        DataStream<Tuple2<Long, byte[]>> events = fill.union(trickle);
        StateWriter writer = new StateWriter(runId, valueBytes);
        if (sut.equals("flink")) {
            events.keyBy(new ByKey()).process(writer).name(OPERATOR).sinkTo(new DiscardingSink<>());
        } else {
            RhinoStreams.keyBy(
                            events,
                            new ByKey(),
                            RhinoKeyedStreamOptions.builder(OPERATOR).vnodes(vnodes).build())
                    .process(writer)
                    .name(OPERATOR)
                    .sinkTo(new DiscardingSink<>());
        }
        JobID jobId = cluster.submit(EmbeddedCluster.jobGraph(env));
        AtomicLong filled = FILLED.computeIfAbsent(runId, id -> new AtomicLong());
        List<Long> fillCheckpoints = new ArrayList<>();
        List<Long> restCheckpointIds = new ArrayList<>();
        try {
            cluster.awaitRunning(jobId, Duration.ofMinutes(1));
            long start = System.nanoTime();
            while (filled.get() < stateBytes) {
                Thread.sleep(fillPause.toMillis());
                fillCheckpoints.add(checkpoint(cluster, jobId));
                LOG.info(
                        "{}: {} MB of {} MB filled after {} s",
                        sut,
                        filled.get() >> 20,
                        stateBytes >> 20,
                        (System.nanoTime() - start) / 1_000_000_000);
            }
            for (int i = 0; i < restCheckpoints; i++) {
                Thread.sleep(2_000);
                restCheckpointIds.add(checkpoint(cluster, jobId));
            }
            return rows(cluster, jobId, sut, fillCheckpoints, restCheckpointIds, filled.get());
        } finally {
            cluster.miniCluster().cancelJob(jobId).get(1, TimeUnit.MINUTES);
            FILLED.remove(runId);
        }
    }

    private static byte[] payload(int valueBytes) {
        byte[] payload = new byte[valueBytes];
        ThreadLocalRandom.current().nextBytes(payload);
        return payload;
    }

    /** Takes a checkpoint and waits for it; its id. */
    private static long checkpoint(EmbeddedCluster cluster, JobID jobId) throws Exception {
        cluster.miniCluster().triggerCheckpoint(jobId).get(30, TimeUnit.MINUTES);
        return latestCompleted(cluster, jobId);
    }

    private static long latestCompleted(EmbeddedCluster cluster, JobID jobId) throws Exception {
        return cluster.latestCompletedCheckpoint(jobId)
                .map(CompletedCheckpointStats::getCheckpointId)
                .orElse(-1L);
    }

    private static List<Row> rows(
            EmbeddedCluster cluster,
            JobID jobId,
            String sut,
            List<Long> fill,
            List<Long> rest,
            long filledBytes)
            throws Exception {
        AccessExecutionGraph graph = cluster.miniCluster().getExecutionGraph(jobId).get();
        AccessExecutionJobVertex vertex = null;
        for (AccessExecutionJobVertex v : graph.getAllVertices().values()) {
            if (v.getName().contains(OPERATOR)) {
                vertex = v;
            }
        }
        if (vertex == null) {
            throw new IllegalStateException("No vertex named " + OPERATOR);
        }
        List<Row> rows = new ArrayList<>();
        for (AbstractCheckpointStats stats :
                graph.getCheckpointStatsSnapshot().getHistory().getCheckpoints()) {
            if (stats.getStatus() != CheckpointStatsStatus.COMPLETED) {
                continue;
            }
            long id = stats.getCheckpointId();
            String phase = fill.contains(id) ? "fill" : rest.contains(id) ? "rest" : null;
            if (phase == null) {
                continue;
            }
            TaskStateStats task = stats.getTaskStateStats(vertex.getJobVertexId());
            rows.add(
                    new Row(
                            sut,
                            phase,
                            id,
                            filledBytes,
                            task.getSummaryStats().getSyncCheckpointDurationStats().getMaximum(),
                            task.getSummaryStats().getSyncCheckpointDurationStats().getAverage(),
                            stats.getEndToEndDuration(),
                            task.getCheckpointedSize()));
        }
        rows.sort(java.util.Comparator.comparingLong(Row::checkpointId));
        return rows;
    }

    static void print(List<Row> rows, PrintStream out) {
        out.println("== Checkpoint synchronous phase (slowest subtask of the keyed operator) ==");
        out.printf(
                Locale.ROOT,
                "%-14s %-5s %10s %12s %12s %12s %14s%n",
                "sut",
                "phase",
                "checkpoint",
                "sync max ms",
                "sync mean ms",
                "e2e ms",
                "checkpointed B");
        for (Row row : rows) {
            out.printf(
                    Locale.ROOT,
                    "%-14s %-5s %10d %12d %12d %12d %14d%n",
                    row.sut(),
                    row.phase(),
                    row.checkpointId(),
                    row.syncMaxMs(),
                    row.syncMeanMs(),
                    row.endToEndMs(),
                    row.checkpointedBytes());
        }
        for (String sut : rows.stream().map(Row::sut).distinct().toList()) {
            for (String phase : List.of("fill", "rest")) {
                List<Row> of =
                        rows.stream()
                                .filter(r -> r.sut().equals(sut) && r.phase().equals(phase))
                                .toList();
                if (!of.isEmpty()) {
                    out.printf(
                            Locale.ROOT,
                            "%s %s: sync max over checkpoints %d ms, mean of maxima %d ms,"
                                    + " mean checkpointed %d KB (%d checkpoints)%n",
                            sut,
                            phase,
                            of.stream().mapToLong(Row::syncMaxMs).max().orElse(0),
                            (long) of.stream().mapToLong(Row::syncMaxMs).average().orElse(0),
                            (long) of.stream().mapToLong(Row::checkpointedBytes).average().orElse(0)
                                    >> 10,
                            of.size());
                }
            }
        }
    }

    static void writeCsv(List<Row> rows, Path file) throws IOException {
        if (file.getParent() != null) {
            Files.createDirectories(file.getParent());
        }
        List<String> lines = new ArrayList<>();
        lines.add(
                "sut,phase,checkpoint,filled_bytes,sync_max_ms,sync_mean_ms,end_to_end_ms,"
                        + "checkpointed_bytes");
        for (Row row : rows) {
            lines.add(
                    String.join(
                            ",",
                            row.sut(),
                            row.phase(),
                            String.valueOf(row.checkpointId()),
                            String.valueOf(row.filledBytes()),
                            String.valueOf(row.syncMaxMs()),
                            String.valueOf(row.syncMeanMs()),
                            String.valueOf(row.endToEndMs()),
                            String.valueOf(row.checkpointedBytes())));
        }
        Files.write(file, lines);
    }

    private static final class ByKey implements KeySelector<Tuple2<Long, byte[]>, Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public Long getKey(Tuple2<Long, byte[]> event) {
            return event.f0;
        }
    }

    /** Writes every value into keyed state and counts the bytes (same JVM: a static counter). */
    private static final class StateWriter
            extends KeyedProcessFunction<Long, Tuple2<Long, byte[]>, Void> {
        private static final long serialVersionUID = 1L;
        private final String runId;
        private final int valueBytes;
        private transient ValueState<byte[]> value;
        private transient AtomicLong filled;

        StateWriter(String runId, int valueBytes) {
            this.runId = runId;
            this.valueBytes = valueBytes;
        }

        @Override
        public void open(OpenContext openContext) {
            value = getRuntimeContext().getState(new ValueStateDescriptor<>("value", byte[].class));
            filled = FILLED.computeIfAbsent(runId, id -> new AtomicLong());
        }

        @Override
        public void processElement(Tuple2<Long, byte[]> event, Context ctx, Collector<Void> out)
                throws Exception {
            value.update(event.f1);
            filled.addAndGet(valueBytes);
        }
    }
}
