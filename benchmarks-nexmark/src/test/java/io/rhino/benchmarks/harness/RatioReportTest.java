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
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RatioReportTest {

    @TempDir Path dir;

    private static RunData run(String sut, int repetition, String group, double consumed) {
        FakeClock clock = new FakeClock(SampleRuns.START);
        return new RunData(
                "nbqx-steady",
                sut,
                repetition,
                group,
                SampleRuns.START,
                new LatencyRecorder(clock, SampleRuns.START).report(),
                new ThroughputMeter(clock, SampleRuns.START).report(),
                List.of(),
                List.of(),
                Map.of(),
                Map.of(WindowCost.CONSUMED, consumed));
    }

    @Test
    void pairsEachRepetitionWithTheBaselinesAndDecidesWhenTheIntervalExcludesOne() {
        // Flink's throughput drifts between repetitions (100, 200, 100); Rhino's ratio does not.
        RatioReport report =
                RatioReport.of(
                        List.of(
                                run("flink", 1, "5s", 100),
                                run("rhino", 1, "5s", 90),
                                run("rhino", 2, "5s", 180),
                                run("flink", 2, "5s", 200),
                                run("flink", 3, "5s", 100),
                                run("rhino", 3, "5s", 95)),
                        "flink");

        assertThat(report.rows()).hasSize(1);
        RatioReport.Row row = report.rows().get(0);
        assertThat(row.sut()).isEqualTo("rhino");
        assertThat(row.figure()).isEqualTo(WindowCost.CONSUMED);
        assertThat(row.ratios()).containsExactly(0.9, 0.9, 0.95);
        // mean 0.9167, sd 0.0289, t(2 df, 97.5%) = 4.303: half width 0.0717
        double[] interval = row.interval();
        assertThat(interval[0]).isCloseTo(0.845, within(0.001));
        assertThat(interval[1]).isCloseTo(0.988, within(0.001));
        assertThat(row.verdict()).isEqualTo("below 1.0");
    }

    @Test
    void anIntervalHoldingOneDecidesNothing() {
        RatioReport.Row spread = new RatioReport.Row("5s", "rhino", "x", List.of(0.9, 1.1));
        RatioReport.Row above = new RatioReport.Row("5s", "rhino", "x", List.of(1.1, 1.12, 1.09));
        RatioReport.Row single = new RatioReport.Row("5s", "rhino", "x", List.of(1.5));

        assertThat(spread.verdict()).isEqualTo("undecided (interval holds 1.0)");
        assertThat(above.verdict()).isEqualTo("above 1.0");
        assertThat(single.verdict()).isEqualTo("undecided (one repetition)");
        assertThat(single.interval()[0]).isNaN();
    }

    @Test
    void groupsAreComparedSeparatelyAndRunsWithoutABaselineAreLeftOut() throws Exception {
        RatioReport report =
                RatioReport.of(
                        List.of(
                                run("flink", 1, "5s", 100),
                                run("rhino", 1, "5s", 80),
                                run("flink", 1, "30s", 100),
                                run("rhino", 1, "30s", 110),
                                run("rhino", 1, "60s", 120)),
                        "flink");

        assertThat(report.rows())
                .extracting(RatioReport.Row::group, r -> r.ratios().get(0))
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("5s", 0.8),
                        org.assertj.core.groups.Tuple.tuple("30s", 1.1));
        List<Path> files = report.write(dir);
        assertThat(files)
                .extracting(p -> p.getFileName().toString())
                .containsExactly("ratios.md", "ratios.csv");
        assertThat(Files.readString(dir.resolve("ratios.md")))
                .contains("| 5s | rhino | " + WindowCost.CONSUMED + " | 0.800 |");
        assertThat(
                        RatioReport.of(List.of(run("rhino", 1, "5s", 1)), "flink")
                                .write(dir.resolve("none")))
                .isEmpty();
    }

    @Test
    void aWindowsCostIsPerConsumedRecordWithAndWithoutTheInputSide() {
        Map<String, Double> figures = new WindowCost(60, 600_000, 90_000L, 30_000).figures();

        assertThat(figures)
                .containsEntry(WindowCost.CONSUMED, 10_000.0)
                .containsEntry(WindowCost.PROCESS_CPU, 150.0)
                .containsEntry(WindowCost.JOB_CPU, 100.0);
        assertThat(new WindowCost(60, 600_000, null, 0).figures())
                .containsOnlyKeys(WindowCost.CONSUMED);
    }
}
