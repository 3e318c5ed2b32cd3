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
import java.util.List;
import java.util.Set;

/**
 * Brings the most loaded active subtask's load under {@code maxImbalance} times the mean, moving
 * vnodes between active subtasks (standby subtasks stay standby: that is a rescale). Greedy and
 * deterministic: each step moves the vnode of the most loaded subtask that lowers the maximum most,
 * to the subtask that then carries least, preferring a subtask whose TaskManager holds the vnode's
 * replica (its handover moves no state) among equally good ones, then lower ids. It stops when the
 * ratio is met or no single move lowers the maximum.
 */
public final class RebalancePolicy {

    private static final double EPSILON = 1e-9;

    private RebalancePolicy() {}

    /**
     * @param maxImbalance the accepted ratio of the most loaded active subtask's load to the mean,
     *     {@code >= 1}
     */
    public static List<VnodeMove> plan(ClusterModel model, double maxImbalance) {
        if (!(maxImbalance >= 1.0)) {
            throw new IllegalArgumentException(
                    "maxImbalance: " + maxImbalance + " (expected: >= 1.0)");
        }
        Set<Integer> active = model.activeSubtasks();
        Assignment assignment = new Assignment(model);
        double total = 0;
        for (int subtask : active) {
            total += assignment.load(subtask);
        }
        double mean = total / active.size();
        for (int step = 0; step < model.numVnodes() * active.size(); step++) {
            int busiest = busiest(assignment, active);
            double max = assignment.load(busiest);
            if (max <= maxImbalance * mean + EPSILON) {
                break;
            }
            Move best = null;
            for (int vnode : assignment.vnodesOf(busiest)) {
                for (int target : active) {
                    if (target != busiest) {
                        Move candidate = Move.of(model, assignment, active, vnode, target);
                        if (best == null || candidate.betterThan(best)) {
                            best = candidate;
                        }
                    }
                }
            }
            boolean lowersMax = best != null && best.newMax < max - EPSILON;
            boolean evensOut =
                    best != null && best.newMax <= max + EPSILON && best.spreadChange < -EPSILON;
            if (!lowersMax && !evensOut) {
                break;
            }
            assignment.move(best.vnode, best.target);
        }
        return assignment.moves();
    }

    private static int busiest(Assignment assignment, Set<Integer> active) {
        int busiest = -1;
        for (int subtask : active) {
            if (busiest < 0 || assignment.load(subtask) > assignment.load(busiest) + EPSILON) {
                busiest = subtask;
            }
        }
        return busiest;
    }

    /** One candidate move and the maximum load among active subtasks after it. */
    private record Move(
            int vnode,
            int target,
            double newMax,
            double spreadChange,
            double targetLoad,
            boolean replica) {

        static Move of(
                ClusterModel model,
                Assignment assignment,
                Set<Integer> active,
                int vnode,
                int target) {
            int from = assignment.ownerOf(vnode);
            double load = model.loadOf(vnode);
            double newMax = 0;
            for (int subtask : active) {
                double after = assignment.load(subtask);
                if (subtask == from) {
                    after -= load;
                } else if (subtask == target) {
                    after += load;
                }
                newMax = Math.max(newMax, after);
            }
            // (a - l)^2 + (b + l)^2 - a^2 - b^2
            double spreadChange =
                    2 * load * (load + assignment.load(target) - assignment.load(from));
            return new Move(
                    vnode,
                    target,
                    newMax,
                    spreadChange,
                    assignment.load(target) + load,
                    model.holdsReplica(target, vnode));
        }

        boolean betterThan(Move other) {
            if (Math.abs(newMax - other.newMax) > EPSILON) {
                return newMax < other.newMax;
            }
            if (Math.abs(spreadChange - other.spreadChange) > EPSILON) {
                return spreadChange < other.spreadChange;
            }
            if (replica != other.replica) {
                return replica;
            }
            if (Math.abs(targetLoad - other.targetLoad) > EPSILON) {
                return targetLoad < other.targetLoad;
            }
            return vnode != other.vnode ? vnode < other.vnode : target < other.target;
        }
    }
}
