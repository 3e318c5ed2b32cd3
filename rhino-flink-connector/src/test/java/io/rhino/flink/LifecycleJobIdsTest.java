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

package io.rhino.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.rhino.flink.testjobs.TestPipelines.Input;
import java.util.Set;
import java.util.TreeSet;
import org.apache.flink.runtime.OperatorIDPair;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobgraph.JobVertex;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;

/**
 * The randomized lifecycle campaign resubmits its job at other parallelisms from savepoints: every
 * operator must keep its id at every parallelism. Its sources run at a parallelism of their own, so
 * what they chain to, and with it every generated id downstream, changed with the job's parallelism
 * until they had uids; a stop-with-savepoint at 3 then failed to restore at 2 ("Cannot map
 * checkpoint/savepoint state for operator ... to the new program").
 */
class LifecycleJobIdsTest {

    @Test
    void everyOperatorKeepsItsIdAtEveryParallelism() {
        Set<String> atThree = operatorIds(3);
        for (int parallelism = 1; parallelism <= 6; parallelism++) {
            assertThat(operatorIds(parallelism))
                    .as("operator ids at parallelism %d vs 3", parallelism)
                    .isEqualTo(atThree);
        }
    }

    private static Set<String> operatorIds(int parallelism) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        RandomLifecycleCampaign.build(env, new Input(1_000, 97, 500, 2), "ids", parallelism);
        JobGraph job = env.getStreamGraph().getJobGraph();
        Set<String> ids = new TreeSet<>();
        for (JobVertex vertex : job.getVertices()) {
            for (OperatorIDPair operator : vertex.getOperatorIDs()) {
                ids.add(operator.getGeneratedOperatorID().toString());
            }
        }
        return ids;
    }
}
