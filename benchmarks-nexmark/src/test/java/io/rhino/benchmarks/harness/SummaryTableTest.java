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

import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SummaryTableTest {

    @TempDir Path dir;

    private static LatencyStats p99Max(long p99, long max) {
        return new LatencyStats(100, p99 / 2.0, 1, p99 / 2, p99, max, max);
    }

    private SummaryTable table() {
        SummaryTable table =
                new SummaryTable(
                        List.of("scheduling", "state fetching"),
                        List.of("max sustainable (MB/s)"),
                        List.of("during"));
        // Rhino at 250 GB: scheduling 2.6, 2.8, 3.0 s -> 2.8 ± 0.2; fetching 0.1, 0.2, 0.3 -> 0.2 ±
        // 0.1
        table.add(
                "250 GB",
                "rhino",
                Map.of("scheduling", 2.6, "state fetching", 0.1),
                Map.of("max sustainable (MB/s)", 4.0),
                Map.of("during", p99Max(100, 200)));
        table.add(
                "250 GB",
                "rhino",
                Map.of("scheduling", 2.8, "state fetching", 0.2),
                Map.of("max sustainable (MB/s)", 5.0),
                Map.of("during", p99Max(110, 300)));
        table.add(
                "250 GB",
                "rhino",
                Map.of("scheduling", 3.0, "state fetching", 0.3),
                Map.of("max sustainable (MB/s)", 6.0),
                Map.of("during", p99Max(120, 400)));
        // Flink: no fetching measured, one repetition.
        table.add("250 GB", "flink", Map.of("scheduling", 2.2), Map.of(), Map.of());
        table.add(
                "500 GB",
                "rhino",
                Map.of("scheduling", 3.1, "state fetching", 0.2),
                Map.of(),
                Map.of());
        return table;
    }

    @Test
    void meanAndSampleStandardDeviation() {
        MeanStd m = MeanStd.of(List.of(2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0));
        assertThat(m.mean()).isCloseTo(5.0, within(1e-12));
        // Sum of squares 32 over n - 1 = 7.
        assertThat(m.stddev()).isCloseTo(Math.sqrt(32.0 / 7), within(1e-12));
        assertThat(MeanStd.of(List.of(3.0)).stddev()).isZero();
        assertThat(MeanStd.of(List.of()).format(1)).isEqualTo("–");
        assertThat(new MeanStd(2.25, 0.14, 3).format(1)).isEqualTo("2.3 ± 0.1");
    }

    @Test
    void cellsHoldMeanAndStddevOverRepetitions() {
        SummaryTable table = table();
        MeanStd scheduling = table.cell("250 GB", "rhino", "scheduling");
        assertThat(scheduling.mean()).isCloseTo(2.8, within(1e-9));
        assertThat(scheduling.stddev()).isCloseTo(0.2, within(1e-9));
        assertThat(scheduling.n()).isEqualTo(3);
        MeanStd p99 = table.cell("250 GB", "rhino", "p99 during (ms)");
        assertThat(p99.mean()).isCloseTo(110, within(1e-9));
        assertThat(p99.stddev()).isCloseTo(10, within(1e-9));
        assertThat(table.cell("250 GB", "rhino", "max during (ms)").mean())
                .isCloseTo(300, within(1e-9));
        assertThat(table.cell("250 GB", "flink", "state fetching").n()).isZero();
        assertThat(table.cell("250 GB", "rhino", "max sustainable (MB/s)").mean())
                .isCloseTo(5.0, within(1e-9));
    }

    @Test
    void markdownLooksLikeTheTimeBreakdownTable() {
        assertThat(table().toMarkdown().lines())
                .containsExactly(
                        "| group | SUT | scheduling (s) | state fetching (s) | max sustainable (MB/s) | p99 during (ms) | max during (ms) |",
                        "|---|---|---:|---:|---:|---:|---:|",
                        "| 250 GB | rhino | 2.8 ± 0.2 | 0.2 ± 0.1 | 5.00 ± 1.00 | 110 ± 10 | 300 ± 100 |",
                        "|  | flink | 2.2 ± 0.0 | – | – | – | – |",
                        "| 500 GB | rhino | 3.1 ± 0.0 | 0.2 ± 0.0 | – | – | – |");
    }

    @Test
    void csvHasMeanStddevAndCountPerColumn() throws Exception {
        Path csv = dir.resolve("summary.csv");
        table().writeCsv(csv);

        try (Reader reader = Files.newBufferedReader(csv);
                CSVParser parser =
                        CSVFormat.DEFAULT
                                .builder()
                                .setHeader()
                                .setSkipHeaderRecord(true)
                                .build()
                                .parse(reader)) {
            assertThat(parser.getHeaderNames())
                    .startsWith(
                            "group",
                            "sut",
                            "scheduling_s_mean",
                            "scheduling_s_stddev",
                            "scheduling_s_n");
            List<CSVRecord> records = parser.getRecords();
            assertThat(records).hasSize(3);
            CSVRecord rhino = records.get(0);
            assertThat(rhino.get("group")).isEqualTo("250 GB");
            assertThat(Double.parseDouble(rhino.get("scheduling_s_mean")))
                    .isCloseTo(2.8, within(1e-6));
            assertThat(Double.parseDouble(rhino.get("scheduling_s_stddev")))
                    .isCloseTo(0.2, within(1e-6));
            assertThat(rhino.get("p99_during_ms_n")).isEqualTo("3");
            assertThat(records.get(1).get("state_fetching_s_mean")).isEmpty();
        }
    }
}
