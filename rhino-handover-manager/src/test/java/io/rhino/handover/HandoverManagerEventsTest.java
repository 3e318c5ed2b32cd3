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

import static io.rhino.core.handover.HandoverPhase.MARKERS_PROPAGATED;
import static io.rhino.core.handover.HandoverPhase.REQUESTED;
import static io.rhino.core.handover.HandoverPhase.STATE_SHIPPED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rhino.core.handover.HandoverId;
import io.rhino.core.handover.HandoverPhase;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Stale, repeated and contradictory reports. */
class HandoverManagerEventsTest {

    private final Harness h = new Harness();
    private CompletableFuture<HandoverResult> future;
    private HandoverId id;

    @BeforeEach
    void startHandover() {
        // Origins 0 and 1, targets 2 and 3.
        future = h.manager.handover(Harness.moves(1, 0, 2, 2, 0, 3, 9, 1, 2));
        id = h.lastId();
    }

    private HandoverPhase phase() {
        return h.manager.currentHandover().orElseThrow().phase();
    }

    @Test
    void reportsForUnknownHandoversAreIgnored() {
        HandoverId stranger = new HandoverId("from-before-the-failover");
        for (int router = 0; router < 3; router++) {
            h.manager.onRouterAck(stranger, router);
        }
        h.manager.onOriginShipped(stranger, 0, List.of(new ShippedVnode(1, 0, 2, "x")));
        h.manager.onTargetInstalled(stranger, 2, Set.of(1));
        // Even reports that would contradict the running plan: they are not for it.
        h.manager.onRouterAck(stranger, 99);

        assertThat(phase()).isEqualTo(REQUESTED);
        assertThat(h.port.forwards).isEmpty();
    }

    @Test
    void reportsForAnEndedHandoverAreIgnored() {
        h.completeProtocol(id);
        assertThat(future.join().isCompleted()).isTrue();
        int forwards = h.port.forwards.size();

        h.manager.handover(Harness.moves(4, 0, 3));
        HandoverId next = h.lastId();
        h.completeProtocol(id); // the old handover again

        assertThat(phase()).isEqualTo(REQUESTED);
        assertThat(h.manager.currentHandover().orElseThrow().id()).isEqualTo(next);
        assertThat(h.port.forwards).hasSize(forwards);
        assertThat(h.manager.routingTable().epoch()).isEqualTo(1);
    }

    @Test
    void repeatedReportsAreIdempotent() {
        h.manager.onRouterAck(id, 0);
        h.manager.onRouterAck(id, 0);
        h.manager.onRouterAck(id, 1);
        h.manager.onRouterAck(id, 1);
        assertThat(phase()).isEqualTo(REQUESTED);
        h.manager.onRouterAck(id, 2);
        assertThat(phase()).isEqualTo(MARKERS_PROPAGATED);

        h.ship(id, 0, 1, 2);
        h.ship(id, 0, 2, 1);
        h.ship(id, 1, 9);
        h.ship(id, 1, 9);
        assertThat(phase()).isEqualTo(STATE_SHIPPED);
        assertThat(h.port.forwards).hasSize(3);

        h.install(id, 2, 1, 9);
        h.install(id, 2, 1, 9);
        assertThat(future).isNotDone();
        h.install(id, 3, 2);
        assertThat(future.join().isCompleted()).isTrue();
        h.install(id, 3, 2);
        assertThat(h.manager.metrics().completed()).isEqualTo(1);
    }

    @Test
    void partlyRepeatedShipmentForwardsOnlyTheNewVnodes() {
        h.ship(id, 0, 1);
        h.ship(id, 0, 1, 2);
        assertThat(h.port.forwards)
                .extracting(f -> f.vnodes().stream().map(ShippedVnode::vnode).toList())
                .containsExactly(List.of(1), List.of(2));
    }

    @Test
    void installReportedBeforeItsShipmentStillWalksThePhasesInOrder() {
        h.install(id, 2, 1, 9);
        h.install(id, 3, 2);
        h.ship(id, 0, 1, 2);
        h.ship(id, 1, 9);
        assertThat(phase()).isEqualTo(REQUESTED);

        h.ackAllRouters(id);

        assertThat(future.join().phaseDurationsMillis().keySet())
                .containsExactly(
                        HandoverPhase.REQUESTED,
                        HandoverPhase.MARKERS_PROPAGATED,
                        HandoverPhase.ORIGIN_ALIGNED,
                        HandoverPhase.STATE_SHIPPED,
                        HandoverPhase.TARGET_INSTALLED,
                        HandoverPhase.COMPLETED);
    }

    @Test
    void ackFromAnUnknownRouterIsRejected() {
        assertThatThrownBy(() -> h.manager.onRouterAck(id, 3))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("routerSubtask: 3 (expected: 0..2, the router's parallelism is 3)");
    }

    @Test
    void shipmentFromANonOriginIsRejectedAndRecordsNothing() {
        assertThatThrownBy(() -> h.manager.onOriginShipped(id, 2, List.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(
                        "originSubtask: 2 (expected: an origin of handover "
                                + id
                                + ", one of [0, 1])");
    }

    @Test
    void shipmentThatContradictsThePlanIsRejectedAndRecordsNothing() {
        h.ackAllRouters(id);
        List<ShippedVnode> wrongTarget =
                List.of(new ShippedVnode(1, 0, 2, "ok"), new ShippedVnode(2, 0, 2, "wrong"));

        assertThatThrownBy(() -> h.manager.onOriginShipped(id, 0, wrongTarget))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(
                        "shipped vnode 2: 0->2 reported by origin 0 (expected: 0->3 reported by"
                                + " origin 0, as in handover "
                                + id
                                + ")");
        assertThatThrownBy(
                        () ->
                                h.manager.onOriginShipped(
                                        id, 0, List.of(new ShippedVnode(5, 0, 2, "x"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(
                        "shipped vnode: 5 (expected: a vnode moved by handover "
                                + id
                                + ", one of [1, 2, 9])");
        assertThat(phase()).isEqualTo(MARKERS_PROPAGATED);
        assertThat(h.port.forwards).isEmpty();
    }

    @Test
    void installationOnTheWrongTargetIsRejectedAndRecordsNothing() {
        assertThatThrownBy(() -> h.manager.onTargetInstalled(id, 3, Set.of(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(
                        "installed vnode: 1 on subtask 3 (expected: a vnode that handover "
                                + id
                                + " moves to subtask 3, one of [2])");
        h.completeProtocol(id);
        assertThat(future.join().isCompleted()).isTrue();
    }
}
