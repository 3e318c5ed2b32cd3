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

package io.rhino.flink.coordination;

import io.rhino.core.routing.RoutingTable;
import io.rhino.flink.config.RhinoRuntimeSettings;
import io.rhino.flink.events.ReplicationChainEvent;
import io.rhino.handover.load.VnodeLoads;
import io.rhino.handover.replication.ReplicaGroups;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * With replication to peers, tells every gate its replica chain: replica groups over the
 * TaskManagers the gates run on now, balanced by their state bytes, leaving out the replica stores
 * in back-off.
 *
 * <p>Not thread-safe: the hub calls it under its monitor.
 */
final class ReplicaChains {

    private static final Logger LOG = LoggerFactory.getLogger(ReplicaChains.class);

    private final String operatorName;
    private final int numVnodes;
    private final OperatorLink link;
    private final OperatorReadModel readModel;
    private final Map<String, String> replicationAddressByTaskManager = new HashMap<>();

    /** Reads where the gates run from {@code readModel} and publishes the chains there. */
    ReplicaChains(
            String operatorName, int numVnodes, OperatorLink link, OperatorReadModel readModel) {
        this.operatorName = operatorName;
        this.numVnodes = numVnodes;
        this.link = link;
        this.readModel = readModel;
    }

    /** The replication service of {@code taskManager} listens at {@code address}. */
    void serviceAt(String taskManager, String address) {
        replicationAddressByTaskManager.put(taskManager, address);
    }

    /** Assigns, publishes and sends the chains, if the operator replicates to peers. */
    void send(ManagerRuntime runtime) {
        RhinoRuntimeSettings.Replication replication = runtime.settings().replication();
        if (!replication.peers()) {
            return;
        }
        RoutingTable table = runtime.manager().routingTable();
        VnodeLoads loads = runtime.loads();
        Map<Integer, String> gateTaskManagers = readModel.taskManagerBySubtask();
        Map<Integer, Long> bytesBySubtask = new TreeMap<>();
        for (int vnode = 0; vnode < numVnodes; vnode++) {
            long bytes = Math.max(0, loads.stateBytes(vnode));
            bytesBySubtask.merge(table.ownerOf(vnode), bytes, Long::sum);
        }
        Map<Integer, List<String>> chains =
                ReplicaGroups.assign(
                        gateTaskManagers,
                        bytesBySubtask,
                        replication.factor(),
                        runtime.backoff().excluded(System.currentTimeMillis()));
        readModel.chainsSent(chains);
        Map<Integer, String> serviceBySubtask = new TreeMap<>();
        gateTaskManagers.forEach(
                (subtask, taskManager) -> {
                    String address = replicationAddressByTaskManager.get(taskManager);
                    if (address != null) {
                        serviceBySubtask.put(subtask, address);
                    }
                });
        chains.forEach(
                (subtask, taskManagers) -> {
                    List<String> addresses = new ArrayList<>();
                    for (String taskManager : taskManagers) {
                        String address = replicationAddressByTaskManager.get(taskManager);
                        if (address != null) {
                            addresses.add(address);
                        }
                    }
                    link.sendToGate(
                            subtask, new ReplicationChainEvent(addresses, serviceBySubtask));
                });
        LOG.info("Replica chains of Rhino operator '{}': {}", operatorName, chains);
    }
}
