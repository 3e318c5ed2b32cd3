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

import io.rhino.benchmarks.harness.LatencyReport.SecondLatency;
import io.rhino.benchmarks.harness.ThroughputReport.SecondThroughput;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVPrinter;

/**
 * Writes the per-second series of runs as one CSV: a row per run and second, joining the latency,
 * throughput and resource series on the second. A figure that is unknown for a second (no latency
 * sample, an unreadable {@code /proc} file) is an empty cell.
 */
public final class TimeSeriesCsv {

    /** The columns, in order. */
    public static final List<String> HEADER =
            List.of(
                    "second",
                    "sut",
                    "scenario",
                    "count",
                    "mean_ms",
                    "min_ms",
                    "p50_ms",
                    "p99_ms",
                    "max_ms",
                    "records_per_s",
                    "mb_per_s",
                    "cpu_percent",
                    "rss_bytes",
                    "disk_read_bytes_per_s",
                    "disk_write_bytes_per_s",
                    "net_rx_bytes_per_s",
                    "net_tx_bytes_per_s",
                    "repetition",
                    "phase");

    private TimeSeriesCsv() {}

    /** Writes {@code runs} to {@code file}, replacing it. */
    public static void write(Path file, List<RunData> runs) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        Files.createDirectories(parent);
        CSVFormat format =
                CSVFormat.DEFAULT.builder().setHeader(HEADER.toArray(String[]::new)).build();
        try (Writer writer = Files.newBufferedWriter(file, StandardCharsets.UTF_8);
                CSVPrinter csv = new CSVPrinter(writer, format)) {
            for (RunData run : runs) {
                for (Map.Entry<Long, Row> entry : rows(run).entrySet()) {
                    csv.printRecord(cells(run, entry.getKey(), entry.getValue()));
                }
            }
        }
    }

    /** The figures of one second of one run. */
    private static final class Row {
        LatencyStats latency;
        SecondThroughput throughput;
        ResourceSample resources;
    }

    private static TreeMap<Long, Row> rows(RunData run) {
        TreeMap<Long, Row> rows = new TreeMap<>();
        for (SecondLatency s : run.latency().perSecond()) {
            rows.computeIfAbsent(s.second(), k -> new Row()).latency = s.stats();
        }
        for (SecondThroughput s : run.throughput().perSecond()) {
            rows.computeIfAbsent(s.second(), k -> new Row()).throughput = s;
        }
        for (ResourceSample s : run.resources()) {
            rows.computeIfAbsent(s.second(), k -> new Row()).resources = s;
        }
        return rows;
    }

    private static List<Object> cells(RunData run, long second, Row row) {
        List<Object> cells = new ArrayList<>(HEADER.size());
        cells.add(second);
        cells.add(run.sut());
        cells.add(run.scenario());
        LatencyStats l = row.latency;
        cells.add(l == null ? "" : l.count());
        boolean hasLatency = l != null && !l.isEmpty();
        cells.add(hasLatency ? decimal(l.meanMs()) : "");
        cells.add(hasLatency ? l.minMs() : "");
        cells.add(hasLatency ? l.p50Ms() : "");
        cells.add(hasLatency ? l.p99Ms() : "");
        cells.add(hasLatency ? l.maxMs() : "");
        SecondThroughput t = row.throughput;
        cells.add(t == null ? "" : decimal(t.recordsPerSecond()));
        cells.add(t == null ? "" : decimal(t.megabytesPerSecond()));
        ResourceSample r = row.resources;
        cells.add(r == null ? "" : decimal(r.cpuPercent()));
        cells.add(r == null || r.rssBytes() == null ? "" : r.rssBytes());
        cells.add(r == null ? "" : decimal(r.diskReadBytesPerSecond()));
        cells.add(r == null ? "" : decimal(r.diskWriteBytesPerSecond()));
        cells.add(r == null ? "" : decimal(r.netRxBytesPerSecond()));
        cells.add(r == null ? "" : decimal(r.netTxBytesPerSecond()));
        cells.add(run.repetition());
        cells.add(phaseAt(run, run.startMillis() + second * 1000));
        return cells;
    }

    /** The phase in force at the start of a second. */
    static String phaseAt(RunData run, long atMillis) {
        String phase = "";
        for (TimeMark mark : run.latency().phaseMarks()) {
            if (mark.atMillis() <= atMillis) {
                phase = mark.label();
            }
        }
        return phase;
    }

    static String decimal(Double value) {
        return value == null || value.isNaN() ? "" : String.format(Locale.ROOT, "%.3f", value);
    }
}
