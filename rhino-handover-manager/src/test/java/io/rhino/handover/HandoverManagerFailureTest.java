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

import static io.rhino.core.handover.HandoverPhase.ORIGIN_ALIGNED;
import static io.rhino.core.handover.HandoverPhase.REQUESTED;
import static io.rhino.core.handover.HandoverPhase.STATE_SHIPPED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rhino.core.handover.HandoverId;
import io.rhino.core.handover.HandoverPhase;
import io.rhino.core.routing.RoutingTable;
import io.rhino.core.routing.VnodeLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** Timeouts, job failures, restores and closing. */
class HandoverManagerFailureTest {

    private static final long TIMEOUT = HandoverManagerOptions.DEFAULT_TIMEOUT.toMillis();

    private final Harness h = new Harness();

    @Test
    void timeoutFailsTheHandoverNamingPhaseAndMissingTargetsAndFailsTheJob() {
        RoutingTable before = h.manager.routingTable();
        CompletableFuture<HandoverResult> future =
                h.manager.handover(Harness.moves(5, 0, 2, 6, 0, 3, 7, 0, 2));
        HandoverId id = h.lastId();
        h.ackAllRouters(id);
        h.ship(id, 0, 5, 6, 7);
        h.install(id, 3, 6);

        h.scheduler.advance(TIMEOUT);

        HandoverResult result = future.join();
        String cause =
                "timed out after 60000 ms in phase STATE_SHIPPED (waiting for: targets [2] to"
                        + " install vnodes [5, 7])";
        assertThat(result.outcome()).isEqualTo(HandoverResult.Outcome.FAILED);
        assertThat(result.newEpoch()).isEqualTo(-1);
        assertThat(result.failedIn()).contains(STATE_SHIPPED);
        assertThat(result.failureCause()).contains(cause);
        assertThat(result.totalMillis()).isEqualTo(TIMEOUT);
        assertThat(result.phaseDurationsMillis()).containsKey(HandoverPhase.FAILED);

        assertThat(h.port.jobFailures).hasSize(1);
        assertThat(h.port.jobFailures.get(0))
                .isInstanceOf(HandoverTimeoutException.class)
                .hasMessageContaining(cause)
                .hasMessageContaining("on operator 'bids'");
        HandoverTimeoutException timeout = (HandoverTimeoutException) h.port.jobFailures.get(0);
        assertThat(timeout.phase()).isEqualTo(STATE_SHIPPED);
        assertThat(timeout.handoverId()).isEqualTo(id);

        assertThat(h.manager.routingTable()).isEqualTo(before);
        assertThat(h.manager.currentHandover()).isEmpty();
        assertThat(h.manager.result(id)).contains(result);
        HandoverMetrics metrics = h.manager.metrics();
        assertThat(metrics.failed()).isEqualTo(1);
        assertThat(metrics.completed()).isZero();
        assertThat(metrics.lastDurationMillis()).isEqualTo(-1);
    }

    @Test
    void timeoutBeforeAnyReportNamesEveryMissingParty() {
        CompletableFuture<HandoverResult> future =
                h.manager.handover(Harness.moves(1, 0, 2, 9, 1, 3));
        HandoverId id = h.lastId();
        h.manager.onRouterAck(id, 1);

        h.scheduler.advance(TIMEOUT);

        assertThat(future.join().failureCause())
                .contains(
                        "timed out after 60000 ms in phase REQUESTED (waiting for: routers [0, 2]"
                                + " to acknowledge the command; origins [0, 1] to ship vnodes [1,"
                                + " 9]; targets [2, 3] to install vnodes [1, 9])");
    }

    @Test
    void reportsAfterTheTimeoutAreIgnoredAndANewHandoverIsAcceptedAtOnce() {
        h.manager.handover(Harness.moves(1, 0, 2));
        HandoverId old = h.lastId();
        h.scheduler.advance(TIMEOUT);

        h.completeProtocol(old);
        assertThat(h.manager.routingTable().epoch()).isZero();
        assertThat(h.port.forwards).isEmpty();

        // Validated against the unchanged table (epoch 0), before any reset.
        CompletableFuture<HandoverResult> next = h.manager.handover(Harness.moves(1, 0, 3));
        assertThat(h.port.lastCommand().plan().basedOnEpoch()).isZero();
        h.completeProtocol(h.lastId());
        assertThat(next.join().isCompleted()).isTrue();
    }

