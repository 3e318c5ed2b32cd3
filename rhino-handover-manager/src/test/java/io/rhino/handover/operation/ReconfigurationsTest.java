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

package io.rhino.handover.operation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rhino.core.handover.HandoverId;
import io.rhino.core.handover.HandoverPhase;
import io.rhino.core.handover.HandoverPlan;
import io.rhino.core.handover.VnodeMove;
import io.rhino.handover.HandoverResult;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ReconfigurationsTest {

    private final Reconfigurations registry = new Reconfigurations(3, () -> 42L);
    private final AtomicInteger launches = new AtomicInteger();

    private Reconfiguration move(
            String requestId,
            String operator,
            String parameters,
            CompletableFuture<HandoverResult> result) {
        return registry.start(
                requestId,
                OperationKind.MOVE,
                "job",
                List.of(operator),
                parameters,
                () -> {
                    launches.incrementAndGet();
                    return List.of(
                            new OperationStep(
                                    operator,
                                    Optional.of(new HandoverId(requestId)),
                                    List.of(new VnodeMove(1, 0, 1)),
                                    result));
                });
    }

    @Test
    void aRepeatedRequestIsAnsweredWithTheFirstOneWithoutRunningAgain() {
        Reconfiguration first = move("r1", "op", "moves=[1->1]", new CompletableFuture<>());
        Reconfiguration again = move("r1", "op", "moves=[1->1]", new CompletableFuture<>());

        assertThat(again).isSameAs(first);
        assertThat(launches).hasValue(1);
    }

    @Test
    void aRequestIdReusedForAnotherRequestIsAConflict() {
        move("r1", "op", "moves=[1->1]", CompletableFuture.completedFuture(null));

        assertThatThrownBy(() -> move("r1", "op", "moves=[2->0]", new CompletableFuture<>()))
                .isInstanceOf(ReconfigurationConflictException.class)
                .hasMessageContaining("request-id 'r1' was already used");
        assertThat(launches).hasValue(1);
    }

    @Test
    void aSecondReconfigurationOfARunningOperatorIsAConflictNamingTheRunningOne() {
        CompletableFuture<HandoverResult> running = new CompletableFuture<>();
        move("r1", "op", "a", running);

        assertThatThrownBy(() -> move("r2", "op", "b", new CompletableFuture<>()))
                .isInstanceOf(ReconfigurationConflictException.class)
                .hasMessageContaining("'r1'");
        move("r3", "other-op", "b", new CompletableFuture<>());

        running.complete(completed("r1"));
        Reconfiguration next = move("r2", "op", "b", new CompletableFuture<>());
        assertThat(next.status()).isEqualTo(Reconfiguration.Status.IN_PROGRESS);
    }

    @Test
    void statusFollowsTheHandovers() {
        CompletableFuture<HandoverResult> ok = new CompletableFuture<>();
        CompletableFuture<HandoverResult> refused = new CompletableFuture<>();
        Reconfiguration a = move("a", "op1", "", ok);
        Reconfiguration b = move("b", "op2", "", refused);
        assertThat(a.status()).isEqualTo(Reconfiguration.Status.IN_PROGRESS);

        ok.complete(completed("a"));
        refused.completeExceptionally(new IllegalStateException("no router runs"));

        assertThat(a.status()).isEqualTo(Reconfiguration.Status.COMPLETED);
        assertThat(b.status()).isEqualTo(Reconfiguration.Status.FAILED);
        assertThat(b.failures()).containsExactly("operator 'op2': no router runs");
    }

    @Test
    void endedReconfigurationsAreEvictedOldestFirstRunningOnesNever() {
        CompletableFuture<HandoverResult> running = new CompletableFuture<>();
        move("r0", "op0", "", running);
        for (int i = 1; i <= 5; i++) {
            move("r" + i, "op" + i, "", CompletableFuture.completedFuture(completed("r" + i)));
        }
        assertThat(registry.get("r0")).isPresent();
        assertThat(registry.get("r1")).isEmpty();
        assertThat(registry.get("r5")).isPresent();
    }

    @Test
    void aLauncherThatThrowsRegistersNothing() {
        assertThatThrownBy(
                        () ->
                                registry.start(
                                        "x",
                                        OperationKind.RESCALE,
                                        "job",
                                        List.of("op"),
                                        "",
                                        () -> {
                                            throw new IllegalArgumentException("bad");
                                        }))
                .hasMessage("bad");
        assertThat(registry.get("x")).isEmpty();
        assertThat(registry.running("job", "op")).isEmpty();
    }

    private static HandoverResult completed(String id) {
        return new HandoverResult(
                new HandoverId(id),
                HandoverPlan.of(0, List.of(new VnodeMove(1, 0, 1))),
                HandoverResult.Outcome.COMPLETED,
                1,
                Map.of(HandoverPhase.REQUESTED, 0L),
                5,
                Optional.empty(),
                Optional.empty());
    }
}
