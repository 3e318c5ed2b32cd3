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

package io.rhino.flink.routing;

import io.rhino.core.handover.HandoverId;
import io.rhino.core.handover.HandoverMarker;
import io.rhino.core.handover.VnodeMove;
import java.util.BitSet;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * One handover as one gate subtask sees it: which routers' markers arrived, which vnodes it gives
 * away (origin) and receives (target), and what is done. An install can reach a target before any
 * marker (the coordinator is faster than a data channel), so installed vnodes are remembered before
 * the plan is known.
 */
final class GateHandover {

    private final HandoverId id;
    private final int subtask;
    private final BitSet markersFrom = new BitSet();
    private final Set<Integer> installed = new HashSet<>();
    private int routerParallelism = -1;
    private Map<Integer, Integer> targetByOutgoing = Map.of();
    private Set<Integer> incoming = Set.of();
    private boolean shipped;
    private long firstMarkerNanos;

    GateHandover(HandoverId id, int subtask) {
        this(id, subtask, new BitSet());
    }

    /**
     * @param endedRouters routers whose output already ended: they count as having sent this
     *     handover's markers
     */
    GateHandover(HandoverId id, int subtask, BitSet endedRouters) {
        this.id = id;
        this.subtask = subtask;
        markersFrom.or(endedRouters);
    }

    /**
     * A router's output ended: it sends no record any more, so it is as if its marker arrived, and
     * an origin waiting for it may ship.
     */
    void routerEnded(int routerSubtask) {
        markersFrom.set(routerSubtask);
    }

    HandoverId id() {
        return id;
    }

    /**
     * Whether the first marker of a handover this gate has not heard of contradicts what the
     * subtask owns, so it belongs to a handover that ended before the checkpoint this subtask was
     * restored from. With unaligned checkpoints, markers still in flight are stored in the
     * checkpoint and replayed after a restore; such a marker would make the gate buffer records of
     * a vnode it already owns, forever.
     *
     * <p>Why ownership tells: a checkpoint's coordinator part waits until no handover runs, so
     * every handover up to the restored epoch had ended. Its origins had every router's marker by
     * then (they ship only once aligned), so a replayed marker reaches a gate that was a target, or
     * not involved. A target that has not seen the marker yet cannot have given the vnode away
     * since (that would need the marker first: channels are FIFO), so it still owns it. A live
     * handover's first marker never finds its incoming vnodes owned, unless their install came
     * first, which this gate then already knows the handover from.
     */
    static boolean contradictsOwnership(
            HandoverMarker marker, int subtask, java.util.function.IntPredicate owns) {
        for (VnodeMove move : marker.plan().moves()) {
            if (move.toSubtask() == subtask && owns.test(move.vnode())) {
                return true;
            }
            if (move.fromSubtask() == subtask && !owns.test(move.vnode())) {
                return true;
            }
        }
        return false;
    }

    /** Records a marker; returns true if it was the first one of this handover here. */
    boolean onMarker(HandoverMarker marker, int routerParallelism) {
        boolean first = this.routerParallelism < 0;
        if (first) {
            this.routerParallelism = routerParallelism;
            this.firstMarkerNanos = System.nanoTime();
            Map<Integer, Integer> out = new TreeMap<>();
            Set<Integer> in = new TreeSet<>();
            for (VnodeMove move : marker.plan().moves()) {
                if (move.fromSubtask() == subtask) {
                    out.put(move.vnode(), move.toSubtask());
                }
                if (move.toSubtask() == subtask) {
                    in.add(move.vnode());
                }
            }
            targetByOutgoing = out;
            incoming = in;
        }
        markersFrom.set(marker.routerSubtask());
        return first;
    }

    /** Incoming vnodes not installed yet: the ones whose records must wait. */
    Set<Integer> pendingIncoming() {
        Set<Integer> pending = new TreeSet<>(incoming);
        pending.removeAll(installed);
        return pending;
    }

    /** Vnodes this subtask gives away, ascending. */
    Set<Integer> outgoing() {
        return targetByOutgoing.keySet();
    }

    int targetOf(int outgoingVnode) {
        return targetByOutgoing.get(outgoingVnode);
    }

    /** Every router's marker arrived: no record of an outgoing vnode can still come. */
    boolean aligned() {
        return routerParallelism > 0 && markersFrom.cardinality() == routerParallelism;
    }

    boolean needsShipping() {
        return aligned() && !shipped && !targetByOutgoing.isEmpty();
    }

    /**
     * This subtask gives vnodes away, has seen a marker, and has not shipped them yet. Event time
     * must stand still meanwhile: routers that already switched send the outgoing vnodes' newer
     * records to the target, so a timer fired here (e.g. a window) would miss them.
     */
    boolean awaitsShipping() {
        return routerParallelism > 0 && !targetByOutgoing.isEmpty() && !shipped;
    }

    void markShipped() {
        shipped = true;
    }

    void markInstalled(Set<Integer> vnodes) {
        installed.addAll(vnodes);
    }

    long millisSinceFirstMarker() {
        return (System.nanoTime() - firstMarkerNanos) / 1_000_000;
    }

    /** Nothing left to do here. */
    boolean done() {
        return aligned()
                && (targetByOutgoing.isEmpty() || shipped)
                && installed.containsAll(incoming);
    }
}
