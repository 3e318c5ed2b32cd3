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

package io.rhino.benchmarks.scenarios;

import io.rhino.benchmarks.cli.Args;
import io.rhino.benchmarks.cli.BenchmarkMain;
import io.rhino.benchmarks.harness.Scenario;
import io.rhino.benchmarks.harness.ScenarioRunner;
import io.rhino.benchmarks.harness.SystemUnderTest;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.util.TimeUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the paper's evaluation scenarios on NEXMark (one command per figure or table) and writes
 * CSVs, latency and resource plots and a summary table per scenario under {@code --out}. Exits with
 * 1 when a run failed, 2 on bad flags.
 */
public final class NexmarkScenarios {

    private static final Logger LOG = LoggerFactory.getLogger(NexmarkScenarios.class);

    /** From this state size on, the fill's settings matter (see {@link #largeStateAdvice}). */
    private static final MemorySize LARGE_STATE = MemorySize.parse("4g");

    /** The flags' values advised for large state, as they are typed. */
    private static final String LARGE_STATE_CHECKPOINT_INTERVAL = "60s";

    private static final String LARGE_STATE_MANAGED_MEMORY = "2g";

    private NexmarkScenarios() {}

    /** The flags; public for checks of the command lines that run it (docker/compose.yaml). */
    public static Args declare() {
        return new Args("NexmarkScenarios")
                .flag("scenario", "load-balancing", "comma-separated, of " + Scenarios.NAMES)
                .flag("query", "nbq8", "nbq5, nbq8 or nbqx")
                .flag(
                        "suts",
                        "rhino,flink",
                        "comma-separated: rhino, rhino-local, rhino-replicated,"
                                + " rhino-replicated-local, rhino-auto-balance, flink, flink-local")
                .flag(
                        "rate",
                        "",
                        "per producer thread: max, fixed:<MB/s>, varying, varying:<max MB/s>;"
                                + " empty: fixed:0.5, varying:1 for varying-rate")
                .flag("seconds", 60, "run time after the reconfiguration")
                .flag("reconfigure-after", "20s", "warm-up before waiting for checkpoints")
                .flag("checkpoints-before", 3, "completed checkpoints before reconfiguring")
                .flag("checkpoint-interval", "5s", "incremental checkpoint interval")
                .flag("repetitions", 1, "runs of each scenario on each system")
                .flag("state-size", "0", "fill the state to this size first, e.g. 2g (0: none)")
                .flag("parallelism", 4, "keyed parallelism at full scale (one per TaskManager)")
                .flag("task-managers", 4, "TaskManagers of the embedded cluster")
                .flag("slots", 2, "slots per TaskManager")
                .flag("managed-memory", "256m", "managed memory per TaskManager")
                .repeatableFlag(
                        "flink-conf",
                        "a Flink option key=value for the cluster and the jobs of every system,"
                                + " e.g. state.backend.rocksdb.compaction.style=UNIVERSAL")
                .flag("vnodes", 16, "Rhino vnodes per keyed operator")
                .flag("rebalance-subtasks", 2, "subtasks giving away half their vnodes")
                .flag("producer-threads", 1, "generator threads")
                .flag("partitions", 4, "partitions per topic")
                .flag("nbq8-window", "12h", "NBQ8's tumbling window")
                .flag("seed", 42, "seed of the generator and of the vnode choice")
                .flag(
                        "backlog-records",
                        0,
                        "steady: input records the generator writes at its full speed before the"
                                + " job starts, so that the measured window reads a backlog as fast"
                                + " as the job can, the generator idle (--rate after it); the run"
                                + " fails if the backlog runs out before the window closes")
                .flag("zipf", "1.0", "skewed: Zipf exponent of the keys bids and auctions pick")
                .flag("start-rate", "1", "max-throughput: first rate probed, MB/s of all threads")
                .flag("step", "30s", "max-throughput: how long each rate runs")
                .flag("latency-bound", "2s", "max-throughput: median p99 a sustained rate keeps")
                .flag("max-steps", 8, "max-throughput: rates probed at most")
                .flag(
                        "rescale",
                        "4:6",
                        "restart-rescale: keyed parallelism before and after, FROM:TO")
                .flag(
                        "cold-checkpoint-storage",
                        true,
                        "failover: drop the checkpoint storage's files from the page cache before"
                                + " the kill (Linux), as a remote store is not in memory")
                .flag("out", "benchmarks-nexmark/target/scenarios", "output directory");
    }

