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

import static io.rhino.core.handover.HandoverPhase.COMPLETED;
import static io.rhino.core.handover.HandoverPhase.MARKERS_PROPAGATED;
import static io.rhino.core.handover.HandoverPhase.ORIGIN_ALIGNED;
import static io.rhino.core.handover.HandoverPhase.REQUESTED;
import static io.rhino.core.handover.HandoverPhase.STATE_SHIPPED;
import static io.rhino.core.handover.HandoverPhase.TARGET_INSTALLED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import io.rhino.core.handover.HandoverCommand;
import io.rhino.core.handover.HandoverId;
import io.rhino.core.handover.HandoverPhase;
import io.rhino.core.handover.HandoverPlan;
import io.rhino.core.routing.RoutingTable;
import io.rhino.handover.RecordingPort.Forward;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class HandoverManagerHappyPathTest {

    private final Harness h = new Harness();

    private HandoverPhase phase() {
        return h.manager.currentHandover().orElseThrow().phase();
    }

    @Test
    void drivesSeveralOriginsAndTargetsToCompletion() {
        RoutingTable before = h.manager.routingTable();
        // Origins 0 and 1, targets 2 and 3.
        CompletableFuture<HandoverResult> future =
                h.manager.handover(Harness.moves(1, 0, 2, 2, 0, 3, 9, 1, 2, 10, 1, 3, 11, 1, 2));

        HandoverCommand command = h.port.lastCommand();
        HandoverId id = command.handoverId();
        assertThat(h.port.commands).hasSize(1);
        assertThat(command.newEpoch()).isEqualTo(1);
        assertThat(command.plan().basedOnEpoch()).isZero();
        assertThat(h.manager.currentHandover())
                .hasValueSatisfying(
                        status -> {
                            assertThat(status.id()).isEqualTo(id);
                            assertThat(status.phase()).isEqualTo(REQUESTED);
                            assertThat(status.queuedBehindCheckpoint()).isFalse();
                        });

        h.clock.advance(10);
        h.manager.onRouterAck(id, 0);
        h.manager.onRouterAck(id, 2);
        assertThat(phase()).isEqualTo(REQUESTED);
        h.manager.onRouterAck(id, 1);
        assertThat(phase()).isEqualTo(MARKERS_PROPAGATED);

        h.clock.advance(20);
        h.ship(id, 0, 1, 2);
        assertThat(phase()).isEqualTo(MARKERS_PROPAGATED);
        h.ship(id, 1, 9, 10, 11);
        // Every origin reported and every vnode was forwarded: two phases in one step.
        assertThat(phase()).isEqualTo(STATE_SHIPPED);

        h.clock.advance(30);
        h.install(id, 2, 1, 9, 11);
        assertThat(phase()).isEqualTo(STATE_SHIPPED);
        assertThat(h.manager.routingTable()).isEqualTo(before);
        assertThat(future).isNotDone();

        h.clock.advance(40);
        h.install(id, 3, 2, 10);

        assertThat(future).isCompleted();
        HandoverResult result = future.join();
        assertThat(result.id()).isEqualTo(id);
        assertThat(result.outcome()).isEqualTo(HandoverResult.Outcome.COMPLETED);
        assertThat(result.newEpoch()).isEqualTo(1);
        assertThat(result.plan()).isEqualTo(command.plan());
        assertThat(result.failedIn()).isEmpty();
        assertThat(result.failureCause()).isEmpty();
        assertThat(result.phaseDurationsMillis())
                .containsExactly(
                        entry(REQUESTED, 0L),
                        entry(MARKERS_PROPAGATED, 10L),
                        entry(ORIGIN_ALIGNED, 20L),
                        entry(STATE_SHIPPED, 0L),
                        entry(TARGET_INSTALLED, 70L),
                        entry(COMPLETED, 0L));
        assertThat(result.totalMillis()).isEqualTo(100);

        RoutingTable after = h.manager.routingTable();
        assertThat(after).isEqualTo(before.apply(command.plan()));
        assertThat(after.epoch()).isEqualTo(1);
        assertThat(after.vnodesOwnedBy(2)).containsExactly(1, 9, 11);
        assertThat(after.vnodesOwnedBy(3)).containsExactly(2, 10);
        assertThat(h.manager.currentHandover()).isEmpty();
        assertThat(h.manager.result(id)).contains(result);

        HandoverMetrics metrics = h.manager.metrics();
        assertThat(metrics.started()).isEqualTo(1);
        assertThat(metrics.completed()).isEqualTo(1);
        assertThat(metrics.failed()).isZero();
        assertThat(metrics.rejected()).isZero();
        assertThat(metrics.lastDurationMillis()).isEqualTo(100);
        assertThat(metrics.lastPhaseDurationsMillis()).isEqualTo(result.phaseDurationsMillis());
        assertThat(metrics.currentEpoch()).isEqualTo(1);
        assertThat(metrics.inFlight()).isFalse();
        assertThat(metrics.queued()).isZero();
        assertThat(h.port.jobFailures).isEmpty();
        assertThat(h.scheduler.pendingTasks()).as("timeout cancelled").isZero();
    }

    @Test
    void forwardsEachPayloadToItsTargetGroupedPerOriginReport() {
        h.manager.handover(Harness.moves(1, 0, 2, 2, 0, 3, 3, 0, 2, 9, 1, 2));
        HandoverId id = h.lastId();
        h.ackAllRouters(id);

        h.ship(id, 0, 1, 2, 3);
        assertThat(h.port.forwards)
                .containsExactly(
                        new Forward(
                                2,
                                id,
                                List.of(
                                        new ShippedVnode(1, 0, 2, Harness.payloadOf(id, 1)),
                                        new ShippedVnode(3, 0, 2, Harness.payloadOf(id, 3)))),
                        new Forward(
                                3,
                                id,
                                List.of(new ShippedVnode(2, 0, 3, Harness.payloadOf(id, 2)))));

        h.ship(id, 1, 9);
        assertThat(h.port.forwards)
                .last()
                .isEqualTo(
                        new Forward(
                                2,
                                id,
                                List.of(new ShippedVnode(9, 1, 2, Harness.payloadOf(id, 9)))));
        assertThat(h.port.forwards).hasSize(3);
    }

    @Test
    void payloadIsOpaqueAndMayBeNull() {
        h.manager.handover(Harness.moves(4, 0, 3));
        HandoverId id = h.lastId();
        h.manager.onOriginShipped(id, 0, List.of(new ShippedVnode(4, 0, 3, null)));
        assertThat(h.port.forwards)
                .containsExactly(new Forward(3, id, List.of(new ShippedVnode(4, 0, 3, null))));
    }

    @Test
    void originMayReportAlignmentFirstAndShipItsVnodesOneByOne() {
        h.manager.handover(Harness.moves(1, 0, 2, 2, 0, 3));
        HandoverId id = h.lastId();
        h.ackAllRouters(id);

        h.manager.onOriginShipped(id, 0, List.of());
        assertThat(phase()).isEqualTo(ORIGIN_ALIGNED);
        assertThat(h.port.forwards).isEmpty();
        h.ship(id, 0, 2);
        assertThat(phase()).isEqualTo(ORIGIN_ALIGNED);
        h.ship(id, 0, 1);
        assertThat(phase()).isEqualTo(STATE_SHIPPED);
        assertThat(h.port.forwards).extracting(Forward::target).containsExactly(3, 2);
    }

    @Test
    void planBasedOnTheCurrentEpochAfterEarlierHandovers() {
        CompletableFuture<HandoverResult> first = h.manager.handover(Harness.moves(1, 0, 2));
        h.completeProtocol(h.lastId());
        assertThat(first.join().newEpoch()).isEqualTo(1);

        CompletableFuture<HandoverResult> second = h.manager.handover(Harness.moves(1, 2, 3));
        assertThat(h.port.lastCommand().plan().basedOnEpoch()).isEqualTo(1);
        assertThat(h.port.lastCommand().newEpoch()).isEqualTo(2);
        h.completeProtocol(h.lastId());

        assertThat(second.join().newEpoch()).isEqualTo(2);
        assertThat(h.manager.routingTable().ownerOf(1)).isEqualTo(3);
        assertThat(h.manager.metrics().completed()).isEqualTo(2);
    }

    @Test
    void acceptsCallerChosenIdsAndReportsStatusById() {
        HandoverId id = new HandoverId("rebalance-7");
        HandoverPlan plan = h.plan(1, 0, 2);
        CompletableFuture<HandoverResult> future = h.manager.handover(id, plan);

        assertThat(h.lastId()).isEqualTo(id);
        assertThat(h.manager.status(id)).map(HandoverStatus::plan).contains(plan);
        assertThat(h.manager.status(new HandoverId("other"))).isEmpty();
        h.completeProtocol(id);

        assertThat(future.join().id()).isEqualTo(id);
        assertThat(h.manager.status(id)).isEmpty();
        assertThat(h.manager.result(id)).map(HandoverResult::isCompleted).contains(true);
    }

    @Test
    void statusReportsTimeSinceStart() {
        h.manager.handover(Harness.moves(1, 0, 2));
        h.clock.advance(1234);
        assertThat(h.manager.currentHandover())
                .map(HandoverStatus::elapsedMillis)
                .isEqualTo(Optional.of(1234L));
    }

    @Test
    void keepsOnlyTheConfiguredNumberOfResults() {
        Harness small = new Harness(HandoverManagerOptions.builder().resultHistorySize(2).build());
        HandoverId[] ids = new HandoverId[3];
        for (int i = 0; i < 3; i++) {
            int owner = small.manager.routingTable().ownerOf(1);
            small.manager.handover(Harness.moves(1, owner, owner == 2 ? 3 : 2));
            ids[i] = small.lastId();
            small.completeProtocol(ids[i]);
        }
        assertThat(small.manager.result(ids[0])).isEmpty();
        assertThat(small.manager.result(ids[1])).isPresent();
        assertThat(small.manager.result(ids[2])).isPresent();
    }
}
