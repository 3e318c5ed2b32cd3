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

package io.rhino.flink.api.rest;

import static io.rhino.flink.api.rest.JsonBody.MAPPER;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rhino.core.routing.RoutingTable;
import io.rhino.flink.reconfiguration.OperatorView;
import io.rhino.flink.reconfiguration.Reconfigurer;
import io.rhino.flink.reconfiguration.ReplicationView;
import io.rhino.flink.replication.ReplicationProgress;
import io.rhino.flink.state.RestoreSource;
import io.rhino.handover.HandoverManager;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** The JSON shapes of operators and reconfigurations (field names are the API's contract). */
final class JsonViews {

    private JsonViews() {}

    static ObjectNode operator(OperatorView operator) {
        ObjectNode node = MAPPER.createObjectNode();
        node.put("name", operator.name());
        node.put("parallelism", operator.parallelism());
        Optional<HandoverManager> manager = operator.manager();
        if (manager.isEmpty()) {
            node.put("state", "STARTING");
            return node;
        }
        RoutingTable table = manager.get().routingTable();
        Optional<String> suspension = manager.get().suspension();
        node.put("state", suspension.isPresent() ? "SUSPENDED" : "RUNNING");
        suspension.ifPresent(reason -> node.put("suspended-because", reason));
        node.put("active-subtasks", table.activeSubtasks().size());
        node.put("epoch", table.epoch());
        node.put("load-imbalance", Reconfigurer.modelOf(operator, table).imbalance());
        Map<Integer, String> taskManagers = operator.taskManagerBySubtask();
        Map<Integer, Set<String>> replicas = operator.replicaHolders();
        Map<Integer, RestoreSource> restored = operator.restoreSourceByVnode();
        double[] rates = operator.recordsPerSecond();
        Map<Integer, Double> busy = operator.busyTimeMsPerSecond();
        double[] subtaskRates = new double[operator.parallelism()];
        for (int vnode = 0; vnode < table.layout().numVnodes(); vnode++) {
            subtaskRates[table.ownerOf(vnode)] += rates[vnode];
        }
        ArrayNode subtasks = node.putArray("subtasks");
        for (int subtask = 0; subtask < operator.parallelism(); subtask++) {
            ObjectNode s = subtasks.addObject();
            s.put("subtask", subtask);
            s.put("taskmanager", taskManagers.get(subtask));
            s.put("active", table.activeSubtasks().contains(subtask));
            s.put("vnodes", table.vnodesOwnedBy(subtask).length);
            s.put("records-per-second", subtaskRates[subtask]);
            Double busyTime = busy.get(subtask);
            if (busyTime == null) {
                s.putNull("busy-ms-per-second");
            } else {
                s.put("busy-ms-per-second", busyTime);
            }
        }
        ArrayNode vnodes = node.putArray("vnodes");
        for (int vnode = 0; vnode < table.layout().numVnodes(); vnode++) {
            int owner = table.ownerOf(vnode);
            ObjectNode v = vnodes.addObject();
            v.put("id", vnode);
            v.put("owner", owner);
            v.put("taskmanager", taskManagers.get(owner));
            v.put("state-bytes", operator.stateBytes(vnode));
            v.put("records-per-second", rates[vnode]);
            ArrayNode holders = v.putArray("replicas");
            replicas.getOrDefault(vnode, Set.of()).forEach(holders::add);
            RestoreSource restoredFrom = restored.get(vnode);
            if (restoredFrom != null) {
                v.put("restored-from", restoredFrom.wireName());
            }
        }
        return node;
    }

    /** Each gate subtask's replication: chain, last replicated checkpoint, lag, bytes. */
    static ObjectNode replication(OperatorView operator) {
        ReplicationView replication = operator.replication();
        Map<Integer, String> taskManagers = operator.taskManagerBySubtask();
        ObjectNode node = MAPPER.createObjectNode();
        node.put("mode", replication.mode());
        node.put("factor", replication.factor());
        replication.fullStores().forEach(node.putArray("full-stores")::add);
        ArrayNode subtasks = node.putArray("subtasks");
        for (int subtask = 0; subtask < operator.parallelism(); subtask++) {
            ObjectNode s = subtasks.addObject();
            s.put("subtask", subtask);
            s.put("taskmanager", taskManagers.get(subtask));
            ArrayNode chain = s.putArray("chain");
            replication.chains().getOrDefault(subtask, List.of()).forEach(chain::add);
            ReplicationProgress progress = replication.progress().get(subtask);
            boolean replicated = progress != null && progress.lastCheckpoint() >= 0;
            if (replicated) {
                s.put("last-replicated-checkpoint", progress.lastCheckpoint());
                s.put("lag-ms", progress.ageMillis());
                s.put("last-checkpoint-bytes", progress.lastCheckpointBytes());
                s.put("last-round-ms", progress.lastRoundMillis());
            } else {
                s.putNull("last-replicated-checkpoint");
                s.putNull("lag-ms");
                s.putNull("last-checkpoint-bytes");
                s.putNull("last-round-ms");
            }
            s.put("bytes", progress == null ? 0 : progress.totalBytes());
            s.put("failed-rounds", progress == null ? 0 : progress.failedRounds());
            if (progress != null && progress.lastFailure() != null) {
                s.put("last-failure", progress.lastFailure());
            } else {
                s.putNull("last-failure");
            }
        }
        return node;
    }
}
