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

package io.rhino.flink.routing;

import java.util.List;
import org.apache.flink.runtime.execution.Environment;
import org.apache.flink.streaming.api.graph.NonChainedOutput;
import org.apache.flink.streaming.api.graph.StreamConfig;

/**
 * The parallelism the gates run at, as a router sees it: the subpartitions of its output to them.
 * The scheduler may run the gates at another parallelism than the job was built with (a restore at
 * another parallelism, the adaptive scheduler, parallelism overrides), and the job's configuration
 * still holds the built one; the network partition is what Flink itself trusts.
 */
final class GateParallelism {

    private GateParallelism() {}

    static int of(StreamConfig router, StreamConfig vertex, Environment env) {
        ClassLoader classLoader = env.getUserCodeClassLoader().asClassLoader();
        List<NonChainedOutput> toGates = router.getOperatorNonChainedOutputs(classLoader);
        if (toGates.size() != 1) {
            throw new IllegalStateException(
                    "A Rhino router has "
                            + toGates.size()
                            + " outputs to other tasks; it is built with one, to its gates.");
        }
        List<NonChainedOutput> outputs = vertex.getVertexNonChainedOutputs(classLoader);
        // the task's writers follow the order of the vertex's outputs (StreamTask)
        for (int index = 0; index < outputs.size(); index++) {
            if (outputs.get(index).getDataSetId().equals(toGates.get(0).getDataSetId())) {
                return env.getWriter(index).getNumberOfSubpartitions();
            }
        }
        throw new IllegalStateException(
                "A Rhino router's output to its gates is not among its task's outputs.");
    }
}