    public static void main(String[] argv) {
        BenchmarkMain.exit("The scenarios", () -> run(argv).failures().isEmpty());
    }

    /** Parses the flags and runs the scenarios; an empty report for {@code --help}. */
    public static ScenarioRunner.Report run(String[] argv) throws Exception {
        Args args = declare();
        if (!args.parse(argv)) {
            return new ScenarioRunner.Report(List.of(), List.of(), List.of());
        }
        List<String> names = list(args.get("scenario"));
        boolean restartRescale = names.contains("restart-rescale");
        if (restartRescale && names.size() > 1) {
            throw new IllegalArgumentException(
                    "restart-rescale runs its cluster on the adaptive scheduler: run it alone, not"
                            + " with "
                            + names);
        }
        Map<String, String> options = new LinkedHashMap<>();
        if (restartRescale) {
            options.putAll(RestartRescaleRun.clusterOptions());
        }
        options.putAll(flinkOptions(args.getAll("flink-conf")));
        ClusterShape shape =
                new ClusterShape(
                        args.getInt("task-managers", 1),
                        args.getInt("slots", 1),
                        MemorySize.parse(args.get("managed-memory")),
                        options);
        List<Scenario> scenarios = new ArrayList<>();
        for (String name : names) {
            scenarios.add(
                    name.equals("restart-rescale")
                            ? restartRescale(args, shape)
                            : name.equals("max-throughput")
                                    ? Scenarios.maxThroughput(
                                            settings(args, name),
                                            Double.parseDouble(args.get("start-rate")),
                                            TimeUtils.parseDuration(args.get("step")),
                                            TimeUtils.parseDuration(args.get("latency-bound")),
                                            args.getInt("max-steps", 1))
                                    : name.equals("skewed")
                                            ? Scenarios.skewed(
                                                    settings(args, name),
                                                    Double.parseDouble(args.get("zipf")))
                                            : name.equals("failover")
                                                    ? Scenarios.failover(
                                                            settings(args, name),
                                                            Boolean.parseBoolean(
                                                                    args.get(
                                                                            "cold-checkpoint-storage")))
                                                    : Scenarios.create(name, settings(args, name)));
        }
        largeStateAdvice(
                        MemorySize.parse(args.get("state-size")).getBytes(),
                        TimeUtils.parseDuration(args.get("checkpoint-interval")),
                        shape.managedMemory())
                .ifPresent(LOG::warn);
        ScenarioDiskSpace.require(
                Paths.get(System.getProperty("java.io.tmpdir")),
                MemorySize.parse(args.get("state-size")).getBytes());
        List<SystemUnderTest> suts = new ArrayList<>();
        for (String sut : list(args.get("suts"))) {
            suts.add(sut(sut, shape, args.getLong("seed")));
        }
        Path out = Paths.get(args.get("out"));
        ScenarioRunner.Report report =
                new ScenarioRunner(out)
                        .repetitions(args.getInt("repetitions", 1))
                        .run(scenarios, suts);
        report.failures()
                .forEach(
                        f ->
                                LOG.error(
                                        "{} on {} (repetition {}) failed: {}",
                                        f.scenario(),
                                        f.sut(),
                                        f.repetition(),
                                        f.error().toString()));
        return report;
    }

    /** The restart-rescale scenario of {@code --rescale FROM:TO}, checked against the slots. */
    private static Scenario restartRescale(Args args, ClusterShape shape) {
        String[] fromTo = args.get("rescale").split(":");
        if (fromTo.length != 2) {
            throw new IllegalArgumentException(
                    "--rescale takes FROM:TO, e.g. 4:6, not " + args.get("rescale"));
        }
        int from = Integer.parseInt(fromTo[0].trim());
        int to = Integer.parseInt(fromTo[1].trim());
        if (Math.max(from, to) > shape.slots()) {
            throw new IllegalArgumentException(
                    "--rescale "
                            + args.get("rescale")
                            + " needs "
                            + Math.max(from, to)
                            + " slots; the cluster has "
                            + shape.slots()
                            + " (--task-managers x --slots)");
        }
        return Scenarios.restartRescale(
                settings(args, "restart-rescale"),
                from,
                to,
                Boolean.parseBoolean(args.get("cold-checkpoint-storage")));
    }

