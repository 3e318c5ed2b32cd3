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

import io.rhino.benchmarks.nexmark.kafka.NexmarkTopics;
import io.rhino.benchmarks.nexmark.queries.Keying;
import io.rhino.benchmarks.nexmark.queries.Variant;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobgraph.JobVertex;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The scenarios find each keyed operator's task in the jobs they really run. */
class TaskManagerPlacementTest {

    private static final int PARALLELISM = 4;

    @ParameterizedTest(name = "{0}, {1}, state {2} bytes")
    @CsvSource({
        "nbq8, RHINO, 0",
        "nbq8, RHINO, 1000000000",
        "nbq8, PLAIN, 1000000000",
        "nbq5, RHINO, 0",
        "nbqx, RHINO, 0",
        "nbqx, PLAIN, 0"
    })
    void everyKeyedOperatorIsFoundAtItsParallelism(String query, Variant variant, long state) {
        NexmarkWorkload workload =
                new NexmarkWorkload(
                        query,
                        ScenarioSettings.rateSchedule("fixed:0.5"),
                        ScenarioSettings.generator(1),
                        1,
                        1,
                        PARALLELISM,
                        PARALLELISM,
                        16,
                        Duration.ofSeconds(5),
                        state,
                        Duration.ofSeconds(10));
        JobGraph job =
                QueryJobs.build(
                        StreamExecutionEnvironment.getExecutionEnvironment(),
                        workload,
                        new Keying(variant, PARALLELISM, 16),
                        "localhost:9092",
                        NexmarkTopics.withPrefix("nexmark-"),
                        "run");
        List<String> names = new ArrayList<>();
        for (JobVertex vertex : job.getVertices()) {
            names.add(vertex.getName());
        }

        for (String operator : QueryJobs.keyedOperators(query)) {
            String found = TaskManagerPlacement.keyedTaskName(names, operator).orElseThrow();
            JobVertex task = null;
            for (JobVertex vertex : job.getVertices()) {
                if (vertex.getName().equals(found)) {
                    task = vertex;
                }
            }
            assertThat(task.getParallelism())
                    .as("%s among %s", found, names)
                    .isEqualTo(PARALLELISM);
            assertThat(found).as("among %s", names).doesNotStartWith("Source");
        }
    }
}
