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
import java.util.List;
import java.util.Map;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVPrinter;

/**
 * Writes the latency summary of each phase of each run, plus a row for the whole run (phase {@value
 * #WHOLE_RUN}), and one row per reconfiguration mark.
 */
public final class PhaseCsv {

    /** Phase name of the whole-run rows. */
    public static final String WHOLE_RUN = "all";

    /** The columns, in order. */
    public static final List<String> HEADER =
            List.of(
                    "sut",
                    "scenario",
                    "repetition",
                    "group",
                    "kind",
                    "name",
                    "start_s",
                    "count",
                    "mean_ms",
                    "min_ms",
                    "p50_ms",
                    "p99_ms",
                    "p999_ms",
                    "max_ms");

    private PhaseCsv() {}

    /** Writes {@code runs} to {@code file}, replacing it. */
    public static void write(Path file, List<RunData> runs) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        CSVFormat format =
                CSVFormat.DEFAULT.builder().setHeader(HEADER.toArray(String[]::new)).build();
        try (Writer writer = Files.newBufferedWriter(file, StandardCharsets.UTF_8);
                CSVPrinter csv = new CSVPrinter(writer, format)) {
            for (RunData run : runs) {
                LatencyReport latency = run.latency();
                printLatency(csv, run, "run", WHOLE_RUN, "0.000", latency.total());
                for (Map.Entry<String, LatencyStats> phase : latency.phases().entrySet()) {
                    String start =
                            latency.phaseMarks().stream()
                                    .filter(m -> m.label().equals(phase.getKey()))
                                    .findFirst()
                                    .map(
                                            m ->
                                                    TimeSeriesCsv.decimal(
                                                            m.secondsSince(run.startMillis())))
                                    .orElse("0.000");
                    printLatency(csv, run, "phase", phase.getKey(), start, phase.getValue());
                }
                for (TimeMark mark : run.reconfigurations()) {
                    csv.printRecord(
                            run.sut(),
                            run.scenario(),
                            run.repetition(),
                            run.group(),
                            "reconfiguration",
                            mark.label(),
                            TimeSeriesCsv.decimal(mark.secondsSince(run.startMillis())),
                            "",
                            "",
                            "",
                            "",
                            "",
                            "",
                            "");
                }
            }
        }
    }

    private static void printLatency(
            CSVPrinter csv, RunData run, String kind, String name, String start, LatencyStats s)
            throws IOException {
        boolean any = !s.isEmpty();
        csv.printRecord(
                run.sut(),
                run.scenario(),
                run.repetition(),
                run.group(),
                kind,
                name,
                start,
                s.count(),
                any ? TimeSeriesCsv.decimal(s.meanMs()) : "",
                any ? s.minMs() : "",
                any ? s.p50Ms() : "",
                any ? s.p99Ms() : "",
                any ? s.p999Ms() : "",
                any ? s.maxMs() : "");
    }
}
