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

import io.rhino.core.handover.HandoverCommand;
import io.rhino.core.handover.HandoverId;
import io.rhino.core.handover.HandoverPlan;
import io.rhino.core.handover.VnodeMove;
import io.rhino.core.routing.RoutingTable;
import io.rhino.core.routing.VnodeLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/** A manager wired to a fake clock, a manual scheduler and a recording port. */
final class Harness {

    static final String OPERATOR = "bids";

    /** 16 vnodes over subtasks 0..3; vnodes 0-7 on subtask 0, 8-15 on subtask 1, 2 and 3 idle. */
    static RoutingTable table16() {
        return RoutingTable.initial(new VnodeLayout(128, 16), 4, 2);
    }

    final FakeClock clock = new FakeClock(1_000_000);
    final ManualScheduler scheduler = new ManualScheduler(clock);
    final RecordingPort port;
    final int routers;
    final HandoverManager manager;

    Harness() {
        this(table16(), 3, HandoverManagerOptions.defaults());
    }

    Harness(HandoverManagerOptions options) {
        this(table16(), 3, options);
    }

    Harness(RoutingTable table, int routers, HandoverManagerOptions options) {
        this(table, routers, options, new RecordingPort());
    }

    Harness(RoutingTable table, int routers, HandoverManagerOptions options, RecordingPort port) {
        this.port = port;
        this.routers = routers;
        this.manager =
                new HandoverManager(OPERATOR, table, routers, port, options, clock, scheduler);
    }

    /** A plan at the manager's current epoch; moves as {@code vnode, from, to} triples. */
    HandoverPlan plan(int... triples) {
        return HandoverPlan.of(manager.routingTable().epoch(), moves(triples));
    }

    static List<VnodeMove> moves(int... triples) {
        List<VnodeMove> moves = new ArrayList<>();
        for (int i = 0; i < triples.length; i += 3) {
            moves.add(new VnodeMove(triples[i], triples[i + 1], triples[i + 2]));
        }
        return moves;
    }

    /** The id of the last command sent to the routers. */
    HandoverId lastId() {
        return port.lastCommand().handoverId();
    }

    /** The payload origins ship for {@code vnode} in these tests. */
    static String payloadOf(HandoverId id, int vnode) {
        return "state-of-" + vnode + "@" + id;
    }

    void ackAllRouters(HandoverId id) {
        for (int router = 0; router < routers; router++) {
            manager.onRouterAck(id, router);
        }
    }

    /** Reports that {@code origin} shipped {@code vnodes} as planned by the running command. */
    void ship(HandoverId id, int origin, Integer... vnodes) {
        manager.onOriginShipped(id, origin, shipped(commandOf(id).plan(), id, vnodes));
    }

    static List<ShippedVnode> shipped(HandoverPlan plan, HandoverId id, Integer... vnodes) {
        Map<Integer, VnodeMove> byVnode = new TreeMap<>();
        plan.moves().forEach(m -> byVnode.put(m.vnode(), m));
        List<ShippedVnode> shipped = new ArrayList<>();
        for (int vnode : vnodes) {
            VnodeMove move = byVnode.get(vnode);
            shipped.add(
                    new ShippedVnode(
                            vnode, move.fromSubtask(), move.toSubtask(), payloadOf(id, vnode)));
        }
        return shipped;
    }

    void install(HandoverId id, int target, Integer... vnodes) {
        manager.onTargetInstalled(id, target, Set.of(vnodes));
    }

    /** Delivers every report of handover {@code id} in protocol order. */
    void completeProtocol(HandoverId id) {
        HandoverPlan plan = commandOf(id).plan();
        ackAllRouters(id);
        Map<Integer, List<Integer>> byOrigin = new TreeMap<>();
        Map<Integer, Set<Integer>> byTarget = new TreeMap<>();
        for (VnodeMove move : plan.moves()) {
            byOrigin.computeIfAbsent(move.fromSubtask(), o -> new ArrayList<>()).add(move.vnode());
            byTarget.computeIfAbsent(move.toSubtask(), t -> new TreeSet<>()).add(move.vnode());
        }
        byOrigin.forEach((origin, vnodes) -> ship(id, origin, vnodes.toArray(Integer[]::new)));
        byTarget.forEach((target, vnodes) -> manager.onTargetInstalled(id, target, vnodes));
    }

    HandoverCommand commandOf(HandoverId id) {
        return port.commands.stream()
                .filter(c -> c.handoverId().equals(id))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no command sent for " + id));
    }
}
