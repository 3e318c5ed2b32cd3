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

import io.rhino.benchmarks.harness.Reconfiguration;
import io.rhino.benchmarks.harness.RunData;
import io.rhino.benchmarks.harness.ScenarioContext;
import io.rhino.benchmarks.harness.ScenarioRunner;
import io.rhino.benchmarks.harness.SystemUnderTest;
import io.rhino.handover.HandoverResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import javax.imageio.ImageIO;
import org.apache.commons.csv.CSVRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A smoke run of the load-balancing scenario on NBQ8 with both systems, small and short: checks the
 * behaviour (Rhino's handover completed, both systems produced results before and after the
 * reconfiguration, Flink restarted from its savepoint) and the outputs.
 */
class LoadBalancingScenarioITCase {

    @TempDir Path out;

    @Test
    void rhinoMovesVnodesAndFlinkRescalesWhileBothKeepProducingResults() throws Exception {
        ScenarioSettings settings = SmokeRuns.nbq8();
        NexmarkScenario scenario = Scenarios.create("load-balancing", settings);
        RhinoSut rhino = new RhinoSut(ClusterShape.defaultShape(), 42);
        FlinkSut flink = new FlinkSut(ClusterShape.defaultShape());
        List<HandoverResult> handovers = new ArrayList<>();

        ScenarioRunner.Report report =
                SmokeRuns.quietRunner(out)
                        .run(
                                List.of(new KeepHandovers(scenario, handovers)),
                                List.of(rhino, flink));

        assertThat(report.failures()).isEmpty();
        assertThat(handovers).isNotEmpty();
        for (HandoverResult result : handovers) {
            assertThat(result.outcome()).isEqualTo(HandoverResult.Outcome.COMPLETED);
            assertThat(result.plan().moves()).hasSize(4);
        }
        Map<String, RunData> bySut =
                report.runs().stream().collect(Collectors.toMap(RunData::sut, Function.identity()));
        assertThat(bySut).containsOnlyKeys("rhino", "flink");
        for (RunData run : bySut.values()) {
            assertThat(run.reconfigurations()).hasSize(1);
            // results before and after the reconfiguration
            assertThat(run.latency().phases().get(ScenarioContext.STEADY).count())
                    .as("%s steady results", run.sut())
                    .isPositive();
            assertThat(run.latency().phases().get(ScenarioContext.AFTER_RECONFIGURATION).count())
                    .as("%s results after the reconfiguration", run.sut())
                    .isPositive();
            // NBQ8 consumes persons (206 B) and auctions (269 B) from Kafka
            assertThat(run.throughput().records()).as("%s input", run.sut()).isPositive();
            assertThat((double) run.throughput().bytes() / run.throughput().records())
                    .as("%s bytes per input record", run.sut())
                    .isBetween(206.0, 269.0);
        }
        assertThat(bySut.get("rhino").reconfigurations().get(0).label())
                .isEqualTo(Reconfiguration.REBALANCE);
        assertThat(bySut.get("rhino").timingsSeconds()).containsKey("handover total");
        assertThat(bySut.get("flink").reconfigurations().get(0).label())
                .isEqualTo(Reconfiguration.SCALE_OUT);
        assertThat(bySut.get("flink").timingsSeconds())
                .containsKeys("savepoint", "restore until processing");

        Path dir = out.resolve("nbq8-load-balancing");
        List<CSVRecord> rows = ScenarioCsvs.records(dir.resolve("phases.csv"));
        for (String sut : List.of("rhino", "flink")) {
            assertThat(rows)
                    .filteredOn(r -> r.get("sut").equals(sut))
                    .filteredOn(r -> r.get("kind").equals("reconfiguration"))
                    .hasSize(1);
        }
        assertThat(Files.readString(dir.resolve("timeseries.csv")))
                .contains(",rhino,")
                .contains(",flink,");
        assertThat(ImageIO.read(dir.resolve("latency-rep1.png").toFile())).isNotNull();
        assertThat(dir.resolve("resources-rep1.png")).isNotEmptyFile();
        assertThat(Files.readString(dir.resolve("summary.md")))
                .contains("| rhino |")
                .contains("| flink |");
    }

    /** Keeps the Rhino system's handover results for the assertions. */
    private record KeepHandovers(NexmarkScenario scenario, List<HandoverResult> handovers)
            implements io.rhino.benchmarks.harness.Scenario {
        @Override
        public String name() {
            return scenario.name();
        }

        @Override
        public io.rhino.benchmarks.harness.ScenarioResult run(
                SystemUnderTest sut, ScenarioContext context) throws Exception {
            try {
                return scenario.run(sut, context);
            } finally {
                if (sut instanceof RhinoSut rhino) {
                    rhino.handovers().forEach(h -> handovers.add(h.result()));
                }
            }
        }
    }
}
