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

import java.io.InvalidObjectException;
import java.io.ObjectStreamException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The vnode moves of one handover, made against the routing table at {@link #basedOnEpoch()}.
 *
 * <p>Creating a plan only checks for nulls; the routing table checks that it fits ({@code
 * RoutingTable.validate(plan)}) and applies it ({@code RoutingTable.apply(plan)}), so this package
 * does not depend on the routing package. Instances are immutable and thread-safe.
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
