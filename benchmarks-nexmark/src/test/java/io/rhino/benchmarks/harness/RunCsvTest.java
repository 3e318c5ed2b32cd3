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
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RunCsvTest {

    @Test
    void theRunsOfAScenarioDirectoryReadBackAsWritten(@TempDir Path dir) throws Exception {
        RunData rhino = SampleRuns.run("rhino", 20, 10, 500, 8);
        RunData flink = SampleRuns.run("flink", 18, 30, 900, 5);
        TimeSeriesCsv.write(dir.resolve("timeseries.csv"), List.of(rhino, flink));
        PhaseCsv.write(dir.resolve("phases.csv"), List.of(rhino, flink));

        List<RunData> read = RunCsv.read(dir);

        assertThat(read).extracting(RunData::sut).containsExactly("rhino", "flink");
        for (int i = 0; i < 2; i++) {
            RunData written = List.of(rhino, flink).get(i);
            RunData back = read.get(i);
            assertThat(back.scenario()).isEqualTo(written.scenario());
            assertThat(back.repetition()).isEqualTo(written.repetition());
            assertThat(back.group()).isEqualTo(written.group());
            assertThat(back.latency().perSecond())
                    .extracting(s -> s.second(), s -> s.stats().p99Ms(), s -> s.stats().count())
                    .containsExactlyElementsOf(
                            written.latency().perSecond().stream()
                                    .map(
                                            s ->
                                                    org.assertj.core.groups.Tuple.tuple(
                                                            s.second(),
                                                            s.stats().p99Ms(),
                                                            s.stats().count()))
                                    .toList());
            assertThat(back.latency().perSecond())
                    .extracting(s -> s.stats().meanMs())
                    .containsExactlyElementsOf(
                            written.latency().perSecond().stream()
                                    .map(s -> s.stats().meanMs())
                                    .toList());
            assertThat(back.resources())
                    .extracting(ResourceSample::second, ResourceSample::cpuPercent)
                    .containsExactlyElementsOf(
                            written.resources().stream()
                                    .map(
                                            s ->
                                                    org.assertj.core.groups.Tuple.tuple(
                                                            s.second(), s.cpuPercent()))
                                    .toList());
            assertThat(back.resources())
                    .extracting(ResourceSample::rssBytes)
                    .containsExactlyElementsOf(
                            written.resources().stream().map(ResourceSample::rssBytes).toList());
            assertThat(back.reconfigurations())
                    .extracting(m -> m.label(), m -> m.secondsSince(back.startMillis()))
                    .containsExactlyElementsOf(
                            written.reconfigurations().stream()
                                    .map(
                                            m ->
                                                    org.assertj.core.groups.Tuple.tuple(
                                                            m.label(),
                                                            m.secondsSince(written.startMillis())))
                                    .toList());
            assertThat(back.latency().phases().keySet())
                    .containsExactlyElementsOf(written.latency().phases().keySet());
            written.latency()
                    .phases()
                    .forEach(
                            (phase, stats) ->
                                    assertSameStats(back.latency().phases().get(phase), stats));
            assertSameStats(back.latency().total(), written.latency().total());
            assertThat(MeasuredWindow.of(back)).isEqualTo(MeasuredWindow.of(written));
            assertThat(back.throughput().records()).isEqualTo(written.throughput().records());
        }
    }

    /** Equal figures; the CSVs hold means to three decimals. */
    private static void assertSameStats(LatencyStats read, LatencyStats written) {
        assertThat(read.meanMs()).isCloseTo(written.meanMs(), within(0.0005));
        assertThat(read).usingRecursiveComparison().ignoringFields("meanMs").isEqualTo(written);
    }

    @Test
    void aDirectoryWithoutTheCsvsSaysWhatToGive(@TempDir Path dir) {
        assertThatThrownBy(() -> RunCsv.read(dir))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("timeseries.csv does not exist")
                .hasMessageContaining("give the directory a scenario wrote");
    }
}
