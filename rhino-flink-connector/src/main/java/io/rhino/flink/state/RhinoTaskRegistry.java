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

package io.rhino.flink.state;

import io.rhino.core.handover.HandoverId;
import io.rhino.flink.spec.RhinoOperatorSpec;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.api.common.JobID;
import org.apache.flink.runtime.executiongraph.ExecutionAttemptID;

/**
 * Where a Rhino gate and the vnode backend of its task find each other, in one TaskManager. The
 * gate is created before the keyed operator's state is initialised, and Flink hands the backend
 * only the task's {@code Environment}: the gate registers the operator here (so the backend knows
 * it serves a Rhino operator) and the backend registers itself (so the gate can move vnodes in and
 * out of it), both under the task attempt's id.
 */
public final class RhinoTaskRegistry {

    /** A running Rhino gate subtask. */
    private record Gate(JobID jobId, RhinoOperatorSpec spec, int subtask, TaskReplicas replicas) {}

    private static final Map<ExecutionAttemptID, Gate> GATE_BY_TASK = new ConcurrentHashMap<>();
    private static final Map<ExecutionAttemptID, VnodeKeyedStateBackend<?>> BACKEND_BY_TASK =
            new ConcurrentHashMap<>();

    // Flink initialises a task's operators and filters its restored in-flight records on the
    // task's own thread: the gate's filter reads here which vnodes the backend restored
    private static final ThreadLocal<RestoredVnodes> RESTORED_VNODES_OF_TASK_THREAD =
            new ThreadLocal<>();

    // markers the gate's recovery filter let through (where Flink redistributes in-flight records
    // at a restore): all are replayed from the restored checkpoint, whatever they name
    private static final ThreadLocal<Set<HandoverId>> REPLAYED_HANDOVERS_OF_TASK_THREAD =
            new ThreadLocal<>();

    private RhinoTaskRegistry() {}

    /**
     * Called by the gate when it is created, with the replicas its keyed operator may restore from.
     */
    public static void registerGate(
            ExecutionAttemptID task,
            JobID jobId,
            RhinoOperatorSpec spec,
            int subtask,
            TaskReplicas replicas) {
        GATE_BY_TASK.put(task, new Gate(jobId, spec, subtask, replicas));
    }

    /** Called by the gate when it closes. */
    public static void unregisterGate(ExecutionAttemptID task) {
        GATE_BY_TASK.remove(task);
        BACKEND_BY_TASK.remove(task);
        RESTORED_VNODES_OF_TASK_THREAD.remove();
        REPLAYED_HANDOVERS_OF_TASK_THREAD.remove();
    }

    /** The Rhino operator of the task, if its chain starts with a Rhino gate. */
    static Optional<RhinoOperatorSpec> specOf(ExecutionAttemptID task) {
        return Optional.ofNullable(GATE_BY_TASK.get(task)).map(Gate::spec);
    }

    /** The replicas the task's Rhino operator may restore from, if its chain starts with a gate. */
    static Optional<TaskReplicas> replicasOf(ExecutionAttemptID task) {
        return Optional.ofNullable(GATE_BY_TASK.get(task)).map(Gate::replicas);
    }

    /** Called on the task's thread once the backend restored its vnodes. */
    static void registerBackend(ExecutionAttemptID task, VnodeKeyedStateBackend<?> backend) {
        BACKEND_BY_TASK.put(task, backend);
        Gate gate = GATE_BY_TASK.get(task);
        if (gate != null) {
            RESTORED_VNODES_OF_TASK_THREAD.set(
                    new RestoredVnodes(backend.layout(), gate.subtask(), backend.ownedVnodes()));
        }
    }

    /**
     * The vnodes the Rhino backend of the task running on this thread restored, once restored. They
     * can differ from those the job was built with: a job resubmitted at another parallelism with
     * {@code rhino.vnodes} unset restores the vnode count of its checkpoint, and handovers leave
     * each subtask vnodes other than Flink's key-group ranges would give it.
     */
    public static Optional<RestoredVnodes> restoredVnodesOfThisTask() {
        return Optional.ofNullable(RESTORED_VNODES_OF_TASK_THREAD.get());
    }

    /**
     * Notes, on the task's thread, a handover whose marker Flink replays from the restored
     * checkpoint through the recovery filter (where it redistributes in-flight records).
     */
    public static void noteReplayedHandover(HandoverId id) {
        Set<HandoverId> replayed = REPLAYED_HANDOVERS_OF_TASK_THREAD.get();
        if (replayed == null) {
            replayed = new HashSet<>();
            REPLAYED_HANDOVERS_OF_TASK_THREAD.set(replayed);
        }
        replayed.add(id);
    }

    /**
     * Whether the recovery filter of the task running on this thread let a replayed marker of
     * {@code id} through.
     */
    public static boolean isReplayedHandoverOfThisTask(HandoverId id) {
        Set<HandoverId> replayed = REPLAYED_HANDOVERS_OF_TASK_THREAD.get();
        return replayed != null && replayed.contains(id);
    }

    /** The vnode backend of the task's Rhino operator, once its state is initialised. */
    public static Optional<VnodeKeyedStateBackend<?>> backendOf(ExecutionAttemptID task) {
        return Optional.ofNullable(BACKEND_BY_TASK.get(task));
    }

    /**
     * The vnodes each running subtask of a Rhino operator owns in this TaskManager process, by
     * subtask. For tests and diagnostics.
     */
    public static SortedMap<Integer, int[]> ownedVnodes(JobID jobId, String operatorName) {
        SortedMap<Integer, int[]> owned = new TreeMap<>();
        GATE_BY_TASK.forEach(
                (task, gate) -> {
                    VnodeKeyedStateBackend<?> backend = BACKEND_BY_TASK.get(task);
                    if (backend != null
                            && gate.jobId().equals(jobId)
                            && gate.spec().name().equals(operatorName)) {
                        owned.put(gate.subtask(), backend.ownedVnodes());
                    }
                });
        return owned;
    }
}
