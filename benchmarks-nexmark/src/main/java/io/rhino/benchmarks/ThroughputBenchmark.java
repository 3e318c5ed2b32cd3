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

import io.rhino.benchmarks.SlidingWindowJob.Mode;
import io.rhino.benchmarks.cli.Args;
import io.rhino.benchmarks.cli.BenchmarkMain;
import io.rhino.benchmarks.cluster.EmbeddedCluster;
import io.rhino.benchmarks.cluster.PeerReplicationOptions;
import io.rhino.benchmarks.harness.RatioReport;
import io.rhino.benchmarks.harness.WindowProfile;
import io.rhino.flink.config.RhinoOptions;
import io.rhino.flink.state.RhinoStateBackendFactory;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.runtime.executiongraph.AccessExecutionGraph;
import org.apache.flink.runtime.jobmaster.JobResult;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.util.TimeUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Throughput of the same keyed sliding-window job ({@link SlidingWindowJob}) on a Rhino keyed
 * stream with the Rhino state backend and on Flink's own {@code keyBy} with Flink's RocksDB
 * backend: same input, same parallelism, same number of key groups, on the same embedded cluster,
 * in runs whose order rotates, after a warm-up run of each. {@code --systems} adds Rhino with
 * factor-2 peer replication, whose every checkpoint is copied to the other TaskManager. A run's
 * time is from the job switching to RUNNING to it FINISHING, as Flink recorded it; its throughput
 * is the records over that time.
 */
public final class ThroughputBenchmark {

    private static final Logger LOG = LoggerFactory.getLogger(ThroughputBenchmark.class);

    /** A system under test. */
    public enum Sut {
        RHINO("rhino", Mode.RHINO, RhinoStateBackendFactory.class.getName(), false),
        /** Rhino with every vnode checkpoint copied to the other TaskManager (factor 2). */
        RHINO_REPLICATED(
                "rhino-replicated", Mode.RHINO, RhinoStateBackendFactory.class.getName(), true),
        PLAIN("flink-rocksdb", Mode.PLAIN, "rocksdb", false);

        final String label;
        final Mode mode;
        final String stateBackend;
        final boolean replicated;

        Sut(String label, Mode mode, String stateBackend, boolean replicated) {
            this.label = label;
            this.mode = mode;
            this.stateBackend = stateBackend;
            this.replicated = replicated;
        }

        public String label() {
            return label;
        }

        /** The system of {@code label}, with the labels there are when none matches. */
        static Sut ofLabel(String label) {
            for (Sut sut : values()) {
                if (sut.label.equals(label.trim())) {
                    return sut;
                }
            }
            throw new IllegalArgumentException(
                    "Flag --systems takes a comma-separated list of "
                            + java.util.Arrays.stream(values()).map(Sut::label).toList()
                            + ", not '"
                            + label
                            + "'.");
        }
    }

    /** What to measure. */
    public record Settings(
            long records,
            int runs,
            long warmupRecords,
            int parallelism,
            int vnodes,
            int keyGroups,
            int keys,
            long eventTimeRate,
            MemorySize managedMemory,
            Duration checkpointInterval,
            List<Sut> systems,
            Path out) {

        public Settings {
            systems = List.copyOf(systems);
            if (!systems.contains(Sut.PLAIN)) {
                throw new IllegalArgumentException(
                        "Flag --systems needs flink-rocksdb: every ratio is against it.");
            }
            if (systems.contains(Sut.RHINO_REPLICATED) && checkpointInterval.isZero()) {
                throw new IllegalArgumentException(
                        "rhino-replicated copies checkpoints: give --checkpoint-interval, e.g. 5s.");
            }
        }

        /** Whether the jobs checkpoint (incrementally) while they run. */
        boolean checkpoints() {
            return !checkpointInterval.isZero();
        }
    }

