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

import static org.assertj.core.api.Assertions.assertThat;

import io.rhino.benchmarks.harness.RunData;
import io.rhino.benchmarks.harness.ScenarioRunner;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.commons.csv.CSVRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A smoke run of the maximum sustainable throughput search on NBQ8 with Rhino, two short steps at
 * rates far below what the machine sustains: each step is measured (produced and consumed) and the
 * highest sustained rate lands in the summary.
 */
class MaxThroughputScenarioITCase {

    @TempDir Path out;

    @Test
    void probesRatesAndReportsTheHighestSustained() throws Exception {
        ScenarioSettings settings =
                new ScenarioSettings(
                        "nbq8",
                        "fixed:0.1",
                        Duration.ZERO,
                        Duration.ZERO,
                        0,
                        Duration.ofSeconds(2),
                        0,
                        4,
                        16,
                        2,
                        1,
                        2,
                        Duration.ofHours(12),
                        42);
        MaxThroughputScenario scenario =
                Scenarios.maxThroughput(
                        settings, 0.1, Duration.ofSeconds(8), Duration.ofSeconds(5), 2);
        ScenarioRunner.Report report =
                new ScenarioRunner(out)
                        .printTo(new PrintStream(new ByteArrayOutputStream(), true))
                        .run(
                                List.of(scenario),
                                List.of(new RhinoSut(ClusterShape.defaultShape(), 42)));

        assertThat(report.failures()).isEmpty();
        RunData run = report.runs().get(0);
        assertThat(run.figures()).containsKey(MaxThroughputScenario.MAX_SUSTAINABLE);
        assertThat(run.figures().get(MaxThroughputScenario.MAX_SUSTAINABLE)).isIn(0.1, 0.2);

        List<CSVRecord> steps =
                ScenarioCsvs.records(out.resolve("nbq8-max-throughput").resolve("steps-rhino.csv"));
        assertThat(steps)
                .extracting(r -> r.get("target_mb_per_s"))
                .containsExactly("0.100", "0.200");
        for (CSVRecord step : steps) {
            double target = Double.parseDouble(step.get("target_mb_per_s"));
            assertThat(Double.parseDouble(step.get("produced_mb_per_s")))
                    .as("produced at %s MB/s", target)
                    .isGreaterThan(0.5 * target);
            // NBQ8 reads persons and auctions: 1,013 of every 2,485 bytes produced
            assertThat(Double.parseDouble(step.get("consumed_mb_per_s")))
                    .as("consumed at %s MB/s", target)
                    .isGreaterThan(0.2 * target);
        }
    }
}
