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

package io.rhino.handover;

import io.rhino.core.handover.HandoverId;
import io.rhino.core.handover.HandoverPhase;
import io.rhino.core.handover.HandoverPlan;
import io.rhino.core.handover.HandoverStateMachine;
import io.rhino.core.handover.VnodeMove;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.LongSupplier;

/**
 * What the routers, origins and targets of one started handover have reported, and the phase that
 * follows from it.
 *
 * <p>Reports can arrive in any order across routers, origins and targets (an origin may report
 * before the last router ack reaches the coordinator). {@link #advance()} still moves the {@link
 * HandoverStateMachine} one phase at a time in the fixed order, as far as the reports allow:
 *
 * <ul>
 *   <li>MARKERS_PROPAGATED once every router acknowledged the command;
 *   <li>ORIGIN_ALIGNED once every origin reported (possibly with no vnode yet);
 *   <li>STATE_SHIPPED once every moved vnode was shipped (and so forwarded to its target);
 *   <li>TARGET_INSTALLED once every moved vnode was installed, immediately followed by COMPLETED.
 * </ul>
 *
 * <p>Repeated reports are idempotent. A report that contradicts the plan throws {@link
 * IllegalArgumentException} and records nothing. Not thread-safe: guarded by the manager's lock.
 */
final class HandoverProgress {

    private final HandoverStateMachine machine;
    private final int routerParallelism;
    private final Map<Integer, VnodeMove> moveByVnode = new TreeMap<>();
    private final SortedSet<Integer> origins = new TreeSet<>();

    private final SortedSet<Integer> ackedRouters = new TreeSet<>();
    private final SortedSet<Integer> switchedRouters = new TreeSet<>();
    private final SortedSet<Integer> reportedOrigins = new TreeSet<>();
    private final SortedSet<Integer> shippedVnodes = new TreeSet<>();
    private final SortedSet<Integer> installedVnodes = new TreeSet<>();

    /**
     * Creates the progress of a handover that starts now, in phase REQUESTED.
     *
     * @param plan a plan already validated against the routing table
     * @param routerParallelism how many router subtasks must acknowledge, {@code >= 1}
     */
    HandoverProgress(
            HandoverId id, HandoverPlan plan, int routerParallelism, LongSupplier clockMillis) {
        if (routerParallelism < 1) {
            throw new IllegalArgumentException(
                    "routerParallelism: " + routerParallelism + " (expected: >= 1)");
        }
        this.machine = new HandoverStateMachine(id, plan, clockMillis);
        this.routerParallelism = routerParallelism;
        for (VnodeMove move : plan.moves()) {
            moveByVnode.put(move.vnode(), move);
            origins.add(move.fromSubtask());
        }
    }

    HandoverId id() {
        return machine.id();
    }

    HandoverPlan plan() {
        return machine.plan();
    }

    HandoverPhase phase() {
        return machine.phase();
    }

    HandoverStateMachine machine() {
        return machine;
    }

    /**
     * Records a router's acknowledgement.
     *
     * @return whether it was new
     * @throws IllegalArgumentException if there is no such router subtask
     */
    boolean recordRouterAck(int routerSubtask) {
        checkRouter(routerSubtask);
        switchedRouters.add(routerSubtask);
        return ackedRouters.add(routerSubtask);
    }

    private void checkRouter(int routerSubtask) {
        if (routerSubtask < 0 || routerSubtask >= routerParallelism) {
            throw new IllegalArgumentException(
                    "routerSubtask: "
                            + routerSubtask
                            + " (expected: 0.."
                            + (routerParallelism - 1)
                            + ", the router's parallelism is "
                            + routerParallelism
                            + ")");
        }
    }

    /**
     * Records that a router's input ended: it routes nothing any more and the gates count its end
     * as its marker, so it counts as an acknowledgement.
     */
    void recordRouterEnded(int routerSubtask) {
        checkRouter(routerSubtask);
        ackedRouters.add(routerSubtask);
    }

    /**
     * Every router acknowledged only by ending: none switched to the new table or sent a marker, so
     * no gate knows the handover and nothing changed.
     */
    boolean noRouterSwitched() {
        return ackedRouters.size() == routerParallelism && switchedRouters.isEmpty();
    }

    /**
     * Records that {@code originSubtask} is aligned and has shipped {@code vnodes} (maybe none
     * yet).
     *
     * @return the vnodes shipped for the first time, in report order; these must be forwarded
     * @throws IllegalArgumentException if the subtask is no origin of the plan or a vnode does not
     *     move from it to the target it names
     */
    List<ShippedVnode> recordShipped(int originSubtask, List<ShippedVnode> vnodes) {
        Objects.requireNonNull(vnodes, "vnodes: null (expected: a list, maybe empty)");
        if (!origins.contains(originSubtask)) {
            throw new IllegalArgumentException(
                    "originSubtask: "
                            + originSubtask
                            + " (expected: an origin of handover "
                            + id()
                            + ", one of "
                            + origins
                            + ")");
        }
        for (ShippedVnode shipped : vnodes) {
            checkShipped(originSubtask, shipped);
        }
        reportedOrigins.add(originSubtask);
        List<ShippedVnode> fresh = new ArrayList<>();
        for (ShippedVnode shipped : vnodes) {
            if (shippedVnodes.add(shipped.vnode())) {
                fresh.add(shipped);
            }
        }
        return fresh;
    }

