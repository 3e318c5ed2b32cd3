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
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rhino.core.handover.HandoverId;
import io.rhino.core.handover.HandoverPhase;
import io.rhino.core.handover.HandoverPlan;
import io.rhino.core.handover.InvalidHandoverException;
import io.rhino.core.handover.VnodeMove;
import io.rhino.core.routing.RoutingTable;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Refused requests fail at once and change nothing but the rejected counter. */
class HandoverManagerValidationTest {

    private final Harness h = new Harness();

    static Stream<Arguments> invalidPlans() {
        return Stream.of(
                Arguments.of("empty plan", HandoverPlan.of(0, List.of()), "has no moves"),
                Arguments.of(
                        "unknown vnode",
                        HandoverPlan.of(0, Harness.moves(99, 0, 2)),
                        "vnode 99 does not exist"),
                Arguments.of(
                        "duplicate vnode",
                        HandoverPlan.of(0, Harness.moves(1, 0, 2, 1, 0, 3)),
                        "vnode 1 appears 2 times"),
                Arguments.of(
                        "wrong fromSubtask",
                        HandoverPlan.of(0, Harness.moves(1, 1, 2)),
                        "vnode 1 is owned by subtask 0, not by fromSubtask 1"),
                Arguments.of(
                        "target does not exist",
                        HandoverPlan.of(0, Harness.moves(1, 0, 7)),
                        "subtask 7 does not exist"),
                Arguments.of(
                        "self move",
                        HandoverPlan.of(0, Harness.moves(1, 0, 0)),
                        "moves from subtask 0 to itself"),
                Arguments.of(
                        "stale epoch",
                        HandoverPlan.of(3, Harness.moves(1, 0, 2)),
                        "plan was made for epoch 3 but the routing table is at epoch 0"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidPlans")
    void invalidPlanIsRefusedWithoutChangingAnything(
            String name, HandoverPlan plan, String problem) {
        RoutingTable before = h.manager.routingTable();
        HandoverMetrics metricsBefore = h.manager.metrics();

        CompletableFuture<HandoverResult> future = h.manager.handover(plan);

        assertThat(future).isCompletedExceptionally();
        assertThatThrownBy(future::join)
                .isInstanceOf(CompletionException.class)
                .cause()
                .isInstanceOf(InvalidHandoverException.class)
                .hasMessageContaining(problem);
        assertThatThrownBy(() -> h.manager.validate(plan))
                .isInstanceOf(InvalidHandoverException.class)
                .hasMessageContaining(problem);
        assertUnchangedExceptRejected(before, metricsBefore, 1);
        assertThat(h.manager.currentHandover()).isEmpty();
        assertThat(h.port.commands).isEmpty();
        assertThat(h.scheduler.pendingTasks()).isZero();
    }

    @Test
    void validPlanPassesValidation() {
        assertThatCode(() -> h.manager.validate(h.plan(1, 0, 2))).doesNotThrowAnyException();
        assertThat(h.manager.metrics().rejected()).isZero();
    }

    @Test
    void requestWhileAnotherRunsIsRejectedAndTheRunningOneIsUnaffected() {
        CompletableFuture<HandoverResult> first = h.manager.handover(Harness.moves(1, 0, 2));
        HandoverId firstId = h.lastId();
        h.ackAllRouters(firstId);
        h.manager.onOriginShipped(firstId, 0, List.of());
        RoutingTable before = h.manager.routingTable();
        HandoverMetrics metricsBefore = h.manager.metrics();
        Optional<HandoverStatus> statusBefore = h.manager.currentHandover();

        CompletableFuture<HandoverResult> second = h.manager.handover(Harness.moves(9, 1, 3));

        assertThatThrownBy(second::join)
                .cause()
                .isInstanceOf(HandoverRejectedException.class)
                .hasMessage(
                        "handover "
                                + firstId
                                + " is in phase ORIGIN_ALIGNED on operator 'bids'; wait for it to"
                                + " finish (GET its status) and retry")
                .satisfies(
                        e ->
                                assertThat(((HandoverRejectedException) e).blockingHandover())
                                        .contains(firstId))
                .satisfies(
                        e ->
                                assertThat(((HandoverRejectedException) e).reason())
                                        .isEqualTo(HandoverRejectedException.Reason.BUSY));
        assertUnchangedExceptRejected(before, metricsBefore, 1);
        assertThat(h.manager.currentHandover()).isEqualTo(statusBefore);
        assertThat(h.port.commands).hasSize(1);

        h.ship(firstId, 0, 1);
        h.install(firstId, 2, 1);
        assertThat(first.join().isCompleted()).isTrue();
    }

    @Test
    void conflictIsReportedBeforeValidity() {
        h.manager.handover(Harness.moves(1, 0, 2));
        CompletableFuture<HandoverResult> invalid =
                h.manager.handover(HandoverPlan.of(0, List.of()));
        assertThatThrownBy(invalid::join).cause().isInstanceOf(HandoverRejectedException.class);
    }

    @Test
    void requestBeyondTheQueueIsRejected() {
        h.manager.beforeCheckpoint(7, () -> {});
        CompletableFuture<HandoverResult> queued = h.manager.handover(Harness.moves(1, 0, 2));
        HandoverId queuedId = h.manager.currentHandover().orElseThrow().id();
        RoutingTable before = h.manager.routingTable();
        HandoverMetrics metricsBefore = h.manager.metrics();

        CompletableFuture<HandoverResult> second = h.manager.handover(Harness.moves(9, 1, 3));

        assertThatThrownBy(second::join)
                .cause()
                .isInstanceOf(HandoverRejectedException.class)
                .hasMessage(
                        "handover "
                                + queuedId
                                + " is queued behind checkpoint 7 on operator 'bids' (at most 1 may"
                                + " wait); wait for it to finish (GET its status) and retry")
                .satisfies(
                        e ->
                                assertThat(((HandoverRejectedException) e).reason())
                                        .isEqualTo(HandoverRejectedException.Reason.CHECKPOINT));
        assertUnchangedExceptRejected(before, metricsBefore, 1);
        assertThat(h.manager.currentHandover().orElseThrow().id()).isEqualTo(queuedId);
        assertThat(queued).isNotDone();
    }

    @Test
    void withoutAQueueRequestsDuringACheckpointAreRejected() {
        Harness noQueue = new Harness(HandoverManagerOptions.builder().maxQueued(0).build());
        noQueue.manager.beforeCheckpoint(3, () -> {});

        CompletableFuture<HandoverResult> future = noQueue.manager.handover(Harness.moves(1, 0, 2));

        assertThatThrownBy(future::join)
                .cause()
                .isInstanceOf(HandoverRejectedException.class)
                .hasMessageContaining("checkpoint 3 is in flight")
                .hasMessageContaining("maxQueued=0");
        assertThat(noQueue.manager.currentHandover()).isEmpty();
        noQueue.manager.checkpointEnded(3);
        assertThat(noQueue.manager.handover(Harness.moves(1, 0, 2))).isNotDone();
        assertThat(noQueue.port.commands).hasSize(1);
    }

    @Test
    void idAlreadyUsedIsRejected() {
        HandoverId id = new HandoverId("once");
        h.manager.handover(id, h.plan(1, 0, 2));
        assertThatThrownBy(h.manager.handover(id, h.plan(9, 1, 3))::join)
                .cause()
                .isInstanceOf(HandoverRejectedException.class)
                .hasMessageContaining("handover id once is already used");
        h.completeProtocol(id);

        assertThatThrownBy(h.manager.handover(id, h.plan(9, 1, 3))::join)
                .cause()
                .isInstanceOf(HandoverRejectedException.class)
                .hasMessageContaining("already used")
                .satisfies(
                        e ->
                                assertThat(((HandoverRejectedException) e).reason())
                                        .isEqualTo(HandoverRejectedException.Reason.ID_TAKEN));
        assertThat(HandoverRejectedException.Reason.ID_TAKEN.passes()).isFalse();
        assertThat(h.manager.metrics().rejected()).isEqualTo(2);
    }

    @Test
    void queuedPlansAreValidatedAgainstTheTableTheQueueAheadWillProduce() {
        Harness deep = new Harness(HandoverManagerOptions.builder().maxQueued(2).build());
        deep.manager.beforeCheckpoint(1, () -> {});
        CompletableFuture<HandoverResult> first = deep.manager.handover(Harness.moves(1, 0, 2));
        // Planned at epoch 1, after the first: vnode 1 is then on subtask 2.
        CompletableFuture<HandoverResult> second = deep.manager.handover(Harness.moves(1, 2, 3));
        assertThat(second).isNotDone();
        assertThatThrownBy(() -> deep.manager.validate(HandoverPlan.of(0, Harness.moves(4, 0, 2))))
                .isInstanceOf(InvalidHandoverException.class)
                .hasMessageContaining("made for epoch 0 but the routing table is at epoch 2");

        deep.manager.checkpointEnded(1);
        deep.completeProtocol(deep.lastId());
        assertThat(first.join().newEpoch()).isEqualTo(1);
        assertThat(deep.port.commands).hasSize(2);
        assertThat(deep.port.lastCommand().plan().basedOnEpoch()).isEqualTo(1);
        deep.completeProtocol(deep.lastId());
        assertThat(second.join().newEpoch()).isEqualTo(2);
        assertThat(deep.manager.routingTable().ownerOf(1)).isEqualTo(3);
    }

    @Test
    void queuedHandoverFailsWhenThePredecessorItReliesOnFails() {
        Harness deep = new Harness(HandoverManagerOptions.builder().maxQueued(2).build());
        deep.manager.beforeCheckpoint(1, () -> {});
        deep.manager.handover(Harness.moves(1, 0, 2));
        CompletableFuture<HandoverResult> second = deep.manager.handover(Harness.moves(1, 2, 3));
        deep.manager.checkpointEnded(1);

        deep.scheduler.advance(HandoverManagerOptions.DEFAULT_TIMEOUT.toMillis());

        HandoverResult result = second.join();
        assertThat(result.isCompleted()).isFalse();
        assertThat(result.failedIn()).contains(HandoverPhase.REQUESTED);
        assertThat(result.failureCause().orElseThrow())
                .startsWith("the plan no longer fits the routing table")
                .contains("made for epoch 1 but the routing table is at epoch 0");
        assertThat(deep.port.commands).hasSize(1);
    }

    @Test
    void whileOneRunsAndOneIsQueuedPlansAreCheckedAgainstWhatBothWillProduce() {
        Harness deep = new Harness(HandoverManagerOptions.builder().maxQueued(2).build());
        deep.manager.beforeCheckpoint(1, () -> {});
        deep.manager.handover(Harness.moves(1, 0, 2));
        deep.manager.handover(Harness.moves(1, 2, 3));
        deep.manager.checkpointEnded(1);
        assertThat(deep.manager.metrics().inFlight()).isTrue();
        assertThat(deep.manager.metrics().queued()).isEqualTo(1);

        assertThatCode(() -> deep.manager.validate(HandoverPlan.of(2, Harness.moves(1, 3, 0))))
                .doesNotThrowAnyException();
        assertThatThrownBy(() -> deep.manager.validate(HandoverPlan.of(0, Harness.moves(1, 0, 3))))
                .isInstanceOf(InvalidHandoverException.class)
                .hasMessageContaining("made for epoch 0 but the routing table is at epoch 2");
    }

    @Test
    void dependentQueuedHandoverFailsAtOnceWhenThePredecessorTimesOutBeforeACheckpoint() {
        Harness deep = new Harness(HandoverManagerOptions.builder().maxQueued(2).build());
        deep.manager.beforeCheckpoint(1, () -> {});
        deep.manager.handover(Harness.moves(1, 0, 2));
        CompletableFuture<HandoverResult> second = deep.manager.handover(Harness.moves(1, 2, 3));
        deep.manager.checkpointEnded(1);
        deep.manager.beforeCheckpoint(2, () -> {});

        deep.scheduler.advance(HandoverManagerOptions.DEFAULT_TIMEOUT.toMillis());

        assertThat(second.join().failureCause().orElseThrow())
                .startsWith("the plan no longer fits the routing table");
        assertThat(deep.manager.metrics().queued()).isZero();
        assertThatCode(() -> deep.manager.validate(deep.plan(1, 0, 3))).doesNotThrowAnyException();
    }

    @Test
    void nullArgumentsAreProgrammingErrors() {
        assertThatThrownBy(() -> h.manager.handover((List<VnodeMove>) null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("moves: null");
        assertThatThrownBy(() -> h.manager.handover((HandoverPlan) null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("plan: null");
        assertThat(h.manager.metrics().rejected()).isZero();
    }

    @Test
    void constructorChecksItsArguments() {
        RoutingTable table = Harness.table16();
        RecordingPort port = new RecordingPort();
        HandoverManagerOptions options = HandoverManagerOptions.defaults();
        assertThatThrownBy(
                        () ->
                                new HandoverManager(
                                        " ", table, 1, port, options, h.clock, h.scheduler))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("operatorName: \" \" (expected: a non-blank name)");
        assertThatThrownBy(
                        () ->
                                new HandoverManager(
                                        "op", table, 0, port, options, h.clock, h.scheduler))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("routerParallelism: 0 (expected: >= 1)");
        assertThatThrownBy(
                        () ->
                                new HandoverManager(
                                        "op", table, 1, null, options, h.clock, h.scheduler))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("port: null");
    }

    private void assertUnchangedExceptRejected(
            RoutingTable before, HandoverMetrics metricsBefore, int moreRejected) {
        HandoverMetrics after = h.manager.metrics();
        assertThat(h.manager.routingTable()).isEqualTo(before);
        assertThat(after)
                .isEqualTo(
                        new HandoverMetrics(
                                metricsBefore.started(),
                                metricsBefore.completed(),
                                metricsBefore.failed(),
                                metricsBefore.rejected() + moreRejected,
                                metricsBefore.lastDurationMillis(),
                                metricsBefore.lastPhaseDurationsMillis(),
                                metricsBefore.currentEpoch(),
                                metricsBefore.inFlight(),
                                metricsBefore.queued()));
    }
}
