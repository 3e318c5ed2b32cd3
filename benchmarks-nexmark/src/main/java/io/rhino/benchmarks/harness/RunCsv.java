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
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVRecord;

/**
 * Reads the runs of a scenario's output directory back from its {@code timeseries.csv} ({@link
 * TimeSeriesCsv}) and {@code phases.csv} ({@link PhaseCsv}), so that figures can be drawn again,
 * and runs of separate commands drawn together, without running the scenario again.
 *
 * <p>What the CSVs do not hold stays out: each run starts at millisecond 0, a second's p99.9 is its
 * maximum, and cumulative resource counters are unknown. The figures need none of them.
 */
public final class RunCsv {

    private static final CSVFormat FORMAT =
            CSVFormat.DEFAULT.builder().setHeader().setSkipHeaderRecord(true).build();

    private RunCsv() {}

    /** One run of the files, keyed by system and repetition. */
    private static final class Run {
        final String sut;
        final String scenario;
        final int repetition;
        String group = "";
        final List<LatencyReport.SecondLatency> latency = new ArrayList<>();
        final List<ThroughputReport.SecondThroughput> throughput = new ArrayList<>();
        final List<ResourceSample> resources = new ArrayList<>();
        LatencyStats total = LatencyStats.EMPTY;
        final Map<String, LatencyStats> phases = new LinkedHashMap<>();
        final List<TimeMark> phaseMarks = new ArrayList<>();
        final List<TimeMark> reconfigurations = new ArrayList<>();

        Run(String sut, String scenario, int repetition) {
            this.sut = sut;
            this.scenario = scenario;
            this.repetition = repetition;
        }

        RunData toRunData() {
            long records = 0;
            long bytes = 0;
            for (ThroughputReport.SecondThroughput s : throughput) {
                records += s.records();
                bytes += s.bytes();
            }
            return new RunData(
                    scenario,
                    sut,
                    repetition,
                    group,
                    0,
                    new LatencyReport(0, latency, total, phases, phaseMarks),
                    new ThroughputReport(throughput, records, bytes, throughput.size()),
                    resources,
                    reconfigurations,
                    Map.of(),
                    Map.of());
        }
    }

    /** The runs written into {@code scenarioDir}, in the order of their first rows. */
    public static List<RunData> read(Path scenarioDir) throws IOException {
        Path timeSeries = scenarioDir.resolve("timeseries.csv");
        Path phases = scenarioDir.resolve("phases.csv");
        for (Path file : List.of(timeSeries, phases)) {
            if (!Files.isRegularFile(file)) {
                throw new IllegalArgumentException(
                        file
                                + " does not exist: give the directory a scenario wrote, which"
                                + " holds timeseries.csv and phases.csv");
            }
        }
        Map<String, Run> runs = new LinkedHashMap<>();
        for (CSVRecord row : records(timeSeries)) {
            Run run = run(runs, row);
            long second = Long.parseLong(row.get("second"));
            if (!row.get("count").isEmpty()) {
                run.latency.add(new LatencyReport.SecondLatency(second, latencyOf(row, "max_ms")));
            }
            if (!row.get("records_per_s").isEmpty()) {
                run.throughput.add(
                        new ThroughputReport.SecondThroughput(
                                second,
                                Math.round(Double.parseDouble(row.get("records_per_s"))),
                                Math.round(
                                        Double.parseDouble(row.get("mb_per_s"))
                                                * ThroughputReport.MEGABYTE),
                                1));
            }
            run.resources.add(
                    new ResourceSample(
                            second,
                            second * 1000,
                            null,
                            decimal(row, "cpu_percent"),
                            integer(row, "rss_bytes"),
                            null,
                            null,
                            decimal(row, "disk_read_bytes_per_s"),
                            decimal(row, "disk_write_bytes_per_s"),
                            null,
                            null,
                            decimal(row, "net_rx_bytes_per_s"),
                            decimal(row, "net_tx_bytes_per_s")));
        }
        for (CSVRecord row : records(phases)) {
            Run run = run(runs, row);
            run.group = row.get("group");
            String name = row.get("name");
            long startMillis = Math.round(Double.parseDouble(row.get("start_s")) * 1000);
            switch (row.get("kind")) {
                case "run" -> run.total = latencyOf(row, "p999_ms");
                case "phase" -> {
                    run.phases.put(name, latencyOf(row, "p999_ms"));
                    run.phaseMarks.add(new TimeMark(name, startMillis));
                }
                case "reconfiguration" -> run.reconfigurations.add(new TimeMark(name, startMillis));
                default ->
                        throw new IllegalArgumentException(
                                phases
                                        + " line "
                                        + row.getRecordNumber()
                                        + ": unknown kind "
                                        + row.get("kind"));
            }
        }
        return runs.values().stream().map(Run::toRunData).toList();
    }

    private static List<CSVRecord> records(Path file) throws IOException {
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            return FORMAT.parse(reader).getRecords();
        }
    }

    private static Run run(Map<String, Run> runs, CSVRecord row) {
        String sut = row.get("sut");
        int repetition = Integer.parseInt(row.get("repetition"));
        return runs.computeIfAbsent(
                sut + "\n" + repetition, k -> new Run(sut, row.get("scenario"), repetition));
    }

    /** A row's latency figures; {@code p999Column} names the column read as p99.9. */
    private static LatencyStats latencyOf(CSVRecord row, String p999Column) {
        long count = Long.parseLong(row.get("count"));
        if (count == 0 || row.get("mean_ms").isEmpty()) {
            return LatencyStats.EMPTY;
        }
        return new LatencyStats(
                count,
                Double.parseDouble(row.get("mean_ms")),
                Long.parseLong(row.get("min_ms")),
                Long.parseLong(row.get("p50_ms")),
                Long.parseLong(row.get("p99_ms")),
                Long.parseLong(row.get(p999Column)),
                Long.parseLong(row.get("max_ms")));
    }

    private static Double decimal(CSVRecord row, String column) {
        String cell = row.get(column);
        return cell.isEmpty() ? null : Double.valueOf(cell);
    }

    private static Long integer(CSVRecord row, String column) {
        String cell = row.get(column);
        return cell.isEmpty() ? null : Long.valueOf(cell);
    }
}
