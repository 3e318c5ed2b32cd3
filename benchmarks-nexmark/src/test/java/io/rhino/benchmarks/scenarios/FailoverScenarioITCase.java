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

import io.rhino.benchmarks.harness.PhaseTimings;
import io.rhino.benchmarks.harness.Reconfiguration;
import io.rhino.benchmarks.harness.RunData;
import io.rhino.benchmarks.harness.ScenarioContext;
import io.rhino.benchmarks.harness.ScenarioRunner;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A smoke run of the failover scenario on NBQ8, small and short: the TaskManager of the join's
 * subtask 0 is killed under replicated Rhino and under plain Flink, and both jobs recover on the
 * TaskManagers left and produce results again, with the recovery's steps timed.
 */
class FailoverScenarioITCase {

    @TempDir Path out;

    @Test
    void replicatedRhinoAndFlinkRecoverFromALostTaskManager() throws Exception {
        ScenarioSettings settings = SmokeRuns.nbq8();
        NexmarkScenario scenario = Scenarios.create("failover", settings);

        ScenarioRunner.Report report =
                SmokeRuns.quietRunner(out)
                        .run(
                                List.of(scenario),
                                List.of(
                                        new ReplicatedRhinoSut(ClusterShape.defaultShape(), 42),
                                        new FlinkSut(ClusterShape.defaultShape())));

        assertThat(report.failures()).isEmpty();
        Map<String, RunData> bySut =
                report.runs().stream().collect(Collectors.toMap(RunData::sut, Function.identity()));
        assertThat(bySut).containsOnlyKeys("rhino-replicated", "flink");
        for (RunData run : bySut.values()) {
            assertThat(run.reconfigurations()).hasSize(1);
            assertThat(run.reconfigurations().get(0).label()).isEqualTo(Reconfiguration.FAILURE);
            assertThat(run.timingsSeconds())
                    .as("%s recovery steps", run.sut())
                    .containsKeys(
                            TaskManagerFailure.DETECTION,
                            PhaseTimings.SCHEDULING,
                            TaskManagerFailure.RESTORE_UNTIL_PROCESSING,
                            TaskManagerFailure.CATCH_UP,
                            TaskManagerFailure.RESTORED_CHECKPOINT_AGE);
            assertThat(run.timingsSeconds().get(TaskManagerFailure.RESTORED_CHECKPOINT_AGE))
                    .as("%s: seconds from the restored checkpoint's trigger to the kill", run.sut())
                    .isPositive();
            assertThat(run.latency().phases().get(ScenarioContext.STEADY).count())
                    .as("%s results before the failure", run.sut())
                    .isPositive();
            assertThat(run.latency().phases().get(ScenarioContext.AFTER_RECONFIGURATION).count())
                    .as("%s results after the failure", run.sut())
                    .isPositive();
        }
        assertThat(Files.readString(out.resolve("nbq8-failover").resolve("summary.md")))
                .contains("| rhino-replicated |")
                .contains("| flink |");
    }
}
