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

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The runner with a fake system under test that "processes" records on a thread of its own. */
class ScenarioRunnerTest {

    @TempDir Path out;

    /** Records latencies of {@code latencyMs} through the registry, as a probe in a job would. */
    private static final class FakeSut implements SystemUnderTest {

        private final String name;
        private final long latencyMs;
        private final long reconfigurationLatencyMs;
        private volatile long currentLatency;
        private volatile Thread worker;
        final List<String> calls = new ArrayList<>();

        FakeSut(String name, long latencyMs, long reconfigurationLatencyMs) {
            this.name = name;
            this.latencyMs = latencyMs;
            this.reconfigurationLatencyMs = reconfigurationLatencyMs;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public void start(Workload workload, ScenarioContext context) {
            calls.add("start " + workload.name());
            currentLatency = latencyMs;
            LatencyRecorder recorder = LatencyRecorders.get(context.runId());
            ThroughputMeter meter = ThroughputMeters.get(context.runId());
            Thread t =
                    new Thread(
                            () -> {
                                while (!Thread.currentThread().isInterrupted()) {
                                    recorder.recordSince(context.nowMillis() - currentLatency);
                                    meter.record(1, 32);
                                    try {
                                        Thread.sleep(2);
                                    } catch (InterruptedException e) {
                                        return;
                                    }
                                }
                            });
            t.setDaemon(true);
            t.start();
            worker = t;
        }

        @Override
        public PhaseTimings reconfigure(Reconfiguration reconfiguration, ScenarioContext context)
                throws Exception {
            calls.add("reconfigure " + reconfiguration.kind());
            currentLatency = reconfigurationLatencyMs;
            Thread.sleep(300);
            currentLatency = latencyMs;
            return new PhaseTimings(
                    Map.of(PhaseTimings.SCHEDULING, Duration.ofMillis(name.length() * 100L)));
        }

        @Override
        public void stop() throws InterruptedException {
            calls.add("stop");
            Thread t = worker;
            worker = null;
            if (t != null) {
                t.interrupt();
                t.join();
            }
        }
    }

    private static final Workload WORKLOAD = () -> "fake-query";

    /** Steady for a while, a reconfiguration, steady again. */
    private static final class ReconfigureOnce implements Scenario {
        @Override
        public String name() {
            return "Fake Scale-Out";
        }

        @Override
        public Duration expectedDuration() {
            return Duration.ofMillis(1500);
        }

        @Override
        public ScenarioResult run(SystemUnderTest sut, ScenarioContext context) throws Exception {
            sut.start(WORKLOAD, context);
            context.markPhase(ScenarioContext.STEADY);
            Thread.sleep(600);
            PhaseTimings timings =
                    context.reconfigure(sut, Reconfiguration.of(Reconfiguration.SCALE_OUT));
            Thread.sleep(600);
            return ScenarioResult.of("small", timings);
        }
    }

    /** What a scenario does before it starts the system. */
    private interface BeforeStart {
        void accept(ScenarioContext context) throws Exception;
    }

    /** Starts the system, fails for the one named "broken", and otherwise runs steady briefly. */
    private static Scenario failingForBroken(String name, BeforeStart beforeStart) {
        return new Scenario() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public ScenarioResult run(SystemUnderTest sut, ScenarioContext context)
                    throws Exception {
                beforeStart.accept(context);
                sut.start(WORKLOAD, context);
                if (sut.name().equals("broken")) {
                    throw new IllegalStateException("boom");
                }
                context.markPhase(ScenarioContext.STEADY);
                Thread.sleep(300);
                return new ScenarioResult("g", Map.of(), Map.of());
            }
        };
    }

