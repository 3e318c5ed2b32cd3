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

import io.rhino.core.handover.VnodeMove;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Moves every vnode off the subtasks of one TaskManager, so that it can be stopped. A vnode goes to
 * a subtask on another (known) TaskManager that holds its replica if there is one (its handover
 * moves no state), else to the least loaded one, then the one owning fewest vnodes, then the lower
 * id; active subtasks are preferred to standby ones. The heaviest vnodes are placed first.
 */
public final class DrainPolicy {

    private DrainPolicy() {}

    public static List<VnodeMove> plan(ClusterModel model, String taskManager) {
        List<Integer> drained = new ArrayList<>();
        List<Integer> elsewhere = new ArrayList<>();
        for (int subtask = 0; subtask < model.parallelism(); subtask++) {
            String runsOn = model.taskManagerOf(subtask);
            if (taskManager.equals(runsOn)) {
                drained.add(subtask);
            } else if (runsOn != null) {
                elsewhere.add(subtask);
            }
        }
        if (drained.isEmpty()) {
            throw new IllegalArgumentException(
                    "No subtask runs on TaskManager '"
                            + taskManager
                            + "' (known: "
                            + new java.util.TreeSet<>(model.taskManagerBySubtask().values())
                            + ")");
        }
        if (elsewhere.isEmpty()) {
            throw new IllegalArgumentException(
                    "Cannot drain TaskManager '"
                            + taskManager
                            + "': every subtask of the operator runs there.");
        }
        List<Integer> targets = new ArrayList<>(elsewhere);
        targets.retainAll(model.activeSubtasks());
        if (targets.isEmpty()) {
            targets = elsewhere;
        }
        Assignment assignment = new Assignment(model);
        List<Integer> vnodes = new ArrayList<>();
        for (int subtask : drained) {
            vnodes.addAll(assignment.vnodesOf(subtask));
        }
        vnodes.sort(
                Comparator.comparingDouble((Integer vnode) -> -model.loadOf(vnode))
                        .thenComparingInt(vnode -> vnode));
        for (int vnode : vnodes) {
            int target = -1;
            for (int candidate : targets) {
                if (target < 0 || better(model, assignment, vnode, candidate, target)) {
                    target = candidate;
                }
            }
            assignment.move(vnode, target);
        }
        return assignment.moves();
    }

    private static boolean better(
            ClusterModel model, Assignment assignment, int vnode, int candidate, int current) {
        boolean candidateHolds = model.holdsReplica(candidate, vnode);
        boolean currentHolds = model.holdsReplica(current, vnode);
        if (candidateHolds != currentHolds) {
            return candidateHolds;
        }
        if (assignment.load(candidate) != assignment.load(current)) {
            return assignment.load(candidate) < assignment.load(current);
        }
        if (assignment.count(candidate) != assignment.count(current)) {
            return assignment.count(candidate) < assignment.count(current);
        }
        return candidate < current;
    }
}
