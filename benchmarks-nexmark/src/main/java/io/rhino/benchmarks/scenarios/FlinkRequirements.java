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

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.flink.runtime.executiongraph.AccessExecutionGraph;
import org.apache.flink.runtime.executiongraph.AccessExecutionJobVertex;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Flink's rescale through the adaptive scheduler (FLIP-291): the job's resource requirements with
 * the keyed operator's vertex at a new upper bound, every other vertex as it was.
 */
final class FlinkRequirements {

    private static final Logger LOG = LoggerFactory.getLogger(FlinkRequirements.class);

    private FlinkRequirements() {}

    /** Sets the upper bound of the vertex running {@code operator} to {@code parallelism}. */
    static void require(JsonHttp flink, Deployment deployment, String operator, int parallelism)
            throws Exception {
        String vertex = vertexId(deployment, operator);
        String path = "/jobs/" + deployment.jobId() + "/resource-requirements";
        ObjectNode requirements = (ObjectNode) flink.get(path).deepCopy();
        JsonNode bounds = requirements.path(vertex).path("parallelism");
        if (!(bounds instanceof ObjectNode parallelismBounds)) {
            throw new IllegalStateException(
                    "Flink has no requirements for vertex " + vertex + ": " + requirements);
        }
        parallelismBounds.put(
                "lowerBound", Math.min(parallelismBounds.path("lowerBound").asInt(1), parallelism));
        parallelismBounds.put("upperBound", parallelism);
        flink.send("PUT", path, requirements.toString());
        LOG.info("Asked Flink for {} at parallelism {}: {}", operator, parallelism, requirements);
    }

    /** The id of the job vertex whose task runs the keyed operator. */
    static String vertexId(Deployment deployment, String operator) throws Exception {
        AccessExecutionGraph graph =
                deployment
                        .cluster()
                        .miniCluster()
                        .getExecutionGraph(deployment.jobId())
                        .get(1, TimeUnit.MINUTES);
        List<String> names = new ArrayList<>();
        graph.getAllVertices().values().forEach(v -> names.add(v.getName()));
        String name =
                TaskManagerPlacement.keyedTaskName(names, operator)
                        .orElseThrow(() -> new IllegalStateException("No task runs " + operator));
        for (AccessExecutionJobVertex v : graph.getAllVertices().values()) {
            if (v.getName().equals(name)) {
                return v.getJobVertexId().toHexString();
            }
        }
        throw new IllegalStateException("No vertex named " + name);
    }
}
