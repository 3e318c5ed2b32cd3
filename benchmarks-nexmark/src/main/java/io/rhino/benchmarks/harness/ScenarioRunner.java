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

package io.rhino.benchmarks.harness;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.UUID;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs every scenario on every system under test, a number of times, and writes per scenario into
 * {@code <outputDir>/<scenario>/}:
 *
 * <ul>
 *   <li>{@code timeseries.csv}: the per-second series ({@link TimeSeriesCsv})
 *   <li>{@code phases.csv}: latency per phase and the reconfiguration moments ({@link PhaseCsv})
 *   <li>{@code latency-rep<N>.png}, {@code resources-rep<N>.png}: one plot per repetition with a
 *       line per system ({@link LatencyPlot}, {@link ResourcePlot})
 *   <li>{@code summary.md}, {@code summary.csv}: mean ± stddev over the repetitions ({@link
 *       SummaryTable})
 * </ul>
 *
 * <p>The repetitions alternate which system goes first. The outputs are written again after every
 * run, so a stopped command keeps the runs it completed. A run that fails is logged, reported in
 * {@link Report#failures()} and left out of the outputs; the other runs go on.
 */
public final class ScenarioRunner {

    private static final Logger LOG = LoggerFactory.getLogger(ScenarioRunner.class);

    /** What a call of {@link #run} measured and wrote. */
    public record Report(List<RunData> runs, List<Failure> failures, List<Path> files) {}

    /** A run that threw. */
    public record Failure(String scenario, String sut, int repetition, Exception error) {}

    private final Path outputDir;
    private int repetitions = 1;
    private Duration tickInterval = Duration.ofSeconds(1);
    private Duration progressInterval = Duration.ofSeconds(5);
    private LongSupplier clock = System::currentTimeMillis;
    private PrintStream out = System.out;

    public ScenarioRunner(Path outputDir) {
        this.outputDir = Objects.requireNonNull(outputDir, "outputDir");
    }

    /** Runs of each scenario on each system (default 1). */
    public ScenarioRunner repetitions(int count) {
        if (count < 1) {
            throw new IllegalArgumentException("repetitions must be at least 1");
        }
        this.repetitions = count;
        return this;
    }

    /** Period of the heartbeat that closes the recorders' intervals (default 1 s; at most 1 s). */
    public ScenarioRunner tickInterval(Duration interval) {
        if (interval.isNegative() || interval.isZero() || interval.toMillis() > 1000) {
            throw new IllegalArgumentException("tick interval must be in (0, 1 s]: " + interval);
        }
        this.tickInterval = interval;
        return this;
    }

    /** Least time between two progress lines (default 5 s). */
    public ScenarioRunner progressInterval(Duration interval) {
        this.progressInterval = interval;
        return this;
    }

    /** The clock of the recorders and progress lines (default the wall clock). */
    public ScenarioRunner clock(LongSupplier clockMillis) {
        this.clock = clockMillis;
        return this;
    }

    /** Where progress lines and the list of written files go (default stdout). */
    public ScenarioRunner printTo(PrintStream stream) {
        this.out = stream;
        return this;
    }

    /** Runs {@code scenarios} × {@code suts} × repetitions and writes the outputs. */
    public Report run(List<Scenario> scenarios, List<SystemUnderTest> suts) throws IOException {
        List<RunData> allRuns = new ArrayList<>();
        List<Failure> failures = new ArrayList<>();
        List<Path> files = new ArrayList<>();
        for (Scenario scenario : scenarios) {
            Path dir = outputDir.resolve(fileName(scenario.name()));
            RunOutputs outputs = new RunOutputs(dir);
            List<RunData> runs = new ArrayList<>();
            List<Path> scenarioFiles = List.of();
            for (int rep = 1; rep <= repetitions; rep++) {
                for (int i = 0; i < suts.size(); i++) {
                    // Alternate the order so that no system always runs on a cold (or warm) JVM.
                    SystemUnderTest sut = suts.get((i + rep - 1) % suts.size());
                    RunData run;
                    try {
                        run = runOnce(scenario, sut, rep, dir);
                    } catch (Exception e) {
                        LOG.error(
                                "Run {} of {} on {} failed: {}",
                                rep,
                                scenario.name(),
                                sut.name(),
                                e.toString(),
                                e);
                        failures.add(new Failure(scenario.name(), sut.name(), rep, e));
                        continue;
                    }
                    runs.add(run);
                    // Written after every run, not once at the end: a run with a state fill takes
                    // an hour, and stopping a later one must not lose the earlier ones.
                    scenarioFiles = outputs.write(scenario.name(), runs);
                    LOG.info("Outputs of {} run(s) so far written to {}", runs.size(), dir);
                }
            }
            files.addAll(scenarioFiles);
            allRuns.addAll(runs);
        }
        out.println("Benchmark outputs:");
        files.forEach(f -> out.println("  " + f.toAbsolutePath()));
        if (!failures.isEmpty()) {
            out.println(failures.size() + " run(s) failed; see the log.");
        }
        return new Report(allRuns, failures, files);
    }

    private RunData runOnce(Scenario scenario, SystemUnderTest sut, int rep, Path dir)
            throws Exception {
        String runId = scenario.name() + "/" + sut.name() + "/" + rep + "/" + UUID.randomUUID();
        long start = clock.getAsLong();
        LatencyRecorder latency =
                LatencyRecorders.register(runId, new LatencyRecorder(clock, start));
        ThroughputMeter throughput =
                ThroughputMeters.register(runId, new ThroughputMeter(clock, start));
        ProcessResourceSampler resources = ProcessResourceSampler.forCurrentProcess(clock, start);
        ScenarioContext context =
                new ScenarioContext(
                        runId,
                        scenario.name(),
                        sut.name(),
                        rep,
                        dir,
                        clock,
                        start,
                        scenario.expectedDuration(),
                        latency,
                        throughput,
                        resources);
        ProgressLine progress =
                new ProgressLine(
                        scenario.name() + " " + sut.name() + " #" + rep,
                        clock,
                        progressInterval.toMillis(),
                        out);
        Runnable heartbeat =
                () -> {
                    latency.tick();
                    throughput.tick();
                    resources.sample();
                    progress.update(
                            context.progress(),
                            throughput
                                    .latestSecond()
                                    .map(ThroughputReport.SecondThroughput::recordsPerSecond)
                                    .orElse(0.0),
                            latency.latestSecond().map(LatencyStats::p99Ms).orElse(-1L));
                };
        LOG.info(
                "Running {} on {} (repetition {}), run id {}",
                scenario.name(),
                sut.name(),
                rep,
                runId);
        resources.sample();
        ScenarioResult result;
        try (SecondTicker ticker =
                new SecondTicker("heartbeat " + runId, tickInterval, heartbeat)) {
            // An interrupted run (Ctrl-C) still stops the system, which deletes its files:
            // runs with tens of GB of state must not leave them behind.
            Thread stopOnExit = new Thread(() -> stopQuietly(sut), "stop " + sut.name());
            Runtime.getRuntime().addShutdownHook(stopOnExit);
            try {
                result = scenario.run(sut, context);
            } finally {
                sut.stop();
                removeShutdownHook(stopOnExit);
            }
        } finally {
            LatencyRecorders.remove(runId);
            ThroughputMeters.remove(runId);
        }
        // Close the last intervals after the heartbeat stopped.
        latency.tick();
        throughput.tick();
        resources.sample();
        return new RunData(
                scenario.name(),
                sut.name(),
                rep,
                result.group(),
                start,
                latency.report(),
                throughput.report(),
                resources.samples(),
                context.reconfigurations(),
                result.timingsSeconds(),
                result.figures());
    }

    private static void stopQuietly(SystemUnderTest sut) {
        try {
            sut.stop();
        } catch (Exception e) {
            LOG.warn("Could not stop {} on exit", sut.name(), e);
        }
    }

    private static void removeShutdownHook(Thread hook) {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs or ran already
        }
    }

    /** A scenario or system name as a file name. */
    static String fileName(String name) {
        String cleaned = name.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9._-]+", "-");
        return cleaned.isEmpty() ? "scenario" : cleaned;
    }

    /** Writes the CSVs, plots and table of one scenario. */
    private static final class RunOutputs {

        private final Path dir;

        RunOutputs(Path dir) {
            this.dir = dir;
        }

        List<Path> write(String scenario, List<RunData> runs) throws IOException {
            List<Path> files = new ArrayList<>();
            if (runs.isEmpty()) {
                return files;
            }
            Path timeSeries = dir.resolve("timeseries.csv");
            TimeSeriesCsv.write(timeSeries, runs);
            files.add(timeSeries);
            Path phases = dir.resolve("phases.csv");
            PhaseCsv.write(phases, runs);
            files.add(phases);
            files.addAll(ScenarioFigures.write(dir, scenario, runs));
            SummaryTable table = SummaryTable.of(runs);
            Path markdown = dir.resolve("summary.md");
            table.writeMarkdown(markdown);
            files.add(markdown);
            Path csv = dir.resolve("summary.csv");
            table.writeCsv(csv);
            files.add(csv);
            files.addAll(RatioReport.of(runs, RatioReport.DEFAULT_BASELINE).write(dir));
            return files;
        }
    }
}
