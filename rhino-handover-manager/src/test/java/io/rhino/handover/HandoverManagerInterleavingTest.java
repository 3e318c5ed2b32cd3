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

import static org.assertj.core.api.Assertions.assertThat;

import io.rhino.core.handover.HandoverId;
import io.rhino.core.handover.HandoverPhase;
import io.rhino.core.handover.HandoverPlan;
import io.rhino.core.handover.VnodeMove;
import io.rhino.core.routing.RoutingTable;
import io.rhino.handover.ProtocolEvent.OriginShipped;
import io.rhino.handover.ProtocolEvent.RouterAck;
import io.rhino.handover.ProtocolEvent.TargetInstalled;
import io.rhino.handover.RecordingPort.Forward;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** Reports delivered in every order the protocol allows still walk the phases in order. */
class HandoverManagerInterleavingTest {

    private static final List<HandoverPhase> ALL_PHASES =
            Arrays.stream(HandoverPhase.values()).filter(p -> p != HandoverPhase.FAILED).toList();

    @Test
    void everyAllowedInterleavingOfASmallHandoverCompletes() {
        HandoverPlan plan = HandoverPlan.of(0, Harness.moves(1, 0, 2, 9, 1, 3));
        HandoverId id = new HandoverId("h");
        List<ProtocolEvent> events =
                List.of(
                        new RouterAck(id, 0),
                        new RouterAck(id, 1),
                        new OriginShipped(id, 0, Harness.shipped(plan, id, 1)),
                        new OriginShipped(id, 1, Harness.shipped(plan, id, 9)),
                        new TargetInstalled(id, 2, Set.of(1)),
                        new TargetInstalled(id, 3, Set.of(9)));
        int checked = 0;
        for (List<ProtocolEvent> order : permutations(events)) {
            // A target installs only what the manager forwarded, i.e. what was shipped.
            if (order.indexOf(events.get(4)) < order.indexOf(events.get(2))
                    || order.indexOf(events.get(5)) < order.indexOf(events.get(3))) {
                continue;
            }
            Harness h = new Harness(Harness.table16(), 2, HandoverManagerOptions.defaults());
            runAndCheck(h, id, plan, order, "order " + order);
            checked++;
        }
        assertThat(checked).isEqualTo(180);
    }

    /** Random moves of 1..10 distinct vnodes, each to another existing subtask. */
    static HandoverPlan randomPlan(RoutingTable table, Random random) {
        List<Integer> vnodes = new ArrayList<>();
        for (int v = 0; v < table.layout().numVnodes(); v++) {
            vnodes.add(v);
        }
        java.util.Collections.shuffle(vnodes, random);
        int count = 1 + random.nextInt(Math.min(10, vnodes.size()));
        List<VnodeMove> moves = new ArrayList<>();
        for (int vnode : vnodes.subList(0, count)) {
            int from = table.ownerOf(vnode);
            int to = (from + 1 + random.nextInt(table.parallelism() - 1)) % table.parallelism();
            moves.add(new VnodeMove(vnode, from, to));
        }
        return HandoverPlan.of(table.epoch(), moves);
    }