    /** One measured run. */
    public record RunResult(
            Sut sut,
            int run,
            long records,
            double seconds,
            long completedCheckpoints,
            double cpuSeconds,
            long replicatedFiles) {
        public double recordsPerSecond() {
            return records / seconds;
        }

        /** The whole process's CPU per 1,000 records, from submission to the job's end. */
        public double cpuMillisPerThousandRecords() {
            return cpuSeconds * 1e6 / records;
        }
    }

    private ThroughputBenchmark() {}

    public static void main(String[] argv) {
        BenchmarkMain.exit(
                "Throughput benchmark",
                () -> {
                    run(argv);
                    return true;
                });
    }

    /**
     * Parses the flags, measures, prints the figures and writes the CSV.
     *
     * @return the measured runs (empty when only the usage was printed)
     */
    public static List<RunResult> run(String[] argv) throws Exception {
        Args args =
                new Args("ThroughputBenchmark")
                        .flag("records", 3_000_000, "records per run")
                        .flag("runs", 3, "measured runs per system")
                        .flag("warmup-records", 500_000, "records of the warm-up run, 0 for none")
                        .flag("parallelism", 2, "parallelism of the keyed window (at most 4)")
                        .flag(
                                "vnodes",
                                0,
                                "Rhino vnodes, 0 for Rhino's default ("
                                        + RhinoOptions.DEFAULT_VNODES_PER_SUBTASK
                                        + " per subtask)")
                        .flag(
                                "key-groups",
                                RhinoOptions.KEY_GROUPS.defaultValue(),
                                "key groups (max parallelism) of both keyed windows")
                        .flag("keys", 10_000, "distinct keys")
                        .flag(
                                "event-rate",
                                50_000,
                                "events per second of event time (sets how many windows fire)")
                        .flag(
                                "managed-memory",
                                "256m",
                                "managed memory (RocksDB's memory) of each of the 2 TaskManagers")
                        .flag(
                                "checkpoint-interval",
                                "0",
                                "incremental checkpoints while the jobs run, e.g. 5s; 0 for none")
                        .flag(
                                "systems",
                                "rhino,flink-rocksdb",
                                "systems to compare, of rhino, rhino-replicated (factor-2 peer"
                                        + " replication, needs checkpoints) and flink-rocksdb")
                        .flag("out", "benchmarks-nexmark/target/throughput.csv", "CSV file");
        if (!args.parse(argv)) {
            return List.of();
        }
        int parallelism = args.getInt("parallelism", 1);
        if (parallelism > 4) {
            throw new IllegalArgumentException(
                    "--parallelism must be at most 4 (the cluster has 4 slots).");
        }
        Settings settings =
                new Settings(
                        args.getInt("records", 1),
                        args.getInt("runs", 1),
                        args.getLong("warmup-records"),
                        parallelism,
                        args.getInt("vnodes", 0),
                        args.getInt("key-groups", 1),
                        args.getInt("keys", 1),
                        args.getInt("event-rate", 1),
                        managedMemory(args.get("managed-memory")),
                        checkpointInterval(args.get("checkpoint-interval")),
                        systems(args.get("systems")),
                        Paths.get(args.get("out")));
        List<RunResult> results = measure(settings);
        report(results);
        writeCsv(results, settings.out());
        LOG.info("Wrote {}", settings.out().toAbsolutePath());
        return results;
    }

    private static List<Sut> systems(String value) {
        return java.util.Arrays.stream(value.split(","))
                .filter(label -> !label.isBlank())
                .map(Sut::ofLabel)
                .distinct()
                .toList();
    }