    private void checkShipped(int originSubtask, ShippedVnode shipped) {
        Objects.requireNonNull(shipped, "vnodes: contains null (expected: ShippedVnode elements)");
        VnodeMove move = moveByVnode.get(shipped.vnode());
        if (move == null) {
            throw new IllegalArgumentException(
                    "shipped vnode: "
                            + shipped.vnode()
                            + " (expected: a vnode moved by handover "
                            + id()
                            + ", one of "
                            + moveByVnode.keySet()
                            + ")");
        }
        if (move.fromSubtask() != originSubtask
                || shipped.fromSubtask() != originSubtask
                || shipped.toSubtask() != move.toSubtask()) {
            throw new IllegalArgumentException(
                    "shipped vnode "
                            + shipped.vnode()
                            + ": "
                            + shipped.fromSubtask()
                            + "->"
                            + shipped.toSubtask()
                            + " reported by origin "
                            + originSubtask
                            + " (expected: "
                            + move.fromSubtask()
                            + "->"
                            + move.toSubtask()
                            + " reported by origin "
                            + move.fromSubtask()
                            + ", as in handover "
                            + id()
                            + ")");
        }
    }

    /**
     * Records that {@code targetSubtask} installed {@code vnodes}.
     *
     * @return the vnodes installed for the first time, ascending
     * @throws IllegalArgumentException if a vnode does not move to that subtask
     */
    Set<Integer> recordInstalled(int targetSubtask, Set<Integer> vnodes) {
        Objects.requireNonNull(vnodes, "vnodes: null (expected: a set, maybe empty)");
        for (Integer vnode : vnodes) {
            Objects.requireNonNull(vnode, "vnodes: contains null (expected: vnode numbers)");
            VnodeMove move = moveByVnode.get(vnode);
            if (move == null || move.toSubtask() != targetSubtask) {
                throw new IllegalArgumentException(
                        "installed vnode: "
                                + vnode
                                + " on subtask "
                                + targetSubtask
                                + " (expected: a vnode that handover "
                                + id()
                                + " moves to subtask "
                                + targetSubtask
                                + ", one of "
                                + vnodesMovingTo(targetSubtask)
                                + ")");
            }
        }
        TreeSet<Integer> fresh = new TreeSet<>();
        for (Integer vnode : vnodes) {
            if (installedVnodes.add(vnode)) {
                fresh.add(vnode);
            }
        }
        return Collections.unmodifiableSortedSet(fresh);
    }

    /**
     * Advances the state machine as far as the recorded reports allow.
     *
     * @return the phases entered, in order; empty if none
     */
    List<HandoverPhase> advance() {
        List<HandoverPhase> entered = new ArrayList<>();
        while (true) {
            HandoverPhase next = machine.phase().next().orElse(null);
            if (next == null || !reached(next)) {
                return entered;
            }
            machine.advanceTo(next);
            entered.add(next);
        }
    }

    private boolean reached(HandoverPhase phase) {
        switch (phase) {
            case MARKERS_PROPAGATED:
                return ackedRouters.size() == routerParallelism;
            case ORIGIN_ALIGNED:
                return reportedOrigins.containsAll(origins);
            case STATE_SHIPPED:
                return shippedVnodes.size() == moveByVnode.size();
            case TARGET_INSTALLED:
                return installedVnodes.size() == moveByVnode.size();
            case COMPLETED:
                // Reached TARGET_INSTALLED only after every earlier condition held.
                return true;
            default:
                return false;
        }
    }

    /**
     * Describes every report still missing, in protocol order, e.g. {@code targets [2] to install
     * vnodes [5, 7]}.
     */
    String waitingFor() {
        List<String> missing = new ArrayList<>();
        SortedSet<Integer> silentRouters = new TreeSet<>();
        for (int router = 0; router < routerParallelism; router++) {
            if (!ackedRouters.contains(router)) {
                silentRouters.add(router);
            }
        }
        if (!silentRouters.isEmpty()) {
            missing.add("routers " + silentRouters + " to acknowledge the command");
        }
        Set<Integer> lateOrigins = new TreeSet<>();
        Set<Integer> unshipped = new TreeSet<>();
        Set<Integer> lateTargets = new TreeSet<>();
        Set<Integer> uninstalled = new TreeSet<>();
        for (VnodeMove move : moveByVnode.values()) {
            if (!shippedVnodes.contains(move.vnode())) {
                lateOrigins.add(move.fromSubtask());
                unshipped.add(move.vnode());
            }
            if (!installedVnodes.contains(move.vnode())) {
                lateTargets.add(move.toSubtask());
                uninstalled.add(move.vnode());
            }
        }
        if (!lateOrigins.isEmpty()) {
            missing.add("origins " + lateOrigins + " to ship vnodes " + unshipped);
        }
        if (!lateTargets.isEmpty()) {
            missing.add("targets " + lateTargets + " to install vnodes " + uninstalled);
        }
        return missing.isEmpty() ? "nothing" : String.join("; ", missing);
    }

    private Set<Integer> vnodesMovingTo(int targetSubtask) {
        Set<Integer> vnodes = new LinkedHashSet<>();
        for (VnodeMove move : moveByVnode.values()) {
            if (move.toSubtask() == targetSubtask) {
                vnodes.add(move.vnode());
            }
        }
        return vnodes;
    }
}
