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
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The paper's load balancing (§5.2.5.1, Figure 5.6): from every active subtask, some of its vnodes
 * to the subtask running on a TaskManager that holds their replica, so the handover finds the state
 * on the spot. Picked from Rhino's view of the operator ({@code GET .../operators/{operator}}).
 */
final class ReplicaHolderMoves {

    /** One vnode's move, and the state it takes along as Rhino last reported it. */
    record Move(int vnode, int from, int to, long stateBytes) {}

    private ReplicaHolderMoves() {}

    /**
     * {@code perSubtask} vnodes (the lowest ids that qualify) of every active subtask, each to the
     * lowest active subtask on another TaskManager holding its replica.
     *
     * @throws IllegalStateException if a subtask has fewer such vnodes (its replicas are not in
     *     place yet, or no other active subtask runs where they are)
     */
    static List<Move> pick(JsonNode operator, int perSubtask) {
        Map<String, Integer> subtaskOn = new TreeMap<>();
        Map<Integer, String> taskManagerOf = new TreeMap<>();
        for (JsonNode subtask : operator.path("subtasks")) {
            if (subtask.path("active").asBoolean()) {
                int id = subtask.path("subtask").asInt();
                String taskManager = subtask.path("taskmanager").asText();
                taskManagerOf.put(id, taskManager);
                subtaskOn.merge(taskManager, id, Math::min);
            }
        }
        List<Move> moves = new ArrayList<>();
        for (Map.Entry<Integer, String> origin : taskManagerOf.entrySet()) {
            List<Move> own = new ArrayList<>();
            for (JsonNode vnode : operator.path("vnodes")) {
                if (own.size() == perSubtask || vnode.path("owner").asInt(-1) != origin.getKey()) {
                    continue;
                }
                for (JsonNode holder : vnode.path("replicas")) {
                    Integer target = subtaskOn.get(holder.asText());
                    if (target != null && !holder.asText().equals(origin.getValue())) {
                        own.add(
                                new Move(
                                        vnode.path("id").asInt(),
                                        origin.getKey(),
                                        target,
                                        vnode.path("state-bytes").asLong()));
                        break;
                    }
                }
            }
            if (own.size() < perSubtask) {
                throw new IllegalStateException(
                        "subtask "
                                + origin.getKey()
                                + " has "
                                + own.size()
                                + " vnodes replicated where another active subtask runs, "
                                + perSubtask
                                + " were asked for: "
                                + operator);
            }
            moves.addAll(own);
        }
        return moves;
    }

    /** The body of {@code POST .../handovers} for {@code moves}. */
    static String requestBody(String requestId, List<Move> moves) {
        ObjectNode body = JsonNodeFactory.instance.objectNode().put("request-id", requestId);
        ArrayNode array = body.putArray("moves");
        moves.forEach(move -> array.addObject().put("vnode", move.vnode()).put("to", move.to()));
        return body.toString();
    }
}
