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
import io.rhino.benchmarks.harness.LatencyStats;
import io.rhino.benchmarks.harness.RunData;
import io.rhino.benchmarks.harness.ScenarioContext;
import io.rhino.benchmarks.harness.ScenarioRunner;
import io.rhino.benchmarks.scenarios.ClusterShape;
import io.rhino.benchmarks.scenarios.DemoScenario;
import io.rhino.benchmarks.scenarios.RhinoSut;
import io.rhino.core.handover.VnodeMove;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The showcase: NEXMark query 8 (persons joined with the auctions they created, 12-hour tumbling
 * windows) on Rhino, fed from an embedded Kafka broker by the generator, on an embedded cluster of
 * four TaskManagers; mid-run, half the vnodes of two keyed subtasks move to subtasks on other
 * TaskManagers through the handover manager's Java API while the generator keeps producing. It
 * prints the handover's phases and the end-to-end latency before, during and after, writes the
 * latency plot, and exits non-zero with the reason when anything fails (a failed handover, a move
 * within one TaskManager, no results in a phase).
 *
 * <p>Run it with {@code mvn -B -ntp -Pdemo -pl benchmarks-nexmark -am verify -DskipTests}; {@code
 * --help} lists the flags.
 */
public final class DemoJob {

    private static final Logger LOG = LoggerFactory.getLogger(DemoJob.class);

    private DemoJob() {}

    public static void main(String[] argv) {
        BenchmarkMain.exit(
                "Demo",
                () -> {
                    run(argv);
                    return true;
                });
    }

    static void run(String[] argv) throws Exception {
        Args args =
                new Args("DemoJob")
                        .flag("seconds", 20, "how long the job runs after the handover")
                        .flag("warm-up", 10, "seconds of steady state before the handover")
                        .flag("rate", "fixed:0.3", "generator rate (MB/s): fixed:<MB/s>")
                        .flag("out", "benchmarks-nexmark/target/demo", "output directory");
        if (!args.parse(argv)) {
            return;
        }
        RhinoSut rhino = new RhinoSut(ClusterShape.defaultShape(), 42);
        DemoScenario scenario =
                new DemoScenario(
                        args.get("rate"), args.getInt("warm-up", 1), args.getInt("seconds", 5));
        LOG.info(
                "Demo: embedded cluster of {} TaskManagers x {} slots, embedded Kafka, NBQ8 on Rhino"
                        + " (keyed parallelism {}, {} vnodes); after {} s and {} checkpoints, half"
                        + " the vnodes of {} subtasks move to subtasks on other TaskManagers",
                ClusterShape.defaultShape().taskManagers(),
                ClusterShape.defaultShape().slotsPerTaskManager(),
                DemoScenario.PARALLELISM,
                DemoScenario.VNODES,
                args.getInt("warm-up", 1),
                DemoScenario.CHECKPOINTS,
                DemoScenario.GIVING_SUBTASKS);
        Path out = Paths.get(args.get("out"));
        ScenarioRunner.Report report =
                new ScenarioRunner(out).run(List.of(scenario.scenario()), List.of(rhino));
        if (!report.failures().isEmpty()) {
            throw new IllegalStateException(
                    "The demo run failed: " + report.failures().get(0).error(),
                    report.failures().get(0).error());
        }
        List<RhinoSut.Handover> handovers = scenario.handovers();
        if (handovers.isEmpty()) {
            throw new IllegalStateException("No handover took place");
        }
        printHandovers(handovers);
        RunData run = report.runs().get(0);
        printLatency(run);
        Path plot =
                report.files().stream()
                        .filter(f -> f.getFileName().toString().startsWith("latency-"))
                        .findFirst()
                        .orElseThrow(() -> new IllegalStateException("No latency plot written"));
        LOG.info("Latency plot: {}", plot.toAbsolutePath());
        LOG.info("All outputs (CSVs, plots, summary) under {}", out.toAbsolutePath());
    }

    private static void printHandovers(List<RhinoSut.Handover> handovers) {
        for (RhinoSut.Handover handover : handovers) {
            Map<Integer, String> taskManagers = handover.taskManagers();
            List<String> names = taskManagers.values().stream().distinct().sorted().toList();
            LOG.info(
                    "Handover of {}: {} after {} ms",
                    handover.operator(),
                    handover.result().outcome(),
                    handover.result().totalMillis());
            for (VnodeMove move : handover.moves()) {
                String from = taskManagers.get(move.fromSubtask());
                String to = taskManagers.get(move.toSubtask());
                LOG.info(
                        "  vnode {}: subtask {} (TaskManager {}) -> subtask {} (TaskManager {})",
                        move.vnode(),
                        move.fromSubtask(),
                        names.indexOf(from),
                        move.toSubtask(),
                        names.indexOf(to));
                if (from.equals(to)) {
                    throw new IllegalStateException(
                            "vnode " + move.vnode() + " moved within one TaskManager");
                }
            }
            handover.result()
                    .phaseDurationsMillis()
                    .forEach((phase, millis) -> LOG.info("  phase {}: {} ms", phase, millis));
            if (!handover.result().isCompleted()) {
                throw new IllegalStateException(
                        "The handover did not complete: " + handover.result());
            }
        }
    }

    private static void printLatency(RunData run) {
        LOG.info("End-to-end latency (ms), NBQ8 results:");
        LOG.info(String.format("  %-24s %9s %7s %7s %7s", "phase", "results", "p50", "p99", "max"));
        for (String phase :
                List.of(
                        ScenarioContext.STEADY,
                        ScenarioContext.DURING_RECONFIGURATION,
                        ScenarioContext.AFTER_RECONFIGURATION)) {
            LatencyStats stats = run.latency().phases().getOrDefault(phase, LatencyStats.EMPTY);
            LOG.info(
                    String.format(
                            "  %-24s %9d %7d %7d %7d",
                            phase, stats.count(), stats.p50Ms(), stats.p99Ms(), stats.maxMs()));
            if (stats.isEmpty() && !phase.equals(ScenarioContext.DURING_RECONFIGURATION)) {
                throw new IllegalStateException("No NBQ8 results in phase " + phase);
            }
        }
    }
}
