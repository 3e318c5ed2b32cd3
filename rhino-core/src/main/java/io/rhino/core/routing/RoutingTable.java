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
import java.io.InvalidObjectException;
import java.io.ObjectStreamException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which subtask owns which vnode at a given epoch.
 *
 * <p>Routing is two lookups: key → key group (Flink's hash, see {@link KeyGroups}) → vnode (see
 * {@link VnodeLayout}) → owning subtask (this table). The operator is deployed with {@link
 * #parallelism()} subtasks; subtasks that own no vnode are standbys that a handover can move vnodes
 * onto.
 *
 * <p>Tables are immutable and thread-safe. The only way to a newer epoch is {@link
 * #apply(HandoverPlan)}, which returns a new table with {@code epoch + 1}.
 */
public final class RoutingTable implements Serializable {

    private static final long serialVersionUID = 1L;

    private final long epoch;
    private final VnodeLayout layout;
    private final int parallelism;
    private final int[] ownerByVnode;

    /** Takes ownership of {@code ownerByVnode}; callers pass a fresh array. */
    private RoutingTable(long epoch, VnodeLayout layout, int parallelism, int[] ownerByVnode) {
        Objects.requireNonNull(layout, "layout: null (expected: a VnodeLayout)");
        if (epoch < 0) {
            throw new IllegalArgumentException("epoch: " + epoch + " (expected: >= 0)");
        }
        checkParallelism(parallelism, layout);
        if (ownerByVnode.length != layout.numVnodes()) {
            throw new IllegalArgumentException(
                    "ownerByVnode.length: "
                            + ownerByVnode.length
                            + " (expected: numVnodes="
                            + layout.numVnodes()
                            + ")");
        }
        for (int vnode = 0; vnode < ownerByVnode.length; vnode++) {
            int owner = ownerByVnode[vnode];
            if (owner < 0 || owner >= parallelism) {
                throw new IllegalArgumentException(
                        "ownerByVnode["
                                + vnode
                                + "]: "
                                + owner
                                + " (expected: 0..parallelism-1="
                                + (parallelism - 1)
                                + ")");
            }
        }
        this.epoch = epoch;
        this.layout = layout;
        this.parallelism = parallelism;
        this.ownerByVnode = ownerByVnode;
    }

    /**
     * Creates the epoch-0 table: vnodes are spread in contiguous blocks over subtasks {@code
     * 0..activeParallelism-1} (vnode {@code v} goes to {@code v * activeParallelism / numVnodes}),
     * so per-subtask counts differ by at most one. Subtasks {@code >= activeParallelism} own
     * nothing.
     *
     * @param layout how key groups are grouped into vnodes
     * @param parallelism the operator's deployed parallelism, {@code 1..numKeyGroups}
     * @param activeParallelism how many subtasks own vnodes, {@code 1..min(parallelism, numVnodes)}
     */
    public static RoutingTable initial(VnodeLayout layout, int parallelism, int activeParallelism) {
        Objects.requireNonNull(layout, "layout: null (expected: a VnodeLayout)");
        checkParallelism(parallelism, layout);
        if (activeParallelism < 1 || activeParallelism > parallelism) {
            throw new IllegalArgumentException(
                    "activeParallelism: "
                            + activeParallelism
                            + " (expected: 1..parallelism="
                            + parallelism
                            + ")");
        }
        int numVnodes = layout.numVnodes();
        // Otherwise some "active" subtask would own no vnode.
        if (activeParallelism > numVnodes) {
            throw new IllegalArgumentException(
                    "activeParallelism: "
                            + activeParallelism
                            + " (expected: <= numVnodes="
                            + numVnodes
                            + ", so that every active subtask owns a vnode)");
        }
        int[] owners = new int[numVnodes];
        for (int vnode = 0; vnode < numVnodes; vnode++) {
            owners[vnode] = (int) ((long) vnode * activeParallelism / numVnodes);
        }
        return new RoutingTable(0, layout, parallelism, owners);
    }

    /**
     * The table a restore at {@code newParallelism} routes by, at the next epoch: vnodes go to
     * subtasks as {@link RescaleAssignment} says, every subtask of the new parallelism active. At
     * an unchanged parallelism this table itself, whose owners the restored vnode state follows.
     */
    public RoutingTable rescaledTo(int newParallelism) {
        if (newParallelism == parallelism) {
            return this;
        }
        checkParallelism(newParallelism, layout);
        return new RoutingTable(
                Math.addExact(epoch, 1),
                layout,
                newParallelism,
                RescaleAssignment.owners(layout, newParallelism));
    }

    /**
     * The table a restore routes by when it re-cuts the same key groups into {@code newLayout}'s
     * vnodes (another vnode count) at {@code newParallelism}, at the next epoch, every subtask
     * active. At another parallelism every new vnode goes to a subtask as {@link RescaleAssignment}
     * says (Flink hands every restoring subtask every old subtask's vnodes then). At an unchanged
     * parallelism Flink hands each subtask only its own old state, so each new vnode stays with the
     * owner of the old vnodes it is cut from; that needs one owner per new vnode ({@link
     * #vnodesWithSeveralOwnersIn}). At an unchanged layout this is {@link #rescaledTo}.
     *
     * @throws IllegalArgumentException if {@code newLayout} has other key groups, the parallelism
     *     does not fit them, or, at an unchanged parallelism, a new vnode has several owners
     */
    public RoutingTable recutTo(VnodeLayout newLayout, int newParallelism) {
        Objects.requireNonNull(newLayout, "newLayout: null (expected: a VnodeLayout)");
        if (newLayout.equals(layout)) {
            return rescaledTo(newParallelism);
        }
        if (newLayout.numKeyGroups() != layout.numKeyGroups()) {
            throw new IllegalArgumentException(
                    "newLayout: "
                            + newLayout
                            + " (expected: the table's "
                            + layout.numKeyGroups()
                            + " key groups; a re-cut changes only the vnodes)");
        }
        checkParallelism(newParallelism, newLayout);
        if (newParallelism != parallelism) {
            return new RoutingTable(
                    Math.addExact(epoch, 1),
                    newLayout,
                    newParallelism,
                    RescaleAssignment.owners(newLayout, newParallelism));
        }
        List<Integer> mixed = vnodesWithSeveralOwnersIn(newLayout);
        if (!mixed.isEmpty()) {
            throw new IllegalArgumentException(
                    "newLayout: "
                            + newLayout
                            + " (expected: at an unchanged parallelism, new vnodes whose old vnodes"
                            + " have one owner; those of "
                            + mixed
                            + " have several)");
        }
        int[] owners = new int[newLayout.numVnodes()];
        for (int vnode = 0; vnode < owners.length; vnode++) {
            owners[vnode] = ownerOfKeyGroup(newLayout.keyGroupsOf(vnode).startKeyGroup());
        }
        return new RoutingTable(Math.addExact(epoch, 1), newLayout, parallelism, owners);
    }

    /**
     * The vnodes of {@code newLayout} (same key groups) whose key groups this table gives to more
     * than one subtask: a re-cut at an unchanged parallelism cannot restore them, since Flink hands
     * each subtask only its own state.
     */
    public List<Integer> vnodesWithSeveralOwnersIn(VnodeLayout newLayout) {
        List<Integer> mixed = new ArrayList<>();
        for (int vnode = 0; vnode < newLayout.numVnodes(); vnode++) {
            KeyGroupSpan span = newLayout.keyGroupsOf(vnode);
            int first = layout.vnodeOfKeyGroup(span.startKeyGroup());
            int last = layout.vnodeOfKeyGroup(span.endKeyGroup());
            for (int old = first + 1; old <= last; old++) {
                if (ownerByVnode[old] != ownerByVnode[first]) {
                    mixed.add(vnode);
                    break;
                }
            }
        }
        return mixed;
    }

    /** Returns the table's epoch; starts at 0 and grows by one per applied handover. */
    public long epoch() {
        return epoch;
    }

    /** Returns the vnode layout. */
    public VnodeLayout layout() {
        return layout;
    }

    /** Returns the operator's deployed parallelism: subtasks {@code 0..parallelism-1} exist. */
    public int parallelism() {
        return parallelism;
    }

    /**
     * Returns the subtask that owns {@code vnode}.
     *
     * @throws IllegalArgumentException if the vnode does not exist
     */
    public int ownerOf(int vnode) {
        layout.checkVnode(vnode);
        return ownerByVnode[vnode];
    }

    /**
     * Returns the subtask that owns the vnode containing {@code keyGroup}.
     *
     * @throws IllegalArgumentException if the key group does not exist
     */
    public int ownerOfKeyGroup(int keyGroup) {
        return ownerByVnode[layout.vnodeOfKeyGroup(keyGroup)];
    }

    /** Returns the subtask that owns {@code key}'s vnode (key must not be null). */
    public int ownerOfKey(Object key) {
        return ownerByVnode[layout.vnodeOfKey(key)];
    }

    /**
     * Returns the vnodes owned by {@code subtask}, ascending; empty for a standby subtask.
     *
     * @throws IllegalArgumentException if the subtask does not exist
     */
    public int[] vnodesOwnedBy(int subtask) {
        checkSubtask(subtask);
        int[] owned = new int[ownerByVnode.length];
        int count = 0;
        for (int vnode = 0; vnode < ownerByVnode.length; vnode++) {
            if (ownerByVnode[vnode] == subtask) {
                owned[count++] = vnode;
            }
        }
        return Arrays.copyOf(owned, count);
    }

    /** Returns a copy of the owner of every vnode, indexed by vnode. */
    public int[] ownerByVnode() {
        return ownerByVnode.clone();
    }

    /** Returns how many vnodes each subtask owns, indexed by subtask. */
    public int[] vnodeCountBySubtask() {
        int[] counts = new int[parallelism];
        for (int owner : ownerByVnode) {
            counts[owner]++;
        }
        return counts;
    }

    /** Returns the subtasks that own at least one vnode, as an unmodifiable ascending set. */
    public Set<Integer> activeSubtasks() {
        TreeSet<Integer> active = new TreeSet<>();
        for (int owner : ownerByVnode) {
            active.add(owner);
        }
        return Collections.unmodifiableSortedSet(active);
    }

    /**
     * Checks that {@code plan} can be applied to this table: it has moves, was made for this
     * table's epoch, and every move names an existing vnode once, its current owner and another
     * existing subtask.
     *
     * <p>An empty or stale plan is reported on its own. Otherwise the first problem of every vnode
     * is collected, so one exception lists everything that needs fixing.
     *
     * @throws InvalidHandoverException if the plan is empty, stale, or any move does not fit
     */
    public void validate(HandoverPlan plan) {
        Objects.requireNonNull(plan, "plan: null (expected: a HandoverPlan)");
        PlanValidation.validate(plan, this);
    }

    /**
     * Returns a new table at {@code epoch + 1} with {@code plan}'s moves applied. This table is
     * never modified.
     *
     * @throws InvalidHandoverException if the plan does not fit this table (see {@link
     *     #validate(HandoverPlan)})
     */
    public RoutingTable apply(HandoverPlan plan) {
        Objects.requireNonNull(plan, "plan: null (expected: a HandoverPlan)");
        validate(plan);
        int[] owners = ownerByVnode.clone();
        for (VnodeMove move : plan.moves()) {
            owners[move.vnode()] = move.toSubtask();
        }
        return new RoutingTable(Math.addExact(epoch, 1), layout, parallelism, owners);
    }

    /**
     * Checks that {@code subtask} exists, i.e. lies in {@code 0..parallelism-1}.
     *
     * @throws IllegalArgumentException naming the subtask and the valid range otherwise
     */
    public void checkSubtask(int subtask) {
        if (subtask < 0 || subtask >= parallelism) {
            throw new IllegalArgumentException(
                    "subtask: " + subtask + " (expected: 0.." + (parallelism - 1) + ")");
        }
    }

    private static void checkParallelism(int parallelism, VnodeLayout layout) {
        // Flink never runs more subtasks than key groups (maximum parallelism).
        if (parallelism < 1 || parallelism > layout.numKeyGroups()) {
            throw new IllegalArgumentException(
                    "parallelism: "
                            + parallelism
                            + " (expected: 1..numKeyGroups="
                            + layout.numKeyGroups()
                            + ")");
        }
    }

    /** Re-validates and re-copies deserialized fields, which bypass the constructor. */
    private Object readResolve() throws ObjectStreamException {
        try {
            int[] owners = ownerByVnode == null ? new int[0] : ownerByVnode.clone();
            return new RoutingTable(epoch, layout, parallelism, owners);
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
        if (!(o instanceof RoutingTable)) {
            return false;
        }
        RoutingTable that = (RoutingTable) o;
        return epoch == that.epoch
                && parallelism == that.parallelism
                && layout.equals(that.layout)
                && Arrays.equals(ownerByVnode, that.ownerByVnode);
    }

    @Override
    public int hashCode() {
        int result = Long.hashCode(epoch);
        result = 31 * result + layout.hashCode();
        result = 31 * result + parallelism;
        result = 31 * result + Arrays.hashCode(ownerByVnode);
        return result;
    }

    /** Returns e.g. {@code RoutingTable{epoch=2, numVnodes=16, vnodesPerSubtask=[6, 5, 5, 0]}}. */
    @Override
    public String toString() {
        return "RoutingTable{epoch="
                + epoch
                + ", numVnodes="
                + layout.numVnodes()
                + ", vnodesPerSubtask="
                + Arrays.toString(vnodeCountBySubtask())
                + "}";
    }
}
