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
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rhino.core.handover.HandoverId;
import io.rhino.core.routing.RoutingTable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/**
 * While the job recovers, the manager refuses requests without side effects, and afterwards it
 * follows the table the restarted routers route by, even when that is older than its own.
 */
class HandoverManagerRecoveryTest {

    private final Harness h = new Harness();

    @Test
    void aSuspendedManagerRefusesRequestsRetryablyAndSendsNothing() {
        h.manager.suspend("router subtask 0 failed: boom");

        CompletableFuture<HandoverResult> request = h.manager.handover(Harness.moves(1, 0, 2));

        assertThatThrownBy(request::join)
                .isInstanceOf(CompletionException.class)
                .cause()
                .isInstanceOf(HandoverRejectedException.class)
                .hasMessageContaining("router subtask 0 failed: boom")
                .hasMessageContaining("retry once the job runs again")
                .satisfies(e -> assertReason(e, HandoverRejectedException.Reason.SUSPENDED, true));
        assertThat(h.port.commands).isEmpty();
        assertThat(h.port.jobFailures).isEmpty();
        assertThat(h.manager.metrics().rejected()).isEqualTo(1);
        assertThat(h.manager.suspension()).contains("router subtask 0 failed: boom");
    }

    @Test
    void suspendingFailsTheRunningHandoverWithoutFailingTheJobAgain() {
        CompletableFuture<HandoverResult> running = h.manager.handover(Harness.moves(1, 0, 2));

        h.manager.suspend("gate subtask 2 failed: boom");

        assertThat(running.join().failureCause())
                .get()
                .asString()
                .contains("gate subtask 2 failed: boom");
        assertThat(h.port.jobFailures).as("Flink restarts the job already").isEmpty();
    }

    @Test
    void afterAFailoverTheManagerFollowsTheRestoredRoutersNotItsNewerTable() {
        RoutingTable beforeHandover = h.manager.routingTable();
        h.manager.handover(Harness.moves(1, 0, 2));
        h.completeProtocol(h.lastId());
        assertThat(h.manager.routingTable().epoch()).isEqualTo(1);

        // a task fails before the next checkpoint: the job restarts from the one before the move
        h.manager.suspend("router subtask 1 failed: boom");
        h.manager.resume(beforeHandover);

        assertThat(h.manager.routingTable()).isEqualTo(beforeHandover);
        assertThat(h.manager.suspension()).isEmpty();
        CompletableFuture<HandoverResult> next = h.manager.handover(Harness.moves(1, 0, 3));
        assertThat(h.port.lastCommand().newEpoch())
                .as("planned at the routers' epoch")
                .isEqualTo(1);
        h.completeProtocol(h.lastId());
        assertThat(next.join().isCompleted()).isTrue();
        assertThat(h.manager.routingTable().ownerOf(1)).isEqualTo(3);
    }

    @Test
    void aCommandThatReachedNoRouterFailsTheHandoverButNotTheJob() {
        h.port.failCommands = new CommandNotDeliveredException("router subtask 1 is not running");

        HandoverResult result = h.manager.handover(Harness.moves(1, 0, 2)).join();

        assertThat(result.isCompleted()).isFalse();
        assertThat(result.failureCause())
                .get()
                .asString()
                .contains("router subtask 1 is not running")
                .contains("no subtask received it, retry");
        assertThat(h.port.jobFailures).isEmpty();
        assertThat(h.manager.routingTable()).isEqualTo(Harness.table16());

        h.port.failCommands = null;
        h.manager.handover(Harness.moves(1, 0, 2));
        h.completeProtocol(h.lastId());
        assertThat(h.manager.routingTable().ownerOf(1)).isEqualTo(2);
    }

    @Test
    void checkpointsInFlightSurviveResume() {
        h.manager.suspend("starting");
        h.manager.beforeCheckpoint(5, () -> {});
        h.manager.resume(Harness.table16());

        h.manager.handover(Harness.moves(1, 0, 2));
        assertThat(h.port.commands).as("queued behind checkpoint 5").isEmpty();
        h.manager.checkpointTaken(5);
        assertThat(h.port.commands).hasSize(1);
    }

    @Test
    void aRouterWhoseInputEndedCountsAsAcknowledgedAndNoHandoverStartsAnyMore() {
        CompletableFuture<HandoverResult> running = h.manager.handover(Harness.moves(1, 0, 2));
        HandoverId id = h.lastId();

        h.manager.routerInputEnded(0);
        assertThatThrownBy(() -> h.manager.handover(Harness.moves(9, 1, 3)).join())
                .cause()
                .isInstanceOf(HandoverRejectedException.class)
                .hasMessageContaining("the input of router subtask 0 ended")
                .satisfies(
                        e -> assertReason(e, HandoverRejectedException.Reason.INPUT_ENDED, false));
        for (int router = 1; router < h.routers; router++) {
            h.manager.onRouterAck(id, router);
        }
        h.ship(id, 0, 1);
        h.manager.onTargetInstalled(id, 2, java.util.Set.of(1));

        assertThat(running.join().isCompleted()).isTrue();
        assertThat(h.manager.routingTable().ownerOf(1)).isEqualTo(2);
        assertThat(h.port.jobFailures).isEmpty();
    }

    @Test
    void routersThatSwitchedBeforeTheirInputsEndedLetTheHandoverComplete() {
        CompletableFuture<HandoverResult> running = h.manager.handover(Harness.moves(1, 0, 2));
        HandoverId id = h.lastId();

        h.ackAllRouters(id);
        for (int router = 0; router < h.routers; router++) {
            h.manager.routerInputEnded(router);
        }
        h.ship(id, 0, 1);
        h.manager.onTargetInstalled(id, 2, java.util.Set.of(1));

        assertThat(running.join().isCompleted()).isTrue();
        assertThat(h.port.jobFailures).isEmpty();
    }

    @Test
    void aHandoverNoRouterSwitchedToBeforeTheirInputsEndedFailsAndChangesNothing() {
        RoutingTable before = h.manager.routingTable();
        CompletableFuture<HandoverResult> running = h.manager.handover(Harness.moves(1, 0, 2));

        for (int router = 0; router < h.routers; router++) {
            h.manager.routerInputEnded(router);
        }

        assertThat(running.join().failureCause())
                .get()
                .asString()
                .contains("before any router switched");
        assertThat(h.manager.routingTable()).isEqualTo(before);
        assertThat(h.port.jobFailures).as("nothing to roll back").isEmpty();
    }

    @Test
    void endOfInputFailsQueuedHandovers() {
        h.manager.beforeCheckpoint(3, () -> {});
        CompletableFuture<HandoverResult> queued = h.manager.handover(Harness.moves(1, 0, 2));

        h.manager.routerInputEnded(0);

        assertThat(queued.join().failureCause()).get().asString().contains("the input ended");
        h.manager.checkpointTaken(3);
        assertThat(h.port.commands).isEmpty();
    }

    private static void assertReason(
            Throwable refusal, HandoverRejectedException.Reason reason, boolean passes) {
        assertThat(((HandoverRejectedException) refusal).reason()).isEqualTo(reason);
        assertThat(reason.passes()).as("whether waiting helps").isEqualTo(passes);
    }
}
