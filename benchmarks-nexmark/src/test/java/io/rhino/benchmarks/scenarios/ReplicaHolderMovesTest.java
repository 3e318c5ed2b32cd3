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
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReplicaHolderMovesTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    // three TaskManagers, a chain of two: each subtask's vnodes are replicated on the next one
    private static JsonNode operator(boolean replicated) throws Exception {
        StringBuilder vnodes = new StringBuilder();
        for (int vnode = 0; vnode < 9; vnode++) {
            int owner = vnode / 3;
            String holder = replicated ? "\"tm-" + ((owner + 1) % 3) + "\"" : "";
            vnodes.append(vnode == 0 ? "" : ",")
                    .append("{\"id\": ")
                    .append(vnode)
                    .append(", \"owner\": ")
                    .append(owner)
                    .append(", \"state-bytes\": ")
                    .append(100 + vnode)
                    .append(", \"replicas\": [")
                    .append(holder)
                    .append("]}");
        }
        return JSON.readTree(
                "{\"subtasks\": ["
                        + "{\"subtask\": 0, \"taskmanager\": \"tm-0\", \"active\": true},"
                        + "{\"subtask\": 1, \"taskmanager\": \"tm-1\", \"active\": true},"
                        + "{\"subtask\": 2, \"taskmanager\": \"tm-2\", \"active\": true},"
                        + "{\"subtask\": 3, \"taskmanager\": \"tm-3\", \"active\": false}],"
                        + "\"vnodes\": ["
                        + vnodes
                        + "]}");
    }

    @Test
    void eachActiveSubtaskSendsItsLowestVnodesToWhereTheirReplicaIs() throws Exception {
        assertThat(ReplicaHolderMoves.pick(operator(true), 1))
                .containsExactly(
                        new ReplicaHolderMoves.Move(0, 0, 1, 100),
                        new ReplicaHolderMoves.Move(3, 1, 2, 103),
                        new ReplicaHolderMoves.Move(6, 2, 0, 106));
        assertThat(ReplicaHolderMoves.pick(operator(true), 2)).hasSize(6);
    }

    @Test
    void vnodesWithoutAReplicaWhereAnActiveSubtaskRunsAreRefused() throws Exception {
        assertThatThrownBy(() -> ReplicaHolderMoves.pick(operator(false), 1))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("subtask 0 has 0 vnodes replicated");
        assertThatThrownBy(() -> ReplicaHolderMoves.pick(operator(true), 4))
                .hasMessageContaining("4 were asked for");
    }

    @Test
    void theRequestNamesEveryMove() throws Exception {
        assertThat(
                        JSON.readTree(
                                ReplicaHolderMoves.requestBody(
                                        "lb-1",
                                        List.of(
                                                new ReplicaHolderMoves.Move(0, 0, 1, 1),
                                                new ReplicaHolderMoves.Move(6, 2, 0, 1)))))
                .isEqualTo(
                        JSON.readTree(
                                "{\"request-id\": \"lb-1\", \"moves\": [{\"vnode\": 0, \"to\": 1},"
                                        + " {\"vnode\": 6, \"to\": 0}]}"));
    }
}