    static void runAndCheck(
            Harness h, HandoverId id, HandoverPlan plan, List<ProtocolEvent> order, String what) {
        RoutingTable before = h.manager.routingTable();
        CompletableFuture<HandoverResult> future = h.manager.handover(id, plan);
        assertThat(h.port.commands).as(what).hasSize(1);
        Oracle oracle = new Oracle(plan, h.routers);

        for (int i = 0; i < order.size(); i++) {
            ProtocolEvent event = order.get(i);
            h.clock.advance(1 + i % 3);
            event.deliverTo(h.manager);
            oracle.record(event);
            String step = what + ", after step " + i + " " + event;
            HandoverPhase expected = oracle.phase();
            if (expected == HandoverPhase.COMPLETED) {
                assertThat(future).as(step).isCompleted();
                assertThat(h.manager.currentHandover()).as(step).isEmpty();
                assertThat(h.manager.routingTable()).as(step).isEqualTo(before.apply(plan));
            } else {
                assertThat(future).as(step).isNotDone();
                assertThat(h.manager.currentHandover().orElseThrow().phase())
                        .as(step)
                        .isEqualTo(expected);
                assertThat(h.manager.routingTable()).as(step).isEqualTo(before);
            }
        }

        HandoverResult result = future.join();
        assertThat(result.isCompleted()).as(what).isTrue();
        assertThat(result.phaseDurationsMillis().keySet())
                .as(what)
                .containsExactlyElementsOf(ALL_PHASES);
        assertThat(result.phaseDurationsMillis().values().stream().mapToLong(Long::longValue).sum())
                .as(what)
                .isEqualTo(result.totalMillis());
        assertThat(h.port.jobFailures).as(what).isEmpty();

        // Each vnode is forwarded exactly once, to its target, with its origin's payload.
        Map<Integer, Integer> forwardedTo = new HashMap<>();
        for (Forward forward : h.port.forwards) {
            assertThat(forward.id()).as(what).isEqualTo(id);
            for (ShippedVnode vnode : forward.vnodes()) {
                assertThat(forward.target()).as(what).isEqualTo(vnode.toSubtask());
                assertThat(vnode.payload())
                        .as(what)
                        .isEqualTo(Harness.payloadOf(id, vnode.vnode()));
                assertThat(forwardedTo.put(vnode.vnode(), forward.target()))
                        .as(what + ": vnode " + vnode.vnode() + " forwarded twice")
                        .isNull();
            }
        }
        Map<Integer, Integer> expected = new HashMap<>();
        plan.moves().forEach(m -> expected.put(m.vnode(), m.toSubtask()));
        assertThat(forwardedTo).as(what).isEqualTo(expected);
    }

    /** The phase the reports so far allow, computed independently of the manager. */
    private static final class Oracle {
        private final HandoverPlan plan;
        private final int routers;
        private final Set<Integer> acked = new TreeSet<>();
        private final Set<Integer> reportedOrigins = new TreeSet<>();
        private final Set<Integer> shipped = new TreeSet<>();
        private final Set<Integer> installed = new TreeSet<>();

        Oracle(HandoverPlan plan, int routers) {
            this.plan = plan;
            this.routers = routers;
        }

        void record(ProtocolEvent event) {
            if (event instanceof RouterAck ack) {
                acked.add(ack.router());
            } else if (event instanceof OriginShipped ship) {
                reportedOrigins.add(ship.origin());
                shipped.addAll(ship.vnodeSet());
            } else if (event instanceof TargetInstalled install) {
                installed.addAll(install.vnodes());
            }
        }

        HandoverPhase phase() {
            Set<Integer> origins = new TreeSet<>();
            plan.moves().forEach(m -> origins.add(m.fromSubtask()));
            if (acked.size() < routers) {
                return HandoverPhase.REQUESTED;
            }
            if (!reportedOrigins.containsAll(origins)) {
                return HandoverPhase.MARKERS_PROPAGATED;
            }
            if (!shipped.containsAll(plan.vnodes())) {
                return HandoverPhase.ORIGIN_ALIGNED;
            }
            if (!installed.containsAll(plan.vnodes())) {
                return HandoverPhase.STATE_SHIPPED;
            }
            return HandoverPhase.COMPLETED;
        }
    }

    private static <T> List<List<T>> permutations(List<T> items) {
        if (items.isEmpty()) {
            return List.of(List.of());
        }
        List<List<T>> result = new ArrayList<>();
        for (int i = 0; i < items.size(); i++) {
            List<T> rest = new ArrayList<>(items);
            T head = rest.remove(i);
            for (List<T> tail : permutations(rest)) {
                List<T> permutation = new ArrayList<>();
                permutation.add(head);
                permutation.addAll(tail);
                result.add(permutation);
            }
        }
        return result;
    }
}