    @Test
    void completionJustBeforeTheTimeoutCancelsIt() {
        CompletableFuture<HandoverResult> future = h.manager.handover(Harness.moves(1, 0, 2));
        h.scheduler.advance(TIMEOUT - 1);
        h.completeProtocol(h.lastId());
        h.scheduler.advance(TIMEOUT);
        assertThat(future.join().isCompleted()).isTrue();
        assertThat(h.port.jobFailures).isEmpty();
    }

    @Test
    void jobFailureFailsTheRunningHandoverInItsPhaseWithoutFailingTheJobAgain() {
        CompletableFuture<HandoverResult> future =
                h.manager.handover(Harness.moves(1, 0, 2, 9, 1, 3));
        HandoverId id = h.lastId();
        h.ackAllRouters(id);
        h.ship(id, 0, 1);
        h.manager.onOriginShipped(id, 1, List.of());

        h.manager.onJobFailure(new RuntimeException("TaskManager tm-2 lost"));

        HandoverResult result = future.join();
        assertThat(result.failedIn()).contains(ORIGIN_ALIGNED);
        assertThat(result.failureCause())
                .contains("the job failed: java.lang.RuntimeException: TaskManager tm-2 lost");
        assertThat(h.port.jobFailures).isEmpty();
        assertThat(h.manager.routingTable().epoch()).isZero();
        h.scheduler.advance(TIMEOUT);
        assertThat(h.port.jobFailures).as("timeout cancelled").isEmpty();
    }

    @Test
    void jobFailureAlsoFailsTheQueuedHandover() {
        h.manager.beforeCheckpoint(1, () -> {});
        CompletableFuture<HandoverResult> queued = h.manager.handover(Harness.moves(1, 0, 2));

        h.manager.onJobFailure(new IllegalStateException("boom"));

        HandoverResult result = queued.join();
        assertThat(result.failedIn()).contains(REQUESTED);
        assertThat(result.totalMillis()).isZero();
        assertThat(h.manager.metrics().failed()).isEqualTo(1);
        assertThat(h.manager.metrics().started()).isZero();
        assertThat(h.manager.currentHandover()).isEmpty();
    }

    @Test
    void jobFailureWithNothingInFlightChangesNothing() {
        h.manager.onJobFailure(new RuntimeException("x"));
        assertThat(h.manager.metrics().failed()).isZero();
    }

    @Test
    void resetToARestoredTableWithALowerEpochThenANewHandoverSucceeds() {
        RoutingTable initial = h.manager.routingTable();
        h.manager.handover(Harness.moves(1, 0, 2));
        h.completeProtocol(h.lastId());
        assertThat(h.manager.routingTable().epoch()).isEqualTo(1);
        CompletableFuture<HandoverResult> second = h.manager.handover(Harness.moves(9, 1, 3));
        h.manager.onJobFailure(new RuntimeException("lost"));

        // Flink restored the checkpoint taken before the first handover.
        h.manager.resetTo(initial);

        assertThat(second.join().isCompleted()).isFalse();
        assertThat(h.manager.routingTable()).isEqualTo(initial);
        assertThat(h.manager.metrics().currentEpoch()).isZero();
        CompletableFuture<HandoverResult> third = h.manager.handover(Harness.moves(1, 0, 3));
        assertThat(h.port.lastCommand().newEpoch()).isEqualTo(1);
        h.completeProtocol(h.lastId());
        assertThat(third.join().isCompleted()).isTrue();
        assertThat(h.manager.routingTable().ownerOf(1)).isEqualTo(3);
    }

    @Test
    void resetFailsWhatIsInFlightAndForgetsCheckpoints() {
        List<String> proceeded = new ArrayList<>();
        h.manager.beforeCheckpoint(1, () -> proceeded.add("1"));
        CompletableFuture<HandoverResult> queued = h.manager.handover(Harness.moves(1, 0, 2));

        h.manager.resetTo(Harness.table16());

        assertThat(queued.join().failureCause())
                .contains("the routing table was reset to epoch 0 restored from a checkpoint");
        // Checkpoint 1 belonged to the failed execution; it no longer blocks handovers.
        h.manager.handover(Harness.moves(1, 0, 2));
        assertThat(h.port.commands).hasSize(1);
        h.manager.checkpointEnded(1); // late notification: ignored
        assertThat(h.manager.currentHandover().orElseThrow().queuedBehindCheckpoint()).isFalse();
    }

