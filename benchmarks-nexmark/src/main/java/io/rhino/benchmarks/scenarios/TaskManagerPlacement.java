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

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobID;
import org.apache.flink.runtime.clusterframework.types.ResourceID;
import org.apache.flink.runtime.executiongraph.AccessExecutionGraph;
import org.apache.flink.runtime.executiongraph.AccessExecutionJobVertex;
import org.apache.flink.runtime.executiongraph.AccessExecutionVertex;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.taskexecutor.TaskExecutor;
import org.apache.flink.runtime.taskmanager.TaskManagerLocation;

/**
 * Which TaskManager runs which subtask of a job on the embedded cluster, and killing the one that
 * runs a given subtask of a keyed operator, as the paper terminates a VM (§5.4.2). {@link
 * MiniCluster#terminateTaskManager(int)} takes the TaskManager's index, and the MiniCluster does
 * not say which index has which resource id, so its list is read reflectively.
 */
final class TaskManagerPlacement {

    private TaskManagerPlacement() {}

    /**
     * Terminates the TaskManager running subtask {@code subtask} of the task whose name contains
     * {@code operator}, and returns its index.
     */
    static int killTaskManagerOf(MiniCluster cluster, JobID jobId, String operator, int subtask)
            throws Exception {
        ResourceID resource = locate(cluster, jobId, operator, subtask).getResourceID();
        List<TaskExecutor> taskManagers = taskManagers(cluster);
        for (int i = 0; i < taskManagers.size(); i++) {
            if (taskManagers.get(i).getResourceID().equals(resource)) {
                cluster.terminateTaskManager(i).get(1, TimeUnit.MINUTES);
                return i;
            }
        }
        throw new IllegalStateException("No TaskManager with resource id " + resource);
    }

    private static TaskManagerLocation locate(
            MiniCluster cluster, JobID jobId, String operator, int subtask) throws Exception {
        TaskManagerLocation location =
                vertex(cluster, jobId, operator)
                        .getTaskVertices()[subtask]
                        .getCurrentExecutionAttempt()
                        .getAssignedResourceLocation();
        if (location == null) {
            throw new IllegalStateException(operator + "[" + subtask + "] is not deployed");
        }
        return location;
    }

    /**
     * The TaskManager (resource id) of every subtask of the task that runs {@code operator}.
     * Rhino's own view ({@code RhinoHandovers.operators}) names TaskManagers by address and working
     * directory, which are the same for all TaskManagers of a MiniCluster, so Flink's placement is
     * read instead.
     */
    static Map<Integer, String> taskManagerBySubtask(
            MiniCluster cluster, JobID jobId, String operator) throws Exception {
        Map<Integer, String> bySubtask = new TreeMap<>();
        AccessExecutionVertex[] subtasks = vertex(cluster, jobId, operator).getTaskVertices();
        for (int i = 0; i < subtasks.length; i++) {
            TaskManagerLocation location =
                    subtasks[i].getCurrentExecutionAttempt().getAssignedResourceLocation();
            if (location == null) {
                throw new IllegalStateException(operator + "[" + i + "] is not deployed");
            }
            bySubtask.put(i, location.getResourceID().getResourceIdString());
        }
        return bySubtask;
    }

    private static AccessExecutionJobVertex vertex(
            MiniCluster cluster, JobID jobId, String operator) throws Exception {
        AccessExecutionGraph graph = cluster.getExecutionGraph(jobId).get(1, TimeUnit.MINUTES);
        List<String> names = new ArrayList<>();
        graph.getAllVertices().values().forEach(vertex -> names.add(vertex.getName()));
        String name =
                keyedTaskName(names, operator)
                        .orElseThrow(
                                () ->
                                        new IllegalStateException(
                                                "No task of job " + jobId + " runs " + operator));
        return graph.getAllVertices().values().stream()
                .filter(vertex -> vertex.getName().equals(name))
                .findFirst()
                .orElseThrow();
    }

    /**
     * The name of the task that runs the keyed operator {@code operator} among a job's task names:
     * the one its Rhino gate starts (e.g. "nbq8-join (Rhino gate) -> nbq8-join -> ..."), in a plain
     * Flink job the one that starts with the operator. Not its router's task ("nbq8-join (Rhino
     * router)"), nor the source tasks its tagging maps are chained to ("Source: fill-persons ->
     * nbq8-join (Rhino tag first)").
     */
    static Optional<String> keyedTaskName(Collection<String> names, String operator) {
        String gate = operator + " (Rhino gate)";
        Optional<String> rhino = names.stream().filter(n -> n.startsWith(gate)).findFirst();
        if (rhino.isPresent()) {
            return rhino;
        }
        return names.stream()
                .filter(n -> n.startsWith(operator))
                .filter(n -> !n.startsWith(operator + " (Rhino"))
                .findFirst();
    }

    @SuppressWarnings("unchecked")
    private static List<TaskExecutor> taskManagers(MiniCluster cluster)
            throws ReflectiveOperationException {
        Field field = MiniCluster.class.getDeclaredField("taskManagers");
        field.setAccessible(true);
        synchronized (cluster) {
            return List.copyOf((List<TaskExecutor>) field.get(cluster));
        }
    }
}
