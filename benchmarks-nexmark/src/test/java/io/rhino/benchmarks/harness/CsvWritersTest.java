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

import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CsvWritersTest {

    @TempDir Path dir;

    private static List<CSVRecord> parse(Path file, List<String> expectedHeader) throws Exception {
        try (Reader reader = Files.newBufferedReader(file);
                CSVParser parser =
                        CSVFormat.DEFAULT
                                .builder()
                                .setHeader()
                                .setSkipHeaderRecord(true)
                                .build()
                                .parse(reader)) {
            assertThat(parser.getHeaderNames()).containsExactlyElementsOf(expectedHeader);
            return parser.getRecords();
        }
    }

    @Test
    void timeSeriesRoundTripsThroughTheCsvParser() throws Exception {
        RunData rhino = SampleRuns.run("rhino", 6, 10, 500, 3);
        // A name that needs quoting.
        RunData flink = SampleRuns.run("flink, \"rocksdb\"", 6, 20, 2000, 3);
        Path csv = dir.resolve("out/timeseries.csv");
        TimeSeriesCsv.write(csv, List.of(rhino, flink));

        List<CSVRecord> rows = parse(csv, TimeSeriesCsv.HEADER);
        assertThat(TimeSeriesCsv.HEADER.subList(0, 9))
                .containsExactly(
                        "second",
                        "sut",
                        "scenario",
                        "count",
                        "mean_ms",
                        "min_ms",
                        "p50_ms",
                        "p99_ms",
                        "max_ms");
        assertThat(rows).hasSize(12);
        assertThat(rows).extracting(r -> r.get("sut")).containsOnly("rhino", "flink, \"rocksdb\"");

        CSVRecord first = rows.get(0);
        assertThat(first.get("second")).isEqualTo("0");
        assertThat(first.get("scenario")).isEqualTo("nbq8-scale-out");
        assertThat(first.get("count")).isEqualTo("1");
        assertThat(first.get("mean_ms")).isEqualTo("10.000");
        assertThat(first.get("p99_ms")).isEqualTo("10");
        assertThat(first.get("records_per_s")).isEqualTo("1000.000");
        assertThat(first.get("mb_per_s")).isEqualTo("0.100");
        assertThat(first.get("cpu_percent")).isEmpty(); // no rate on the first sample
        assertThat(first.get("rss_bytes")).isEqualTo("300000000");
        assertThat(first.get("phase")).isEqualTo(ScenarioContext.STEADY);
        assertThat(first.get("repetition")).isEqualTo("1");

        CSVRecord spike = rows.get(4);
        assertThat(spike.get("second")).isEqualTo("4");
        assertThat(spike.get("max_ms")).isEqualTo("500");
        assertThat(spike.get("phase")).isEqualTo(ScenarioContext.DURING_RECONFIGURATION);
        assertThat(spike.get("net_tx_bytes_per_s")).isEqualTo("20000.000");
        assertThat(rows.get(5).get("phase")).isEqualTo(ScenarioContext.AFTER_RECONFIGURATION);
        assertThat(rows.get(10).get("max_ms")).isEqualTo("2000");
    }

    @Test
    void phasesCsvHasWholeRunPhasesAndReconfigurations() throws Exception {
        Path csv = dir.resolve("phases.csv");
        PhaseCsv.write(csv, List.of(SampleRuns.run("rhino", 6, 10, 500, 3)));

        List<CSVRecord> rows = parse(csv, PhaseCsv.HEADER);
        assertThat(rows)
                .extracting(r -> r.get("kind") + ":" + r.get("name"))
                .containsExactly(
                        "run:all",
                        "phase:steady",
                        "phase:during-reconfiguration",
                        "phase:after",
                        "reconfiguration:scale-out");
        assertThat(rows.get(0).get("count")).isEqualTo("6");
        assertThat(rows.get(2).get("start_s")).isEqualTo("3.000");
        assertThat(rows.get(2).get("count")).isEqualTo("2");
        assertThat(rows.get(2).get("max_ms")).isEqualTo("500");
        assertThat(rows.get(4).get("start_s")).isEqualTo("3.000");
        assertThat(rows.get(4).get("count")).isEmpty();
    }
}
