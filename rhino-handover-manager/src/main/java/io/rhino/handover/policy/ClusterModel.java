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

package io.rhino.handover.policy;

import io.rhino.core.routing.RoutingTable;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * What a reconfiguration policy decides on: who owns which vnode, how loaded each vnode is, where
 * each subtask runs, and which TaskManagers hold a replica of a vnode's state.
 *
 * @param table the routing table in force
 * @param loadByVnode a vnode's load (records per second, or any non-negative measure); vnodes not
 *     in the map count as 0
 * @param taskManagerBySubtask the TaskManager each subtask runs on; subtasks not in the map run on
 *     an unknown one
 * @param replicaHoldersByVnode the TaskManagers holding a replica of a vnode's state (empty until
 *     replication runs)
 */
public record ClusterModel(
        RoutingTable table,
        Map<Integer, Double> loadByVnode,
        Map<Integer, String> taskManagerBySubtask,
        Map<Integer, Set<String>> replicaHoldersByVnode) {

    public ClusterModel {
        Objects.requireNonNull(table, "table");
        loadByVnode = Map.copyOf(loadByVnode);
        taskManagerBySubtask = Map.copyOf(taskManagerBySubtask);
        replicaHoldersByVnode = Map.copyOf(replicaHoldersByVnode);
        loadByVnode.forEach(
                (vnode, load) -> {
                    table.layout().checkVnode(vnode);
                    if (!(load >= 0)) {
                        throw new IllegalArgumentException(
                                "load of vnode " + vnode + ": " + load + " (expected: >= 0)");
                    }
                });
    }

    /** Every vnode with the same load: balancing by vnode count. */
    public static ClusterModel uniform(RoutingTable table) {
        Map<Integer, Double> loads = new java.util.HashMap<>();
        for (int vnode = 0; vnode < table.layout().numVnodes(); vnode++) {
            loads.put(vnode, 1.0);
        }
        return new ClusterModel(table, loads, Map.of(), Map.of());
    }

    public int numVnodes() {
        return table.layout().numVnodes();
    }

    public int parallelism() {
        return table.parallelism();
    }

    public double loadOf(int vnode) {
        return loadByVnode.getOrDefault(vnode, 0.0);
    }

    /** The TaskManager of {@code subtask}, or null if unknown. */
    public String taskManagerOf(int subtask) {
        return taskManagerBySubtask.get(subtask);
    }

    /** Whether {@code subtask} runs on a TaskManager holding a replica of {@code vnode}. */
    public boolean holdsReplica(int subtask, int vnode) {
        String taskManager = taskManagerOf(subtask);
        return taskManager != null
                && replicaHoldersByVnode.getOrDefault(vnode, Set.of()).contains(taskManager);
    }

    /** The load of each subtask: the sum of its vnodes' loads. */
    public double[] loadBySubtask() {
        double[] loads = new double[parallelism()];
        int[] owners = table.ownerByVnode();
        for (int vnode = 0; vnode < owners.length; vnode++) {
            loads[owners[vnode]] += loadOf(vnode);
        }
        return loads;
    }

    /**
     * The most loaded active subtask's load over the active subtasks' mean: 1 is perfectly even; 1
     * too when nothing is loaded.
     */
    public double imbalance() {
        double[] loads = loadBySubtask();
        double max = 0;
        double total = 0;
        Set<Integer> active = activeSubtasks();
        for (int subtask : active) {
            max = Math.max(max, loads[subtask]);
            total += loads[subtask];
        }
        return total <= 0 ? 1.0 : max / (total / active.size());
    }

    /** Subtasks that own at least one vnode, ascending. */
    public Set<Integer> activeSubtasks() {
        return new TreeSet<>(table.activeSubtasks());
    }
}
