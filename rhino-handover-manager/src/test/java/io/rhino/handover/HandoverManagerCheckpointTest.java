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
import io.rhino.core.handover.HandoverPhase;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** Handovers and checkpoints never overlap. */
class HandoverManagerCheckpointTest {

    private final List<String> log = new ArrayList<>();
    private final Harness h =
            new Harness(
                    Harness.table16(),
                    3,
                    HandoverManagerOptions.defaults(),
                    new RecordingPort(log));

    private Runnable proceed(long checkpointId) {
        return () -> log.add("proceed " + checkpointId);
    }

    @Test
    void checkpointWithoutHandoverProceedsAtOnce() {
        h.manager.beforeCheckpoint(1, proceed(1));
        assertThat(log).containsExactly("proceed 1");
    }

    @Test
    void checkpointDuringHandoverIsDeferredUntilItCompletes() {
        CompletableFuture<HandoverResult> future = h.manager.handover(Harness.moves(1, 0, 2));
        future.thenRun(() -> log.add("completed"));
        HandoverId id = h.lastId();
        h.ackAllRouters(id);

        h.manager.beforeCheckpoint(1, proceed(1));
        h.manager.beforeCheckpoint(2, proceed(2));
        assertThat(log).containsExactly("command " + id);

        h.ship(id, 0, 1);
        h.install(id, 2, 1);

        assertThat(log)
                .containsExactly(
                        "command " + id,
                        "forward " + id + " -> 2 [1]",
                        "completed",
                        "proceed 1",
                        "proceed 2");
    }

    @Test
    void checkpointDuringHandoverProceedsWhenItFails() {
        CompletableFuture<HandoverResult> future = h.manager.handover(Harness.moves(1, 0, 2));
        h.manager.beforeCheckpoint(1, proceed(1));

        h.manager.onJobFailure(new RuntimeException("TaskManager lost"));

        assertThat(future.join().isCompleted()).isFalse();
        assertThat(log).endsWith("proceed 1");
    }

    @Test
    void handoverDuringCheckpointIsQueuedUntilTheCheckpointEnds() {
        h.manager.beforeCheckpoint(5, proceed(5));
        h.clock.advance(100);

        CompletableFuture<HandoverResult> future = h.manager.handover(Harness.moves(1, 0, 2));

        HandoverStatus queued = h.manager.currentHandover().orElseThrow();
        assertThat(queued.queuedBehindCheckpoint()).isTrue();
        assertThat(queued.phase()).isEqualTo(HandoverPhase.REQUESTED);
        assertThat(h.port.commands).isEmpty();
        assertThat(h.manager.metrics().queued()).isEqualTo(1);
        assertThat(h.manager.metrics().started()).isZero();
        h.clock.advance(50);
        assertThat(h.manager.currentHandover().orElseThrow().elapsedMillis()).isEqualTo(50);

        h.manager.checkpointEnded(5);

        assertThat(h.port.commands).hasSize(1);
        assertThat(h.lastId()).isEqualTo(queued.id());
        HandoverStatus running = h.manager.currentHandover().orElseThrow();
        assertThat(running.queuedBehindCheckpoint()).isFalse();
        assertThat(running.elapsedMillis()).isZero();
        h.completeProtocol(queued.id());
        assertThat(future.join().isCompleted()).isTrue();
    }

    @Test
    void queuedHandoverWaitsForEveryCheckpointInFlight() {
        h.manager.beforeCheckpoint(5, proceed(5));
        h.manager.beforeCheckpoint(6, proceed(6));
        h.manager.handover(Harness.moves(1, 0, 2));

        h.manager.checkpointEnded(6);
        assertThat(h.port.commands).isEmpty();
        h.manager.checkpointEnded(5);
        assertThat(h.port.commands).hasSize(1);
    }

    @Test
    void checkpointWhileAHandoverIsQueuedProceedsAtOnce() {
        h.manager.beforeCheckpoint(5, proceed(5));
        h.manager.handover(Harness.moves(1, 0, 2));

        h.manager.beforeCheckpoint(6, proceed(6));
        assertThat(log).containsExactly("proceed 5", "proceed 6");
        h.manager.checkpointEnded(5);
        assertThat(h.port.commands).isEmpty();
        h.manager.checkpointEnded(6);
        assertThat(h.port.commands).hasSize(1);
    }

    @Test
    void deferredCheckpointThatEndsBeforeItProceedsNeverProceeds() {
        h.manager.handover(Harness.moves(1, 0, 2));
        HandoverId id = h.lastId();
        h.manager.beforeCheckpoint(1, proceed(1));

        h.manager.checkpointEnded(1); // e.g. Flink aborted it (checkpoint timeout)
        h.completeProtocol(id);

        assertThat(log).doesNotContain("proceed 1");
        // Nothing is in flight any more: the next handover starts at once.
        h.manager.handover(Harness.moves(9, 1, 3));
        assertThat(h.port.commands).hasSize(2);
    }

    @Test
    void requestWhileACheckpointIsDeferredIsRejectedAndLaterQueuedBehindIt() {
        h.manager.handover(Harness.moves(1, 0, 2));
        HandoverId first = h.lastId();
        h.manager.beforeCheckpoint(1, proceed(1));

        assertThat(h.manager.handover(Harness.moves(9, 1, 3))).isCompletedExceptionally();

        h.completeProtocol(first);
        // The deferred checkpoint won: it proceeded, and a new request waits for it.
        assertThat(log).endsWith("proceed 1");
        CompletableFuture<HandoverResult> second = h.manager.handover(Harness.moves(9, 1, 3));
        assertThat(h.manager.currentHandover().orElseThrow().queuedBehindCheckpoint()).isTrue();
        h.manager.checkpointEnded(1);
        h.completeProtocol(h.lastId());
        assertThat(second.join().isCompleted()).isTrue();
    }

    @Test
    void queuedHandoverHasNoTimeoutUntilItStarts() {
        h.manager.beforeCheckpoint(1, proceed(1));
        CompletableFuture<HandoverResult> future = h.manager.handover(Harness.moves(1, 0, 2));

        h.scheduler.advance(10 * HandoverManagerOptions.DEFAULT_TIMEOUT.toMillis());
        assertThat(future).isNotDone();
        assertThat(h.port.jobFailures).isEmpty();

        h.manager.checkpointEnded(1);
        h.scheduler.advance(HandoverManagerOptions.DEFAULT_TIMEOUT.toMillis() - 1);
        assertThat(future).isNotDone();
        h.scheduler.advance(1);
        assertThat(future.join().failureCause().orElseThrow())
                .startsWith("timed out after 60000 ms");
    }

    @Test
    void checkpointAnnouncedTwiceIsAnError() {
        h.manager.beforeCheckpoint(1, proceed(1));
        assertThatThrownBy(() -> h.manager.beforeCheckpoint(1, proceed(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(
                        "checkpointId: 1 (expected: a checkpoint that is not already in flight or"
                                + " deferred)");
    }

    @Test
    void unknownCheckpointEndIsIgnored() {
        h.manager.checkpointEnded(42);
        h.manager.handover(Harness.moves(1, 0, 2));
        assertThat(h.port.commands).hasSize(1);
    }

    @Test
    void proceedThatThrowsDoesNotWedgeTheManager() {
        h.manager.beforeCheckpoint(
                1,
                () -> {
                    throw new IllegalStateException("adapter bug");
                });
        h.manager.checkpointEnded(1);
        h.manager.handover(Harness.moves(1, 0, 2));
        h.completeProtocol(h.lastId());
        assertThat(h.manager.metrics().completed()).isEqualTo(1);
    }
}
