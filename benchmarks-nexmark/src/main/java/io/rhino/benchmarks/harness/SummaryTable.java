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
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVPrinter;

/**
 * A table in the style of the paper's Table 5.1: one row per group (e.g. state size) and system
 * under test, with mean ± standard deviation over the repetitions of the timings the caller names
 * (e.g. scheduling / state fetching / state loading, in seconds), of other figures named with their
 * unit (the input throughput of every run, a maximum sustainable rate), and of the p99 and maximum
 * latency of the latency phases the caller names. Rows and columns keep the order in which they are
 * given; a cell without measurements shows "–".
 */
public final class SummaryTable {

    /** Figures every run has: what the job consumed, on average over the run. */
    public static final String INPUT_RECORDS = "input (rec/s)";

    public static final String INPUT_MEGABYTES = "input (MB/s)";

    private final List<String> timingColumns;
    private final List<String> figureColumns;
    private final List<String> latencyPhases;
    private final Map<String, Map<String, Map<String, List<Double>>>> cells = new LinkedHashMap<>();

    /**
     * @param timingColumns names of the timings (keys of {@link RunData#timingsSeconds()})
     * @param figureColumns names of other figures, with their unit (keys of {@link
     *     RunData#figures()}, {@link #INPUT_RECORDS}, {@link #INPUT_MEGABYTES})
     * @param latencyPhases latency phases whose p99 and max get columns ({@link PhaseCsv#WHOLE_RUN}
     *     for the whole run)
     */
    public SummaryTable(
            List<String> timingColumns, List<String> figureColumns, List<String> latencyPhases) {
        this.timingColumns = List.copyOf(timingColumns);
        this.figureColumns = List.copyOf(figureColumns);
        this.latencyPhases = List.copyOf(latencyPhases);
    }

    /** A table with every timing and latency phase that appears in {@code runs}, in order. */
    public static SummaryTable of(List<RunData> runs) {
        List<String> timings = new ArrayList<>();
        List<String> figures = new ArrayList<>(List.of(INPUT_RECORDS, INPUT_MEGABYTES));
        List<String> phases = new ArrayList<>();
        phases.add(PhaseCsv.WHOLE_RUN);
        for (RunData run : runs) {
            run.timingsSeconds().keySet().stream()
                    .filter(k -> !timings.contains(k))
                    .forEach(timings::add);
            run.figures().keySet().stream().filter(k -> !figures.contains(k)).forEach(figures::add);
            run.latency().phases().keySet().stream()
                    .filter(k -> !phases.contains(k))
                    .forEach(phases::add);
        }
        SummaryTable table = new SummaryTable(timings, figures, phases);
        runs.forEach(table::add);
        return table;
    }

    /** Adds one repetition of one system under test. */
    public SummaryTable add(RunData run) {
        Map<String, LatencyStats> latency = new LinkedHashMap<>(run.latency().phases());
        latency.put(PhaseCsv.WHOLE_RUN, run.latency().total());
        return add(run.group(), run.sut(), run.timingsSeconds(), figuresOf(run), latency);
    }

    /** The run's figures with {@link #INPUT_RECORDS} and {@link #INPUT_MEGABYTES}, if measured. */
    static Map<String, Double> figuresOf(RunData run) {
        Map<String, Double> figures = new LinkedHashMap<>(run.figures());
        if (run.throughput().seconds() > 0) {
            figures.put(INPUT_RECORDS, run.throughput().recordsPerSecond());
            figures.put(INPUT_MEGABYTES, run.throughput().megabytesPerSecond());
        }
        return figures;
    }

    /** Adds one repetition of one system under test. */
    public SummaryTable add(
            String group,
            String sut,
            Map<String, Double> timingsSeconds,
            Map<String, Double> figures,
            Map<String, LatencyStats> latencyByPhase) {
        Map<String, List<Double>> row =
                cells.computeIfAbsent(group, g -> new LinkedHashMap<>())
                        .computeIfAbsent(sut, s -> new LinkedHashMap<>());
        for (String column : timingColumns) {
            addValue(row, column, timingsSeconds.get(column));
        }
        for (String column : figureColumns) {
            addValue(row, column, figures.get(column));
        }
        for (String phase : latencyPhases) {
            LatencyStats stats = latencyByPhase.get(phase);
            if (stats != null && !stats.isEmpty()) {
                row.computeIfAbsent(p99Column(phase), c -> new ArrayList<>())
                        .add((double) stats.p99Ms());
                row.computeIfAbsent(maxColumn(phase), c -> new ArrayList<>())
                        .add((double) stats.maxMs());
            }
        }
        return this;
    }

