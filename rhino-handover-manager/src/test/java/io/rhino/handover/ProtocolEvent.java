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
import io.rhino.core.handover.HandoverPlan;
import io.rhino.core.handover.VnodeMove;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/** A report a subtask sends to the manager during a handover. */
sealed interface ProtocolEvent {

    HandoverId id();

    void deliverTo(HandoverManager manager);

    /** A router acknowledged the command. */
    record RouterAck(HandoverId id, int router) implements ProtocolEvent {
        @Override
        public void deliverTo(HandoverManager manager) {
            manager.onRouterAck(id, router);
        }

        @Override
        public String toString() {
            return "ack(router " + router + ")";
        }
    }

    /** An origin shipped some of its vnodes (maybe none: it reports alignment). */
    record OriginShipped(HandoverId id, int origin, List<ShippedVnode> vnodes)
            implements ProtocolEvent {
        @Override
        public void deliverTo(HandoverManager manager) {
            manager.onOriginShipped(id, origin, vnodes);
        }

        Set<Integer> vnodeSet() {
            Set<Integer> set = new TreeSet<>();
            vnodes.forEach(v -> set.add(v.vnode()));
            return set;
        }

        @Override
        public String toString() {
            return "ship(origin " + origin + ", " + vnodeSet() + ")";
        }
    }

    /** A target installed some of its vnodes. */
    record TargetInstalled(HandoverId id, int target, Set<Integer> vnodes)
            implements ProtocolEvent {
        @Override
        public void deliverTo(HandoverManager manager) {
            manager.onTargetInstalled(id, target, vnodes);
        }

        @Override
        public String toString() {
            return "install(target " + target + ", " + new TreeSet<>(vnodes) + ")";
        }
    }

    /**
     * Every report of one handover in a random order the protocol allows: router acks and origin
     * reports in any order (an ack may reach the coordinator after the origin's report), a target's
     * report only after its vnodes were shipped. Reports are randomly split into parts, origins
     * sometimes report alignment with no vnode first, and some reports are repeated later.
     */
    static List<ProtocolEvent> randomOrder(
            HandoverId id, HandoverPlan plan, int routers, Random random) {
        List<ProtocolEvent> pool = new ArrayList<>();
        for (int router = 0; router < routers; router++) {
            pool.add(new RouterAck(id, router));
        }
        Map<Integer, List<VnodeMove>> byOrigin = new TreeMap<>();
        Map<Integer, List<VnodeMove>> byTarget = new TreeMap<>();
        for (VnodeMove move : plan.moves()) {
            byOrigin.computeIfAbsent(move.fromSubtask(), o -> new ArrayList<>()).add(move);
            byTarget.computeIfAbsent(move.toSubtask(), t -> new ArrayList<>()).add(move);
        }
        byOrigin.forEach(
                (origin, moves) -> {
                    if (random.nextInt(4) == 0) {
                        pool.add(new OriginShipped(id, origin, List.of()));
                    }
                    for (List<VnodeMove> part : split(moves, random)) {
                        List<ShippedVnode> shipped = new ArrayList<>();
                        for (VnodeMove m : part) {
                            shipped.add(
                                    new ShippedVnode(
                                            m.vnode(),
                                            m.fromSubtask(),
                                            m.toSubtask(),
                                            Harness.payloadOf(id, m.vnode())));
                        }
                        pool.add(new OriginShipped(id, origin, shipped));
                    }
                });
        byTarget.forEach(
                (target, moves) -> {
                    for (List<VnodeMove> part : split(moves, random)) {
                        Set<Integer> vnodes = new TreeSet<>();
                        part.forEach(m -> vnodes.add(m.vnode()));
                        pool.add(new TargetInstalled(id, target, vnodes));
                    }
                });

        List<ProtocolEvent> order = new ArrayList<>();
        Set<Integer> shipped = new TreeSet<>();
        while (!pool.isEmpty()) {
            List<ProtocolEvent> ready = new ArrayList<>();
            for (ProtocolEvent event : pool) {
                if (!(event instanceof TargetInstalled install)
                        || shipped.containsAll(install.vnodes())) {
                    ready.add(event);
                }
            }
            ProtocolEvent next = ready.get(random.nextInt(ready.size()));
            pool.remove(next);
            order.add(next);
            if (next instanceof OriginShipped ship) {
                shipped.addAll(ship.vnodeSet());
            }
        }
        int duplicates = random.nextInt(3);
        for (int i = 0; i < duplicates; i++) {
            int original = random.nextInt(order.size());
            int at = original + 1 + random.nextInt(order.size() - original);
            order.add(at, order.get(original));
        }
        return order;
    }

    private static <T> List<List<T>> split(List<T> items, Random random) {
        List<T> shuffled = new ArrayList<>(items);
        Collections.shuffle(shuffled, random);
        List<List<T>> parts = new ArrayList<>();
        int start = 0;
        while (start < shuffled.size()) {
            int end = start + 1 + random.nextInt(shuffled.size() - start);
            parts.add(List.copyOf(shuffled.subList(start, end)));
            start = end;
        }
        return parts;
    }
}
