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

import io.rhino.benchmarks.harness.ScenarioRunner;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A smoke run of the skewed scenario on NBQ5 with the auto-balancing system, small and short: the
 * imbalance of the skewed operator is sampled every second (above 1: the keys are skewed) and the
 * stacked latency and imbalance PNG is written.
 */
class SkewedScenarioITCase {

    @TempDir Path out;

    @Test
    void samplesTheImbalanceOfASkewedRunAndDrawsIt() throws Exception {
        ScenarioSettings settings =
                new ScenarioSettings(
                        "nbq5",
                        "fixed:0.5",
                        Duration.ofSeconds(12),
                        Duration.ofSeconds(4),
                        1,
                        Duration.ofSeconds(2),
                        0,
                        4,
                        16,
                        2,
                        1,
                        2,
                        Duration.ofHours(12),
                        42);
        ScenarioRunner.Report report =
                SmokeRuns.quietRunner(out)
                        .run(
                                List.of(Scenarios.skewed(settings, 1.0)),
                                List.of(
                                        new AutoBalancingRhinoSut(
                                                ClusterShape.defaultShape(), 42)));

        assertThat(report.failures()).isEmpty();
        Path dir = out.resolve("nbq5-skewed");
        List<String> samples =
                Files.readAllLines(dir.resolve("imbalance-rhino-auto-balance-rep1.csv"));
        assertThat(samples.get(0)).isEqualTo("second,imbalance");
        assertThat(samples.size()).as("seconds sampled").isGreaterThan(5);
        double highest =
                samples.stream()
                        .skip(1)
                        .mapToDouble(line -> Double.parseDouble(line.split(",")[1]))
                        .max()
                        .orElse(0);
        assertThat(highest).as("the skewed operator's highest max/mean load").isGreaterThan(1.0);
        assertThat(ImageIO.read(dir.resolve("load-balance.png").toFile()).getHeight())
                .as("latency and imbalance stacked")
                .isGreaterThan(700);
    }
}
