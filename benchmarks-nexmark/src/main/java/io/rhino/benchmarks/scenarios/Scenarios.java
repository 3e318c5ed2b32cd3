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

import io.rhino.benchmarks.harness.Reconfiguration;
import io.rhino.benchmarks.harness.SystemUnderTest;
import io.rhino.benchmarks.nexmark.generator.KeyDistribution;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The paper's experiments (§5.4), scaled to one machine. Each system gets the reconfiguration the
 * paper gives it: Rhino moves vnodes, Flink (which cannot move part of a subtask's state) rescales
 * with a savepoint.
 */
public final class Scenarios {

    /** Scenario names of {@code --scenario}. */
    public static final List<String> NAMES =
            List.of(
                    "steady",
                    "max-throughput",
                    "vertical-scaling",
                    "load-balancing",
                    "varying-rate",
                    "failover",
                    "skewed",
                    "restart-rescale");

    private Scenarios() {}

    public static NexmarkScenario create(String name, ScenarioSettings s) {
        NexmarkWorkload full = s.workload();
        int max = s.maxParallelism();
        String title = s.query() + "-" + name;
        String group = groupOf(s);
        return switch (name) {
            case "steady" ->
                    new NexmarkScenario(
                            title,
                            group,
                            sut -> full,
                            sut -> Optional.empty(),
                            s.warmUp(),
                            s.checkpointsBefore(),
                            s.after());
            case "vertical-scaling" ->
                    // paper: 7/8 instances per VM -> 8/8; here (max-1)/max -> max
                    new NexmarkScenario(
                            title,
                            group,
                            sut -> full.withActiveParallelism(max - 1),
                            sut -> Optional.of(scaleOut(max)),
                            s.warmUp(),
                            s.checkpointsBefore(),
                            s.after());
            case "load-balancing" ->
                    // paper: half the vnodes of 8 instances (one per VM) to 8 others; Flink is
                    // compared with its rescale (max-1 -> max), as in the paper
                    new NexmarkScenario(
                            title,
                            group,
                            sut -> isFlink(sut) ? full.withActiveParallelism(max - 1) : full,
                            sut ->
                                    Optional.of(
                                            isFlink(sut)
                                                    ? scaleOut(max)
                                                    : rebalance(s.rebalanceSubtasks(), 0.5)),
                            s.warmUp(),
                            s.checkpointsBefore(),
                            s.after());
            case "varying-rate" ->
                    // paper: move the 8 instances of one server to the 7 others; here all vnodes
                    // of one subtask to the others; Flink rescales to one subtask fewer
                    new NexmarkScenario(
                            title,
                            group,
                            sut -> full,
                            sut ->
                                    Optional.of(
                                            isFlink(sut)
                                                    ? new Reconfiguration(
                                                            Reconfiguration.REBALANCE,
                                                            Map.of("parallelism", "" + (max - 1)))
                                                    : rebalance(1, 1.0)),
                            s.warmUp(),
                            s.checkpointsBefore(),
                            s.after());
            case "failover" -> failover(s, true);
            default ->
                    throw new IllegalArgumentException(
                            "--scenario is one of " + NAMES + ", not " + name);
        };
    }

    /**
     * The paper's failure (§5.4.2): the TaskManager of the first keyed operator's subtask 0 dies
     * ({@link TaskManagerFailure}).
     *
     * @param coldCheckpointStorage whether the checkpoint storage's files leave the page cache
     *     before the kill ({@link ColdCheckpointStorage}), as a remote store is never in memory
     */
    public static NexmarkScenario failover(ScenarioSettings s, boolean coldCheckpointStorage) {
        NexmarkWorkload full = s.workload();
        return new NexmarkScenario(
                s.query() + "-failover",
                groupOf(s),
                sut -> full,
                sut ->
                        Optional.of(
                                new Reconfiguration(
                                        Reconfiguration.FAILURE,
                                        Map.of(
                                                TaskManagerFailure.COLD_CHECKPOINT_STORAGE,
                                                "" + coldCheckpointStorage))),
                s.warmUp(),
                s.checkpointsBefore(),
                s.after());
    }

    /**
     * A rescale that restarts the job at another parallelism ({@link RestartRescaleRun}): both
     * systems are deployed at {@code from} subtasks, then Flink's adaptive scheduler is asked for
     * {@code to} (by Rhino's rescale command under Rhino, by the resource requirements under
     * Flink). Needs a cluster on the adaptive scheduler ({@link RestartRescaleRun#clusterOptions}).
     *
     * @param coldCheckpointStorage whether the checkpoint storage leaves the page cache first
     */
    public static NexmarkScenario restartRescale(
            ScenarioSettings s, int from, int to, boolean coldCheckpointStorage) {
        if (from < 1 || to < 1 || from == to) {
            throw new IllegalArgumentException(
                    "--rescale takes two different parallelisms FROM:TO, not " + from + ":" + to);
        }
        if (s.vnodes() < Math.max(from, to)) {
            throw new IllegalArgumentException(
                    "--vnodes "
                            + s.vnodes()
                            + " cannot spread over "
                            + Math.max(from, to)
                            + " subtasks");
        }
        NexmarkWorkload full = s.workload();
        NexmarkWorkload atFrom =
                new NexmarkWorkload(
                        full.query(),
                        full.rate(),
                        full.generator(),
                        full.producerThreads(),
                        full.partitions(),
                        from,
                        from,
                        full.vnodes(),
                        full.checkpointInterval(),
                        full.stateSizeBytes(),
                        full.nbq8Window(),
                        full.backlogRecords());
        Reconfiguration rescale =
                new Reconfiguration(
                        RestartRescaleRun.KIND,
                        Map.of(
                                RestartRescaleRun.PARALLELISM,
                                "" + to,
                                RestartRescaleRun.COLD,
                                "" + coldCheckpointStorage));
        return new NexmarkScenario(
                s.query() + "-restart-rescale-" + from + "-" + to,
                groupOf(s),
                sut -> atFrom,
                sut -> Optional.of(rescale),
                s.warmUp(),
                s.checkpointsBefore(),
                s.after());
    }

    /**
     * A steady run whose bids and auctions pick their auctions and persons Zipf-skewed ({@code
     * exponent}) over the first 1,000 candidates, with no requested reconfiguration: the
     * auto-balancer's benchmark (compare {@code rhino} with {@code rhino-auto-balance}).
     */
    static SkewedScenario skewed(ScenarioSettings s, double exponent) {
        NexmarkWorkload skewed = s.workload().withKeys(KeyDistribution.zipf(exponent, 1_000));
        return new SkewedScenario(
                new NexmarkScenario(
                        s.query() + "-skewed",
                        groupOf(s),
                        sut -> skewed,
                        sut -> Optional.empty(),
                        s.warmUp(),
                        s.checkpointsBefore(),
                        s.after()));
    }

    /**
     * The maximum sustainable throughput search: rates from {@code startMegabytesPerSecond} (all
     * generator threads together), each for {@code step}, sustained while the median p99 latency of
     * a step's second half stays at most {@code latencyBound}.
     */
    public static MaxThroughputScenario maxThroughput(
            ScenarioSettings s,
            double startMegabytesPerSecond,
            Duration step,
            Duration latencyBound,
            int maxSteps) {
        String group = groupOf(s);
        return new MaxThroughputScenario(
                s.query() + "-max-throughput",
                group,
                s.workload(),
                startMegabytesPerSecond,
                step,
                latencyBound,
                maxSteps);
    }

    /** The summary table's row: the state size filled first, else the query. */
    static String groupOf(ScenarioSettings s) {
        return s.stateSizeBytes() > 0 ? gigabytes(s.stateSizeBytes()) : s.query();
    }

    /** A state size as people read it, e.g. "20.0 GB". */
    static String gigabytes(long bytes) {
        return String.format(Locale.ROOT, "%.1f GB", bytes / (double) (1L << 30));
    }

    private static boolean isFlink(SystemUnderTest sut) {
        return sut instanceof FlinkSut;
    }

    private static Reconfiguration scaleOut(int parallelism) {
        return new Reconfiguration(
                Reconfiguration.SCALE_OUT, Map.of("parallelism", "" + parallelism));
    }

    private static Reconfiguration rebalance(int subtasks, double fraction) {
        return new Reconfiguration(
                Reconfiguration.REBALANCE,
                Map.of("subtasks", "" + subtasks, "fraction", "" + fraction));
    }
}