    /** A runner with fast ticks that prints nothing. */
    private ScenarioRunner quietRunner() {
        return new ScenarioRunner(out)
                .tickInterval(Duration.ofMillis(100))
                .printTo(
                        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
    }

    @Test
    void runsEveryScenarioOnEverySystemAndWritesTheOutputs() throws Exception {
        FakeSut fast = new FakeSut("fast", 5, 50);
        FakeSut slow = new FakeSut("slowest", 20, 2000);
        ByteArrayOutputStream printed = new ByteArrayOutputStream();

        ScenarioRunner.Report report =
                new ScenarioRunner(out)
                        .repetitions(2)
                        .tickInterval(Duration.ofMillis(100))
                        .progressInterval(Duration.ofMillis(500))
                        .printTo(new PrintStream(printed, true, StandardCharsets.UTF_8))
                        .run(List.of(new ReconfigureOnce()), List.of(fast, slow));

        assertThat(report.failures()).isEmpty();
        assertThat(report.runs()).hasSize(4);
        assertThat(fast.calls)
                .containsExactly(
                        "start fake-query",
                        "reconfigure scale-out",
                        "stop",
                        "start fake-query",
                        "reconfigure scale-out",
                        "stop");
        // Alternating order: fast first in repetition 1, slowest first in repetition 2.
        assertThat(report.runs())
                .extracting(r -> r.sut() + r.repetition())
                .containsExactly("fast1", "slowest1", "slowest2", "fast2");

        for (RunData run : report.runs()) {
            // Samples between the start and the first mark form the unmarked phase.
            assertThat(run.latency().phases().keySet())
                    .containsSubsequence(
                            ScenarioContext.STEADY,
                            ScenarioContext.DURING_RECONFIGURATION,
                            ScenarioContext.AFTER_RECONFIGURATION)
                    .isSubsetOf(
                            LatencyRecorder.INITIAL_PHASE,
                            ScenarioContext.STEADY,
                            ScenarioContext.DURING_RECONFIGURATION,
                            ScenarioContext.AFTER_RECONFIGURATION);
            assertThat(run.latency().total().count()).isPositive();
            assertThat(run.throughput().records()).isEqualTo(run.latency().total().count());
            assertThat(run.reconfigurations())
                    .extracting(TimeMark::label)
                    .containsExactly("scale-out");
            assertThat(run.resources()).isNotEmpty();
            assertThat(run.group()).isEqualTo("small");
        }
        RunData slowRun = report.runs().get(1);
        assertThat(slowRun.latency().phases().get(ScenarioContext.DURING_RECONFIGURATION).maxMs())
                .isGreaterThanOrEqualTo(2000);
        assertThat(slowRun.latency().phases().get(ScenarioContext.STEADY).maxMs()).isLessThan(2000);
        assertThat(slowRun.timingsSeconds()).containsEntry(PhaseTimings.SCHEDULING, 0.7);

        Path dir = out.resolve("fake-scale-out");
        assertThat(report.files())
                .containsExactly(
                        dir.resolve("timeseries.csv"),
                        dir.resolve("phases.csv"),
                        dir.resolve("latency-rep1.png"),
                        dir.resolve("resources-rep1.png"),
                        dir.resolve("latency-rep2.png"),
                        dir.resolve("resources-rep2.png"),
                        dir.resolve("summary.md"),
                        dir.resolve("summary.csv"));
        for (Path file : report.files()) {
            assertThat(file).isNotEmptyFile();
        }
        assertThat(ImageIO.read(dir.resolve("latency-rep1.png").toFile()).getWidth())
                .isEqualTo(1000);
        assertThat(Files.readString(dir.resolve("summary.md")))
                .contains("| small | fast | 0.4 ± 0.0 |")
                .contains("|  | slowest | 0.7 ± 0.0 |");
        String stdout = printed.toString(StandardCharsets.UTF_8);
        assertThat(stdout).contains("[Fake Scale-Out fast #1]").contains("Benchmark outputs:");
        assertThat(stdout).contains(dir.resolve("summary.md").toAbsolutePath().toString());
    }

    @Test
    void theOutputsOfTheRunsDoneSoFarAreOnDiskWhileTheNextRunsGoOn() throws Exception {
        List<List<String>> onDiskAtEachStart = new ArrayList<>();
        Scenario recordingWhatIsOnDisk =
                failingForBroken(
                        "long",
                        context -> {
                            Path dir = context.outputDir();
                            onDiskAtEachStart.add(
                                    Files.exists(dir.resolve("timeseries.csv"))
                                            ? RunCsv.read(dir).stream()
                                                    .map(r -> r.sut() + r.repetition())
                                                    .toList()
                                            : List.of());
                        });

        ScenarioRunner.Report report =
                quietRunner()
                        .run(
                                List.of(recordingWhatIsOnDisk),
                                List.of(
                                        new FakeSut("first", 5, 5),
                                        new FakeSut("broken", 5, 5),
                                        new FakeSut("third", 5, 5)));

        // A command stopped during a run keeps every run completed before it; a failed run
        // writes nothing.
        assertThat(onDiskAtEachStart)
                .containsExactly(List.of(), List.of("first1"), List.of("first1"));
        assertThat(RunCsv.read(out.resolve("long")))
                .extracting(r -> r.sut() + r.repetition())
                .containsExactly("first1", "third1");
        assertThat(report.files()).contains(out.resolve("long").resolve("summary.csv"));
    }

    @Test
    void aFailingRunIsReportedAndTheOthersGoOn() throws Exception {
        FakeSut ok = new FakeSut("ok", 5, 5);
        Scenario failing = failingForBroken("failing", context -> {});
        FakeSut broken = new FakeSut("broken", 5, 5);

        ScenarioRunner.Report report = quietRunner().run(List.of(failing), List.of(ok, broken));

        assertThat(report.runs()).extracting(RunData::sut).containsExactly("ok");
        assertThat(report.failures())
                .extracting(ScenarioRunner.Failure::sut)
                .containsExactly("broken");
        // The broken system was stopped all the same.
        assertThat(broken.calls).containsExactly("start fake-query", "stop");
    }
}