    static ScenarioSettings settings(Args args, String scenario) {
        String rate = args.get("rate");
        if (rate.isEmpty()) {
            rate = scenario.equals("varying-rate") ? "varying:1" : "fixed:0.5";
        }
        return new ScenarioSettings(
                args.get("query").toLowerCase(Locale.ROOT),
                rate,
                java.time.Duration.ofSeconds(args.getInt("seconds", 0)),
                TimeUtils.parseDuration(args.get("reconfigure-after")),
                args.getInt("checkpoints-before", 0),
                TimeUtils.parseDuration(args.get("checkpoint-interval")),
                MemorySize.parse(args.get("state-size")).getBytes(),
                args.getInt("parallelism", 2),
                args.getInt("vnodes", 2),
                args.getInt("rebalance-subtasks", 1),
                args.getInt("producer-threads", 1),
                args.getInt("partitions", 1),
                TimeUtils.parseDuration(args.get("nbq8-window")),
                args.getLong("seed"),
                args.getLong("backlog-records"));
    }

    static SystemUnderTest sut(String name, ClusterShape shape, long seed) {
        return switch (name) {
            case "rhino" -> new RhinoSut(shape, seed);
            case "rhino-replicated" -> new ReplicatedRhinoSut(shape, seed);
            case "rhino-local" -> new RhinoSut("rhino-local", shape, seed, true);
            case "rhino-replicated-local" ->
                    new ReplicatedRhinoSut("rhino-replicated-local", shape, seed, true);
            case "rhino-auto-balance" -> new AutoBalancingRhinoSut(shape, seed);
            case "flink" -> new FlinkSut(shape);
            case "flink-local" -> new FlinkSut("flink-local", shape, true);
            default ->
                    throw new IllegalArgumentException(
                            "--suts takes rhino, rhino-local, rhino-replicated,"
                                    + " rhino-replicated-local, rhino-auto-balance, flink and"
                                    + " flink-local, not "
                                    + name);
        };
    }

    /**
     * Advice when a large fill is asked for with settings that make it crawl: every checkpoint
     * flushes every RocksDB memtable, so frequent checkpoints (or memtables kept small by little
     * managed memory) turn the fill into a stream of small files that compaction rewrites again and
     * again.
     */
    static Optional<String> largeStateAdvice(
            long stateBytes, java.time.Duration checkpointInterval, MemorySize managedMemory) {
        boolean large = stateBytes >= LARGE_STATE.getBytes();
        boolean frequent =
                checkpointInterval.compareTo(
                                TimeUtils.parseDuration(LARGE_STATE_CHECKPOINT_INTERVAL))
                        < 0;
        boolean small = managedMemory.compareTo(MemorySize.parse(LARGE_STATE_MANAGED_MEMORY)) < 0;
        if (!large || (!frequent && !small)) {
            return Optional.empty();
        }
        return Optional.of(
                String.format(
                        Locale.ROOT,
                        "Filling %s with checkpoints every %s and %d MB of managed memory per"
                                + " TaskManager: each checkpoint flushes every RocksDB memtable,"
                                + " and compacting the many small files costs more CPU than the"
                                + " fill itself. For large state pass --checkpoint-interval %s"
                                + " --managed-memory %s or more (the paper checkpointed every"
                                + " 2-3 min).",
                        Scenarios.gigabytes(stateBytes),
                        TimeUtils.formatWithHighestUnit(checkpointInterval),
                        managedMemory.getMebiBytes(),
                        LARGE_STATE_CHECKPOINT_INTERVAL,
                        LARGE_STATE_MANAGED_MEMORY));
    }

    static Map<String, String> flinkOptions(List<String> keyValues) {
        Map<String, String> options = new LinkedHashMap<>();
        for (String keyValue : keyValues) {
            int eq = keyValue.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException(
                        "--flink-conf takes key=value, e.g."
                                + " state.backend.rocksdb.compaction.style=UNIVERSAL, not '"
                                + keyValue
                                + "'");
            }
            options.put(keyValue.substring(0, eq).trim(), keyValue.substring(eq + 1).trim());
        }
        return options;
    }

    private static List<String> list(String value) {
        return Arrays.stream(value.split(","))
                .map(String::trim)
                .filter(s -> !s.isEmpty())
                .map(s -> s.toLowerCase(Locale.ROOT))
                .toList();
    }
}
