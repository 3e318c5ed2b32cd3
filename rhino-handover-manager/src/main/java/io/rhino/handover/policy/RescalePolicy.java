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
 * Makes exactly {@code activeSubtasks} subtasks own vnodes, with vnode counts at most one apart,
 * moving as few vnodes as possible: the subtasks that own most stay (then lower ids; standby ones
 * with lower ids join when scaling out), those owning most get the larger quotas, and only the
 * vnodes of leaving subtasks and the excess over a quota move. Each goes to a subtask short of its
 * quota, preferring one whose TaskManager holds the vnode's replica, else the one shortest of its
 * quota, then the lower id.
 */
public final class RescalePolicy {

    private RescalePolicy() {}

    public static List<VnodeMove> plan(ClusterModel model, int activeSubtasks) {
        int parallelism = model.parallelism();
        int numVnodes = model.numVnodes();
        if (activeSubtasks < 1 || activeSubtasks > Math.min(parallelism, numVnodes)) {
            throw new IllegalArgumentException(
                    "activeSubtasks: "
                            + activeSubtasks
                            + " (expected: 1.."
                            + Math.min(parallelism, numVnodes)
                            + ", the deployed parallelism "
                            + parallelism
                            + " and at most one subtask per vnode, "
                            + numVnodes
                            + " vnodes)");
        }
        Assignment assignment = new Assignment(model);
        List<Integer> byCount = new ArrayList<>();
        for (int subtask = 0; subtask < parallelism; subtask++) {
            byCount.add(subtask);
        }
        byCount.sort(
                Comparator.comparingInt((Integer subtask) -> -assignment.count(subtask))
                        .thenComparingInt(subtask -> subtask));
        List<Integer> kept = byCount.subList(0, activeSubtasks);
        int[] quota = new int[parallelism];
        for (int i = 0; i < kept.size(); i++) {
            quota[kept.get(i)] =
                    numVnodes / activeSubtasks + (i < numVnodes % activeSubtasks ? 1 : 0);
        }

        List<Integer> leaving = new ArrayList<>();
        for (int subtask = 0; subtask < parallelism; subtask++) {
            List<Integer> owned = assignment.vnodesOf(subtask);
            int excess = Math.max(0, owned.size() - quota[subtask]);
            // the highest vnode ids leave: deterministic, and the lower ones stay where they are
            leaving.addAll(owned.subList(owned.size() - excess, owned.size()));
        }
        leaving.sort(Comparator.naturalOrder());
        for (int vnode : leaving) {
            int target = -1;
            for (int candidate : kept) {
                int shortBy = quota[candidate] - assignment.count(candidate);
                if (shortBy <= 0) {
                    continue;
                }
                if (target < 0 || better(model, assignment, quota, vnode, candidate, target)) {
                    target = candidate;
                }
            }
            assignment.move(vnode, target);
        }
        return assignment.moves();
    }

    private static boolean better(
            ClusterModel model,
            Assignment assignment,
            int[] quota,
            int vnode,
            int candidate,
            int current) {
        boolean candidateHolds = model.holdsReplica(candidate, vnode);
        boolean currentHolds = model.holdsReplica(current, vnode);
        if (candidateHolds != currentHolds) {
            return candidateHolds;
        }
        int candidateShort = quota[candidate] - assignment.count(candidate);
        int currentShort = quota[current] - assignment.count(current);
        if (candidateShort != currentShort) {
            return candidateShort > currentShort;
        }
        return candidate < current;
    }
}