    private static Duration checkpointInterval(String value) {
        try {
            Duration interval = TimeUtils.parseDuration(value);
            if (interval.isNegative()) {
                throw new IllegalArgumentException("negative");
            }
            return interval;
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "Flag --checkpoint-interval needs a duration such as 5s or 30s (0 for no"
                            + " checkpoints), got '"
                            + value
                            + "'.");
        }
    }

    private static MemorySize managedMemory(String value) {
        try {
            return MemorySize.parse(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "Flag --managed-memory needs a size such as 256m or 1g, got '" + value + "'.");
        }
    }

    /** Runs the warm-up and the measured runs on one embedded cluster. */
    public static List<RunResult> measure(Settings settings) throws Exception {
        LOG.info(
                "Throughput: {} records per run, {} runs per system, keyed window parallelism {},"
                        + " {} keys, {} key groups, {} Rhino vnodes, {} managed memory per"
                        + " TaskManager, checkpoints {}",
                settings.records(),
                settings.runs(),
                settings.parallelism(),
                settings.keys(),
                settings.keyGroups(),
                settings.vnodes(),
                settings.managedMemory().getMebiBytes() + " MB",
                settings.checkpoints()
                        ? "every " + TimeUtils.formatWithHighestUnit(settings.checkpointInterval())
                        : "none");
        LOG.info("Systems: {}", settings.systems().stream().map(Sut::label).toList());
        Path workDir = Files.createTempDirectory("rhino-throughput-");
        List<RunResult> results = new ArrayList<>();
        Configuration clusterOptions = new Configuration();
        if (settings.systems().contains(Sut.RHINO_REPLICATED)) {
            // a replica goes to another TaskManager than its subtask's: spread the subtasks
            clusterOptions.set(
                    TaskManagerOptions.TASK_MANAGER_LOAD_BALANCE_MODE,
                    TaskManagerOptions.TaskManagerLoadBalanceMode.SLOTS);
            LOG.info(
                    "Slots spread over both TaskManagers, for every system (replication needs a"
                            + " peer)");
        }
        try (EmbeddedCluster cluster =
                EmbeddedCluster.start(2, 2, workDir, settings.managedMemory(), clusterOptions)) {
            if (settings.warmupRecords() > 0) {
                for (Sut sut : settings.systems()) {
                    Timed warmup =
                            runOnce(cluster, sut, settings, settings.warmupRecords(), workDir);
                    LOG.info(
                            "warm-up  {}: {}",
                            String.format("%-13s", sut.label()),
                            describe(settings.warmupRecords(), warmup));
                }
            }
            for (int run = 1; run <= settings.runs(); run++) {
                // Rotate which system goes first, so none always runs on a warmer JVM.
                for (Sut sut : rotated(settings.systems(), run - 1)) {
                    WindowProfile profile = WindowProfile.start(sut.label() + "-run" + run);
                    long cpuBefore = processCpuNanos();
                    Timed timed = runOnce(cluster, sut, settings, settings.records(), workDir);
                    long cpuNanos = processCpuNanos() - cpuBefore;
                    profile.stop();
                    results.add(
                            new RunResult(
                                    sut,
                                    run,
                                    settings.records(),
                                    timed.seconds(),
                                    timed.completedCheckpoints(),
                                    cpuNanos / 1e9,
                                    timed.replicatedFiles()));
                    LOG.info(
                            "run {}    {}: {}",
                            run,
                            String.format("%-13s", sut.label()),
                            describe(settings.records(), timed));
                }
            }
        } finally {
            EmbeddedCluster.deleteRecursively(workDir);
        }
        return results;
    }

    /** {@code systems} starting at its {@code by}-th, wrapping around. */
    static List<Sut> rotated(List<Sut> systems, int by) {
        List<Sut> order = new ArrayList<>(systems);
        java.util.Collections.rotate(order, -(by % order.size()));
        return order;
    }

    /** The CPU time this JVM (the embedded cluster and the job) used so far. */
    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean)
                        java.lang.management.ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    /**
     * A run's seconds from RUNNING to FINISHED, the checkpoints it completed meanwhile, and the
     * most checkpoint files its TaskManagers' replica stores held for it at once.
     */
    private record Timed(double seconds, long completedCheckpoints, long replicatedFiles) {}

    /** Runs the job to its end. */
    private static Timed runOnce(
            EmbeddedCluster cluster, Sut sut, Settings settings, long records, Path workDir)
            throws Exception {
        Configuration jobConfig = new Configuration();
        jobConfig.set(StateBackendOptions.STATE_BACKEND, sut.stateBackend);
        Path replicas = workDir.resolve("replicas");
        if (sut.replicated) {
            PeerReplicationOptions.factorTwo(jobConfig, replicas, "throughput-benchmark");
        }
        if (settings.checkpoints()) {
            jobConfig.set(
                    CheckpointingOptions.CHECKPOINTING_INTERVAL, settings.checkpointInterval());
            jobConfig.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, true);
            jobConfig.set(
                    CheckpointingOptions.CHECKPOINTS_DIRECTORY,
                    workDir.resolve("checkpoints").toUri().toString());
        }
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.getExecutionEnvironment(jobConfig);
        SlidingWindowJob.Spec spec =
                new SlidingWindowJob.Spec(
                        sut.mode,
                        records,
                        settings.keys(),
                        settings.eventTimeRate(),
                        0, // no rate limit
                        settings.parallelism(),
                        settings.vnodes(),
                        settings.keyGroups());
        SlidingWindowJob.build(env, spec)
                .sinkTo(new DiscardingSink<>())
                .name("discard")
                .setParallelism(settings.parallelism());
        long submitted = System.nanoTime();
        JobID jobId = cluster.submit(EmbeddedCluster.jobGraph(env));
        // a finished job's replicas go at once: count them while it runs
        ReplicaFileCount replicaFiles =
                sut.replicated ? ReplicaFileCount.start(replicas, jobId) : null;
        JobResult result;
        try {
            result = cluster.awaitResult(jobId, Duration.ofHours(2));
        } finally {
            if (replicaFiles != null) {
                replicaFiles.stop();
            }
        }
        long replicatedFiles = replicaFiles == null ? 0 : replicaFiles.peak();
        double wallSeconds = (System.nanoTime() - submitted) / 1e9;
        // isSuccess and the cluster's job status: JobResult's status accessor differs between
        // Flink 2.2 and 2.3
        if (!result.isSuccess()) {
            throw new IllegalStateException(
                    sut.label()
                            + " job ended as "
                            + cluster.miniCluster().getJobStatus(jobId).get(),
                    result.getSerializedThrowable()
                            .map(
                                    t ->
                                            t.deserializeError(
                                                    ThroughputBenchmark.class.getClassLoader()))
                            .orElse(null));
        }
        AccessExecutionGraph graph =
                cluster.miniCluster().getExecutionGraph(jobId).get(1, TimeUnit.MINUTES);
        long checkpoints =
                graph.getCheckpointStatsSnapshot() == null
                        ? 0
                        : graph.getCheckpointStatsSnapshot()
                                .getCounts()
                                .getNumberOfCompletedCheckpoints();
        long running = graph.getStatusTimestamp(JobStatus.RUNNING);
        long finished = graph.getStatusTimestamp(JobStatus.FINISHED);
        if (running <= 0 || finished < running) {
            LOG.warn("No RUNNING/FINISHED timestamps for job {}; using wall-clock time", jobId);
            return new Timed(wallSeconds, checkpoints, replicatedFiles);
        }
        return new Timed(Math.max(finished - running, 1) / 1000.0, checkpoints, replicatedFiles);
    }

    private static String describe(long records, Timed timed) {
        return String.format(
                        Locale.ROOT,
                        "%,d records in %6.2f s = %,10.0f records/s, %d checkpoints completed",
                        records,
                        timed.seconds(),
                        records / timed.seconds(),
                        timed.completedCheckpoints())
                + (timed.replicatedFiles() > 0
                        ? ", up to " + timed.replicatedFiles() + " replica files held"
                        : "");
    }

    /** Logs the median per system and the ratios of each Rhino system to plain Flink. */
    static void report(List<RunResult> results) {
        List<Sut> measured = results.stream().map(RunResult::sut).distinct().sorted().toList();
        for (Sut sut : measured) {
            LOG.info(
                    "median   {}: {} records/s",
                    String.format("%-16s", sut.label()),
                    String.format(Locale.ROOT, "%,10.0f", median(results, sut)));
        }
        double plain = median(results, Sut.PLAIN);
        for (Sut sut : measured) {
            if (sut == Sut.PLAIN) {
                continue;
            }
            LOG.info(
                    "ratio    {} / flink-rocksdb = {}",
                    sut.label(),
                    String.format(Locale.ROOT, "%.3f", median(results, sut) / plain));
            logPaired(pairedRatio(results, sut, RunResult::recordsPerSecond, "records/s"));
            logPaired(
                    pairedRatio(
                            results,
                            sut,
                            RunResult::cpuMillisPerThousandRecords,
                            "CPU ms per 1000 records"));
        }
    }

    private static void logPaired(RatioReport.Row paired) {
        if (paired.ratios().isEmpty()) {
            return;
        }
        double[] interval = paired.interval();
        LOG.info(
                "paired   {} / flink-rocksdb {} per run {}: mean {} (95% interval {} to {}), {}",
                paired.sut(),
                paired.figure(),
                paired.ratios().stream().map(r -> String.format(Locale.ROOT, "%.3f", r)).toList(),
                String.format(Locale.ROOT, "%.3f", paired.meanStd().mean()),
                String.format(Locale.ROOT, "%.3f", interval[0]),
                String.format(Locale.ROOT, "%.3f", interval[1]),
                paired.verdict());
    }

    /**
     * Rhino's records per second over plain Flink's in each run both measured (the two ran one
     * after the other, on the same JVM and machine state), in run order.
     */
    static RatioReport.Row pairedRatio(List<RunResult> results) {
        return pairedRatio(results, Sut.RHINO, RunResult::recordsPerSecond, "records/s");
    }

    /** As {@link #pairedRatio(List)}, of another figure of {@code sut}'s runs. */
    static RatioReport.Row pairedRatio(
            List<RunResult> results,
            Sut sut,
            ToDoubleFunction<RunResult> figure,
            String figureName) {
        Map<Integer, Double> plain = new TreeMap<>();
        results.stream()
                .filter(r -> r.sut() == Sut.PLAIN)
                .forEach(r -> plain.put(r.run(), figure.applyAsDouble(r)));
        List<Double> ratios = new ArrayList<>();
        results.stream()
                .filter(r -> r.sut() == sut && plain.containsKey(r.run()))
                .sorted(java.util.Comparator.comparingInt(RunResult::run))
                .forEach(r -> ratios.add(figure.applyAsDouble(r) / plain.get(r.run())));
        return new RatioReport.Row("sliding-window", sut.label(), figureName, ratios);
    }

    /** The median records per second of {@code sut}'s runs. */
    public static double median(List<RunResult> results, Sut sut) {
        double[] rates =
                results.stream()
                        .filter(r -> r.sut() == sut)
                        .mapToDouble(RunResult::recordsPerSecond)
                        .sorted()
                        .toArray();
        if (rates.length == 0) {
            return Double.NaN;
        }
        int mid = rates.length / 2;
        return rates.length % 2 == 1 ? rates[mid] : (rates[mid - 1] + rates[mid]) / 2;
    }

    /**
     * Writes {@code sut,run,records,seconds,records_per_second,completed_checkpoints,cpu_seconds,
     * cpu_ms_per_1000_records,replicated_files}, one row per run.
     */
    public static void writeCsv(List<RunResult> results, Path out) throws IOException {
        Path parent = out.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        try (PrintWriter writer =
                new PrintWriter(Files.newBufferedWriter(out, StandardCharsets.UTF_8))) {
            writer.println(
                    "sut,run,records,seconds,records_per_second,completed_checkpoints,cpu_seconds,"
                            + "cpu_ms_per_1000_records,replicated_files");
            for (RunResult result : results) {
                writer.println(
                        String.format(
                                Locale.ROOT,
                                "%s,%d,%d,%.3f,%.1f,%d,%.2f,%.2f,%d",
                                result.sut().label(),
                                result.run(),
                                result.records(),
                                result.seconds(),
                                result.recordsPerSecond(),
                                result.completedCheckpoints(),
                                result.cpuSeconds(),
                                result.cpuMillisPerThousandRecords(),
                                result.replicatedFiles()));
            }
        }
    }
}
