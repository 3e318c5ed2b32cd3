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

package io.rhino.core.handover;

import io.rhino.core.routing.RoutingTable;
import java.io.InvalidObjectException;
import java.io.ObjectStreamException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The vnode moves of one handover, made against the routing table at {@link #basedOnEpoch()}.
 *
 * <p>Creating a plan only checks for nulls; {@link #validateAgainst(RoutingTable)} checks that it
 * fits a table and {@link RoutingTable#apply(HandoverPlan)} applies it. Instances are immutable and
 * thread-safe.
 */
public final class HandoverPlan implements Serializable {

    private static final long serialVersionUID = 1L;

    private final long basedOnEpoch;
    private final List<VnodeMove> moves;

    private HandoverPlan(long basedOnEpoch, List<VnodeMove> moves) {
        this.basedOnEpoch = basedOnEpoch;
        this.moves = moves;
    }

    /**
     * Creates a plan.
     *
     * @param basedOnEpoch epoch of the routing table the plan was made from, {@code >= 0}
     * @param moves the moves, in order; copied, must not contain null
     */
    public static HandoverPlan of(long basedOnEpoch, List<VnodeMove> moves) {
        if (basedOnEpoch < 0) {
            throw new IllegalArgumentException(
                    "basedOnEpoch: " + basedOnEpoch + " (expected: >= 0)");
        }
        Objects.requireNonNull(moves, "moves: null (expected: a list of VnodeMove)");
        for (int i = 0; i < moves.size(); i++) {
            if (moves.get(i) == null) {
                throw new NullPointerException("moves[" + i + "]: null (expected: a VnodeMove)");
            }
        }
        return new HandoverPlan(basedOnEpoch, List.copyOf(moves));
    }

    /** Returns the epoch of the routing table this plan was made from. */
    public long basedOnEpoch() {
        return basedOnEpoch;
    }

    /** Returns the moves in plan order; the list is unmodifiable. */
    public List<VnodeMove> moves() {
        return moves;
    }

    /** Returns the moved vnodes, ascending; unmodifiable. */
    public Set<Integer> vnodes() {
        TreeSet<Integer> vnodes = new TreeSet<>();
        for (VnodeMove move : moves) {
            vnodes.add(move.vnode());
        }
        return Collections.unmodifiableSortedSet(vnodes);
    }

    /** Returns the moves grouped by target subtask (ascending), each group in plan order. */
    public Map<Integer, List<VnodeMove>> movesByTarget() {
        TreeMap<Integer, List<VnodeMove>> byTarget = new TreeMap<>();
        for (VnodeMove move : moves) {
            byTarget.computeIfAbsent(move.toSubtask(), t -> new ArrayList<>()).add(move);
        }
        byTarget.replaceAll((target, group) -> List.copyOf(group));
        return Collections.unmodifiableSortedMap(byTarget);
    }

    /** Returns every origin and target subtask of the plan, ascending; unmodifiable. */
    public Set<Integer> involvedSubtasks() {
        TreeSet<Integer> subtasks = new TreeSet<>();
        for (VnodeMove move : moves) {
            subtasks.add(move.fromSubtask());
            subtasks.add(move.toSubtask());
        }
        return Collections.unmodifiableSortedSet(subtasks);
    }

    /**
     * Checks that this plan can be applied to {@code table}.
     *
     * <p>An empty or stale plan is reported on its own. Otherwise the first problem of every vnode
     * is collected, so one exception lists everything that needs fixing.
     *
     * @throws InvalidHandoverException if the plan is empty, stale, or any move does not fit
     */
    public void validateAgainst(RoutingTable table) {
        Objects.requireNonNull(table, "table: null (expected: a RoutingTable)");
        if (moves.isEmpty()) {
            throw new InvalidHandoverException(
                    List.of(
                            "the plan has no moves; a handover must move at least one vnode,"
                                    + " so add moves or do not start a handover"));
        }
        // Ownership checks only make sense against the table the plan was made from.
        if (basedOnEpoch != table.epoch()) {
            throw new InvalidHandoverException(
                    List.of(
                            "plan was made for epoch "
                                    + basedOnEpoch
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

    /** Re-validates deserialized fields, which bypass {@link #of}. */
    private Object readResolve() throws ObjectStreamException {
        try {
            return of(basedOnEpoch, moves);
        } catch (IllegalArgumentException | NullPointerException e) {
            InvalidObjectException invalid = new InvalidObjectException(e.getMessage());
            invalid.initCause(e);
            throw invalid;
        }
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof HandoverPlan)) {
            return false;
        }
        HandoverPlan that = (HandoverPlan) o;
        return basedOnEpoch == that.basedOnEpoch && moves.equals(that.moves);
    }

    @Override
    public int hashCode() {
        return 31 * Long.hashCode(basedOnEpoch) + moves.hashCode();
    }

    /** Returns e.g. {@code HandoverPlan{basedOnEpoch=3, moves=[v5:0->2, v6:0->2]}}. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("HandoverPlan{basedOnEpoch=");
        sb.append(basedOnEpoch).append(", moves=[");
        for (int i = 0; i < moves.size(); i++) {
            VnodeMove move = moves.get(i);
            if (i > 0) {
                sb.append(", ");
            }
            sb.append('v')
                    .append(move.vnode())
                    .append(':')
                    .append(move.fromSubtask())
                    .append("->")
                    .append(move.toSubtask());
        }
        return sb.append("]}").toString();
    }
}
