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
import org.apache.commons.math3.distribution.TDistribution;

/**
 * Each system's figures as ratios to a baseline system's in the same group and repetition, with the
 * mean, standard deviation and 95% confidence interval (Student's t) of those ratios, and what the
 * interval decides about 1.0. Pairing by repetition matters: the runner alternates the systems
 * within a repetition, so a pair ran minutes apart on the same machine, and slow drifts of a shared
 * two-core machine (page cache, compactions of earlier runs' disks, thermal state) cancel in the
 * ratio instead of widening both systems' spreads.
 */
public final class RatioReport {

    /** The figures compared when a run has them (steady windows, rate searches). */
    public static final List<String> COMPARED =
            List.of(
                    WindowCost.CONSUMED,
                    WindowCost.PROCESS_CPU,
                    WindowCost.JOB_CPU,
                    SummaryTable.INPUT_RECORDS);

    /** The system the others are compared with: stock Flink. */
    public static final String DEFAULT_BASELINE = "flink";

    private static final double CONFIDENCE = 0.95;

    /**
     * One system's figure against the baseline's.
     *
     * @param ratios one per repetition both systems measured, in repetition order
     */
    public record Row(String group, String sut, String figure, List<Double> ratios) {

        public Row {
            ratios = List.copyOf(ratios);
        }

        public MeanStd meanStd() {
            return MeanStd.of(ratios);
        }

        /** The 95% interval of the mean ratio; NaN bounds below two repetitions. */
        public double[] interval() {
            MeanStd m = meanStd();
            if (m.n() < 2) {
                return new double[] {Double.NaN, Double.NaN};
            }
            double t =
                    new TDistribution(m.n() - 1)
                            .inverseCumulativeProbability(1 - (1 - CONFIDENCE) / 2);
            double half = t * m.stddev() / Math.sqrt(m.n());
            return new double[] {m.mean() - half, m.mean() + half};
        }

        /** "above 1.0" or "below 1.0" when the interval excludes 1.0, else "undecided". */
        public String verdict() {
            double[] bounds = interval();
            if (Double.isNaN(bounds[0])) {
                return "undecided (one repetition)";
            }
            if (bounds[0] > 1.0) {
                return "above 1.0";
            }
            if (bounds[1] < 1.0) {
                return "below 1.0";
            }
            return "undecided (interval holds 1.0)";
        }
    }

    private final String baseline;
    private final List<Row> rows;

    private RatioReport(String baseline, List<Row> rows) {
        this.baseline = baseline;
        this.rows = List.copyOf(rows);
    }

    /**
     * The ratios of every other system's {@link #COMPARED} figures to {@code baseline}'s; empty
     * when the baseline did not run.
     */
    public static RatioReport of(List<RunData> runs, String baseline) {
        Map<String, Map<String, Map<Integer, RunData>>> byGroup = new LinkedHashMap<>();
        for (RunData run : runs) {
            byGroup.computeIfAbsent(run.group(), g -> new LinkedHashMap<>())
                    .computeIfAbsent(run.sut(), s -> new LinkedHashMap<>())
                    .put(run.repetition(), run);
        }
        List<Row> rows = new ArrayList<>();
        byGroup.forEach(
                (group, bySut) -> {
                    Map<Integer, RunData> base = bySut.get(baseline);
                    if (base == null) {
                        return;
                    }
                    bySut.forEach(
                            (sut, byRep) -> {
                                if (sut.equals(baseline)) {
                                    return;
                                }
                                for (String figure : COMPARED) {
                                    List<Double> ratios = ratios(byRep, base, figure);
                                    if (!ratios.isEmpty()) {
                                        rows.add(new Row(group, sut, figure, ratios));
                                    }
                                }
                            });
                });
        return new RatioReport(baseline, rows);
    }

    private static List<Double> ratios(
            Map<Integer, RunData> runs, Map<Integer, RunData> base, String figure) {
        List<Double> ratios = new ArrayList<>();
        runs.forEach(
                (rep, run) -> {
                    RunData baseRun = base.get(rep);
                    Double value = SummaryTable.figuresOf(run).get(figure);
                    Double baseValue =
                            baseRun == null ? null : SummaryTable.figuresOf(baseRun).get(figure);
                    if (value != null && baseValue != null && baseValue != 0) {
                        ratios.add(value / baseValue);
                    }
                });
        return ratios;
    }

    public List<Row> rows() {
        return rows;
    }

    /** The report in Markdown: a row per group, system and figure. */
    public String toMarkdown() {
        StringBuilder md =
                new StringBuilder(
                        "| group | SUT | figure | ratio to "
                                + baseline
                                + " per repetition | mean ± sd | 95% interval | verdict |\n"
                                + "|---|---|---|---|---:|---:|---|\n");
        for (Row row : rows) {
            double[] bounds = row.interval();
            md.append("| ")
                    .append(row.group())
                    .append(" | ")
                    .append(row.sut())
                    .append(" | ")
                    .append(row.figure())
                    .append(" | ")
                    .append(
                            String.join(
                                    ", ", row.ratios().stream().map(RatioReport::ratio).toList()))
                    .append(" | ")
                    .append(row.meanStd().format(3))
                    .append(" | ")
                    .append(
                            Double.isNaN(bounds[0])
                                    ? "–"
                                    : ratio(bounds[0]) + "–" + ratio(bounds[1]))
                    .append(" | ")
                    .append(row.verdict())
                    .append(" |\n");
        }
        return md.toString();
    }

    /** Writes {@code ratios.md} and {@code ratios.csv} into {@code dir}; nothing without rows. */
    public List<Path> write(Path dir) throws IOException {
        if (rows.isEmpty()) {
            return List.of();
        }
        Files.createDirectories(dir);
        Path markdown = dir.resolve("ratios.md");
        Files.writeString(markdown, toMarkdown(), StandardCharsets.UTF_8);
        Path csv = dir.resolve("ratios.csv");
        try (Writer writer = Files.newBufferedWriter(csv, StandardCharsets.UTF_8);
                CSVPrinter printer =
                        CSVFormat.DEFAULT
                                .builder()
                                .setHeader(
                                        "group",
                                        "sut",
                                        "baseline",
                                        "figure",
                                        "ratios",
                                        "mean",
                                        "stddev",
                                        "n",
                                        "low95",
                                        "high95",
                                        "verdict")
                                .build()
                                .print(writer)) {
            for (Row row : rows) {
                MeanStd m = row.meanStd();
                double[] bounds = row.interval();
                printer.printRecord(
                        row.group(),
                        row.sut(),
                        baseline,
                        row.figure(),
                        String.join(" ", row.ratios().stream().map(RatioReport::ratio).toList()),
                        m.mean(),
                        m.stddev(),
                        m.n(),
                        Double.isNaN(bounds[0]) ? "" : bounds[0],
                        Double.isNaN(bounds[1]) ? "" : bounds[1],
                        row.verdict());
            }
        }
        return List.of(markdown, csv);
    }

    private static String ratio(double value) {
        return String.format(Locale.ROOT, "%.3f", value);
    }
}
