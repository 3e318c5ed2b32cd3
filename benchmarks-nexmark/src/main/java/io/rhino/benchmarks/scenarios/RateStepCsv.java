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

package io.rhino.benchmarks.scenarios;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVPrinter;

/** The steps of a maximum-throughput search, one CSV row each, appended as they end. */
final class RateStepCsv {

    private final Path csv;

    RateStepCsv(Path csv) {
        this.csv = csv;
    }

    void append(String sut, int repetition, RateStep step) throws IOException {
        boolean fresh = !Files.exists(csv);
        Files.createDirectories(csv.toAbsolutePath().getParent());
        CSVFormat format =
                fresh
                        ? CSVFormat.DEFAULT
                                .builder()
                                .setHeader(
                                        "sut",
                                        "repetition",
                                        "target_mb_per_s",
                                        "produced_mb_per_s",
                                        "consumed_mb_per_s",
                                        "produced_input_records_per_s",
                                        "consumed_records_per_s",
                                        "median_p99_ms",
                                        "sustained")
                                .build()
                        : CSVFormat.DEFAULT;
        try (Writer writer =
                        Files.newBufferedWriter(
                                csv,
                                StandardCharsets.UTF_8,
                                StandardOpenOption.CREATE,
                                StandardOpenOption.APPEND);
                CSVPrinter printer = new CSVPrinter(writer, format)) {
            printer.printRecord(
                    sut,
                    repetition,
                    MaxThroughputScenario.format(step.targetMegabytesPerSecond()),
                    MaxThroughputScenario.format(step.producedMegabytesPerSecond()),
                    MaxThroughputScenario.format(step.consumedMegabytesPerSecond()),
                    Math.round(step.producedInputRecordsPerSecond()),
                    Math.round(step.consumedRecordsPerSecond()),
                    step.medianP99Ms(),
                    step.sustained());
        }
    }
}
