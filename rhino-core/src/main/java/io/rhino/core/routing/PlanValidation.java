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

package io.rhino.core.routing;

import io.rhino.core.handover.HandoverPlan;
import io.rhino.core.handover.InvalidHandoverException;
import io.rhino.core.handover.VnodeMove;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Checks a {@link HandoverPlan} against the {@link RoutingTable} it is to be applied to and
 * explains every problem in terms of that table. It lives beside the table, not beside the plan, so
 * that plans (and the handover package) do not depend on routing.
 */
final class PlanValidation {

    private PlanValidation() {}

    /**
     * Checks that {@code plan} can be applied to {@code table}.
     *
     * <p>An empty or stale plan is reported on its own. Otherwise the first problem of every vnode
     * is collected, so one exception lists everything that needs fixing.
     *
     * @throws InvalidHandoverException if the plan is empty, stale, or any move does not fit
     */
    static void validate(HandoverPlan plan, RoutingTable table) {
        List<VnodeMove> moves = plan.moves();
        if (moves.isEmpty()) {
            throw new InvalidHandoverException(
                    List.of(
                            "the plan has no moves; a handover must move at least one vnode,"
                                    + " so add moves or do not start a handover"));
        }
        // Ownership checks only make sense against the table the plan was made from.
        if (plan.basedOnEpoch() != table.epoch()) {
            throw new InvalidHandoverException(
                    List.of(
                            "plan was made for epoch "
                                    + plan.basedOnEpoch()
                                    + " but the routing table is at epoch "
                                    + table.epoch()
                                    + "; re-read the table and plan again"));
        }
        Map<Integer, Integer> occurrences = new LinkedHashMap<>();
        for (VnodeMove move : moves) {
            occurrences.merge(move.vnode(), 1, Integer::sum);
        }
        List<String> problems = new ArrayList<>();
        for (VnodeMove move : moves) {
            int count = occurrences.getOrDefault(move.vnode(), 0);
            if (count == 0) {
                continue; // a problem of this vnode has already been reported
            }
            occurrences.put(move.vnode(), 0);
            String problem = problemOf(move, count, table);
            if (problem != null) {
                problems.add(problem);
            }
        }
        if (!problems.isEmpty()) {
            throw new InvalidHandoverException(problems);
        }
    }

    /** Returns the first problem of {@code move}, or null if it fits the table. */
    private static String problemOf(VnodeMove move, int occurrences, RoutingTable table) {
        int vnode = move.vnode();
        int numVnodes = table.layout().numVnodes();
        if (vnode < 0 || vnode >= numVnodes) {
            return "vnode "
                    + vnode
                    + " does not exist; the layout has "
                    + numVnodes
                    + " vnodes (0.."
                    + (numVnodes - 1)
                    + ")";
        }
        if (occurrences > 1) {
            return "vnode "
                    + vnode
                    + " appears "
                    + occurrences
                    + " times; a vnode can move at most once per handover, keep one move";
        }
        int owner = table.ownerOf(vnode);
        if (move.fromSubtask() != owner) {
            return "vnode "
                    + vnode
                    + " is owned by subtask "
                    + owner
                    + ", not by fromSubtask "
                    + move.fromSubtask()
                    + "; re-read the routing table and plan again";
        }
        int parallelism = table.parallelism();
        if (move.toSubtask() < 0 || move.toSubtask() >= parallelism) {
            return "vnode "
                    + vnode
                    + " cannot move to subtask "
                    + move.toSubtask()
                    + ": subtask "
                    + move.toSubtask()
                    + " does not exist; the operator's deployed parallelism is "
                    + parallelism
                    + " (subtasks 0.."
                    + (parallelism - 1)
                    + ")";
        }
        if (move.toSubtask() == move.fromSubtask()) {
            return "vnode "
                    + vnode
                    + " moves from subtask "
                    + move.fromSubtask()
                    + " to itself; drop the move or pick another target";
        }
        return null;
    }
}