    @Test
    void resetToATableOfAnotherLayoutIsRefused() {
        RoutingTable other = RoutingTable.initial(new VnodeLayout(128, 32), 4, 2);
        assertThatThrownBy(() -> h.manager.resetTo(other))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("restored: ")
                .hasMessageContaining("(expected: ");
        assertThat(h.manager.routingTable()).isEqualTo(Harness.table16());
    }

    @Test
    void portFailureWhileSendingTheCommandFailsTheHandoverAndTheJob() {
        h.port.failCommands = new IllegalStateException("subtask 1 not ready");

        CompletableFuture<HandoverResult> future = h.manager.handover(Harness.moves(1, 0, 2));

        HandoverResult result = future.join();
        assertThat(result.failedIn()).contains(REQUESTED);
        assertThat(result.failureCause())
                .contains(
                        "sending the command to the routers failed:"
                                + " java.lang.IllegalStateException: subtask 1 not ready");
        assertThat(h.port.jobFailures)
                .singleElement()
                .isInstanceOf(HandoverFailedException.class)
                .satisfies(e -> assertThat(e.getCause()).isSameAs(h.port.failCommands));
    }

    @Test
    void portFailureWhileForwardingFailsTheHandoverAndTheJob() {
        h.port.failForwards = new IllegalStateException("target gone");
        CompletableFuture<HandoverResult> future = h.manager.handover(Harness.moves(1, 0, 2));
        HandoverId id = h.lastId();
        h.ackAllRouters(id);

        h.ship(id, 0, 1);

        assertThat(future.join().failedIn()).contains(STATE_SHIPPED);
        assertThat(future.join().failureCause().orElseThrow())
                .startsWith("forwarding vnodes to target 2 failed");
        assertThat(h.port.jobFailures).hasSize(1);
    }

    @Test
    void closeFailsPendingFuturesCancelsTimersAndReleasesCheckpoints() {
        Harness deep = new Harness(HandoverManagerOptions.builder().maxQueued(2).build());
        List<String> proceeded = new ArrayList<>();
        CompletableFuture<HandoverResult> running = deep.manager.handover(Harness.moves(1, 0, 2));
        deep.manager.beforeCheckpoint(1, () -> proceeded.add("1"));

        deep.manager.close();

        HandoverResult result = running.join();
        assertThat(result.isCompleted()).isFalse();
        assertThat(result.failureCause().orElseThrow())
                .startsWith("manager closed")
                .contains("operator 'bids'");
        assertThat(proceeded).containsExactly("1");
        assertThat(deep.scheduler.pendingTasks()).isZero();
        assertThat(deep.port.jobFailures).isEmpty();
    }

    @Test
    void closeFailsQueuedHandoversToo() {
        h.manager.beforeCheckpoint(1, () -> {});
        CompletableFuture<HandoverResult> queued = h.manager.handover(Harness.moves(1, 0, 2));

        h.manager.close();

        assertThat(queued.join().failureCause().orElseThrow()).startsWith("manager closed");
        assertThat(queued.join().failedIn()).contains(REQUESTED);
    }

    @Test
    void afterCloseRequestsAreRefusedReportsIgnoredAndCheckpointsProceed() {
        h.manager.handover(Harness.moves(1, 0, 2));
        HandoverId id = h.lastId();
        h.manager.close();
        h.manager.close(); // idempotent

        assertThatThrownBy(h.manager.handover(Harness.moves(1, 0, 2))::join)
                .cause()
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("is CLOSED");
        h.completeProtocol(id);
        assertThat(h.manager.routingTable().epoch()).isZero();
        List<String> proceeded = new ArrayList<>();
        h.manager.beforeCheckpoint(9, () -> proceeded.add("9"));
        assertThat(proceeded).containsExactly("9");
        assertThatThrownBy(() -> h.manager.resetTo(Harness.table16()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("is CLOSED");
        assertThat(h.manager.metrics().failed()).isEqualTo(1);
    }

    @Test
    void timerThatRefusesTasksLeavesTheHandoverWithoutTimeout() {
        h.scheduler.shutdown();
        CompletableFuture<HandoverResult> future = h.manager.handover(Harness.moves(1, 0, 2));
        h.completeProtocol(h.lastId());
        assertThat(future.join().isCompleted()).isTrue();
    }
}