    private static void addValue(Map<String, List<Double>> row, String column, Double value) {
        if (value != null && !value.isNaN()) {
            row.computeIfAbsent(column, c -> new ArrayList<>()).add(value);
        }
    }

    /** The column headers after "group" and "SUT". */
    public List<String> columns() {
        List<String> columns = new ArrayList<>();
        timingColumns.forEach(c -> columns.add(c + " (s)"));
        columns.addAll(figureColumns);
        latencyPhases.forEach(
                p -> {
                    columns.add(p99Column(p));
                    columns.add(maxColumn(p));
                });
        return columns;
    }

    /** The figure of one cell; n = 0 when nothing was measured. */
    public MeanStd cell(String group, String sut, String column) {
        List<Double> values =
                cells.getOrDefault(group, Map.of())
                        .getOrDefault(sut, Map.of())
                        .get(stripUnit(column));
        return MeanStd.of(values == null ? List.of() : values);
    }

    /** The table in Markdown; the group is only printed on its first row, as in the paper. */
    public String toMarkdown() {
        List<String> columns = columns();
        StringBuilder md = new StringBuilder("| group | SUT |");
        columns.forEach(c -> md.append(' ').append(c).append(" |"));
        md.append("\n|---|---|");
        columns.forEach(c -> md.append("---:|"));
        md.append('\n');
        cells.forEach(
                (group, suts) -> {
                    boolean first = true;
                    for (String sut : suts.keySet()) {
                        md.append("| ")
                                .append(first ? group : "")
                                .append(" | ")
                                .append(sut)
                                .append(" |");
                        for (String column : columns) {
                            md.append(' ')
                                    .append(cell(group, sut, column).format(decimals(column)))
                                    .append(" |");
                        }
                        md.append('\n');
                        first = false;
                    }
                });
        return md.toString();
    }

    /** Writes the Markdown table, replacing {@code file}. */
    public void writeMarkdown(Path file) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        Files.writeString(file, toMarkdown(), StandardCharsets.UTF_8);
    }

    /**
     * Writes the table as CSV: {@code group,sut} and, per column, {@code <column>_mean}, {@code
     * <column>_stddev} and {@code <column>_n}; unknown figures are empty.
     */
    public void writeCsv(Path file) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        List<String> header = new ArrayList<>(List.of("group", "sut"));
        for (String column : columns()) {
            String name = csvName(column);
            header.add(name + "_mean");
            header.add(name + "_stddev");
            header.add(name + "_n");
        }
        CSVFormat format =
                CSVFormat.DEFAULT.builder().setHeader(header.toArray(String[]::new)).build();
        try (Writer writer = Files.newBufferedWriter(file, StandardCharsets.UTF_8);
                CSVPrinter csv = new CSVPrinter(writer, format)) {
            for (var group : cells.entrySet()) {
                for (String sut : group.getValue().keySet()) {
                    List<Object> record = new ArrayList<>(List.of(group.getKey(), sut));
                    for (String column : columns()) {
                        MeanStd m = cell(group.getKey(), sut, column);
                        record.add(m.n() == 0 ? "" : number(m.mean()));
                        record.add(m.n() == 0 ? "" : number(m.stddev()));
                        record.add(m.n());
                    }
                    csv.printRecord(record);
                }
            }
        }
    }

    private static String p99Column(String phase) {
        return "p99 " + phase + " (ms)";
    }

    private static String maxColumn(String phase) {
        return "max " + phase + " (ms)";
    }

    /** Timing columns are shown with their unit but stored without it. */
    private String stripUnit(String column) {
        for (String timing : timingColumns) {
            if (column.equals(timing + " (s)")) {
                return timing;
            }
        }
        return column;
    }

    private int decimals(String column) {
        if (column.endsWith("(ms)") || column.endsWith("(rec/s)")) {
            return 0;
        }
        return column.endsWith("(MB/s)") ? 2 : 1;
    }

    private static String csvName(String column) {
        return column.toLowerCase(Locale.ROOT)
                .replaceAll("[^a-z0-9]+", "_")
                .replaceAll("^_|_$", "");
    }

    private static String number(double value) {
        return String.format(Locale.ROOT, "%.6f", value);
    }
}
