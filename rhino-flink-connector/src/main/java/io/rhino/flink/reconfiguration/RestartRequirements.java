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

package io.rhino.flink.reconfiguration;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;

/**
 * A job's resource requirements as Flink's REST API gives them (FLIP-291: per job vertex, {@code
 * {"parallelism": {"lowerBound": l, "upperBound": u}}}), with the gate's vertex raised to a new
 * parallelism. Only the upper bound rises: the adaptive scheduler then scales up as far as free
 * slots allow, and never stops the job to wait for slots, as a raised lower bound would.
 */
final class RestartRequirements {

    private RestartRequirements() {}

    static String path(String jobId) {
        return "/jobs/" + jobId + "/resource-requirements";
    }

    /**
     * The requirements with {@code vertexId}'s upper bound at {@code parallelism}.
     *
     * @throws IllegalArgumentException naming what is missing if the vertex is not among them
     */
    static ObjectNode raised(JsonNode current, String vertexId, int parallelism) {
        if (!current.isObject()) {
            throw new IllegalArgumentException(
                    "Flink's resource requirements are not a JSON object: " + current);
        }
        ObjectNode raised = ((ObjectNode) current).deepCopy();
        JsonNode vertex = raised.get(vertexId);
        if (vertex == null || !(vertex.get("parallelism") instanceof ObjectNode bounds)) {
            throw new IllegalArgumentException(
                    "Flink's resource requirements name no job vertex "
                            + vertexId
                            + " (the Rhino gate's); they name "
                            + vertexIds(raised));
        }
        bounds.put("upperBound", parallelism);
        if (bounds.path("lowerBound").asInt(1) > parallelism) {
            bounds.put("lowerBound", parallelism);
        }
        return raised;
    }

    private static List<String> vertexIds(ObjectNode node) {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
