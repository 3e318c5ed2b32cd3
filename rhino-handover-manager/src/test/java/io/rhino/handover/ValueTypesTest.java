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
import io.rhino.core.handover.HandoverPlan;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Checks of the records and options that carry no logic of their own. */
class ValueTypesTest {

    private static final HandoverId ID = new HandoverId("h");
    private static final HandoverPlan PLAN = HandoverPlan.of(4, Harness.moves(1, 0, 2));

    @Test
    void shippedVnodeChecksItsIndices() {
        assertThatThrownBy(() -> new ShippedVnode(-1, 0, 1, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("vnode: -1 (expected: >= 0)");
        assertThatThrownBy(() -> new ShippedVnode(1, 2, 2, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("toSubtask: 2 (expected: >= 0 and != fromSubtask=2)");
    }

    @Test
    void shippedVnodeIsSerializable() throws Exception {
        ShippedVnode vnode = new ShippedVnode(3, 0, 1, "payload");
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(vnode);
        }
        try (ObjectInputStream in =
                new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            assertThat(in.readObject()).isEqualTo(vnode);
        }
    }

    @Test
    void completedResultHasTheNextEpochAndNoFailure() {
        assertThatThrownBy(
                        () ->
                                new HandoverResult(
                                        ID,
                                        PLAN,
                                        HandoverResult.Outcome.COMPLETED,
                                        4,
                                        Map.of(),
                                        0,
                                        Optional.empty(),
                                        Optional.empty()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("newEpoch: 4 (expected: plan.basedOnEpoch()+1=5");
        assertThatThrownBy(
                        () ->
                                new HandoverResult(
                                        ID,
                                        PLAN,
                                        HandoverResult.Outcome.COMPLETED,
                                        5,
                                        Map.of(),
                                        0,
                                        Optional.of(HandoverPhase.REQUESTED),
                                        Optional.empty()))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void failedResultHasNoEpochAndNamesPhaseAndCause() {
        assertThatThrownBy(
                        () ->
                                new HandoverResult(
                                        ID,
                                        PLAN,
                                        HandoverResult.Outcome.FAILED,
                                        5,
                                        Map.of(),
                                        0,
                                        Optional.of(HandoverPhase.REQUESTED),
                                        Optional.of("x")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("newEpoch: 5 (expected: -1 for a failed handover)");
        assertThatThrownBy(
                        () ->
                                new HandoverResult(
                                        ID,
                                        PLAN,
                                        HandoverResult.Outcome.FAILED,
                                        -1,
                                        Map.of(),
                                        0,
                                        Optional.empty(),
                                        Optional.of("x")))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void resultCopiesThePhaseDurations() {
        Map<HandoverPhase, Long> durations = new HashMap<>(Map.of(HandoverPhase.REQUESTED, 0L));
        HandoverResult result = HandoverResult.failedBeforeStart(ID, PLAN, "cause");
        assertThat(result.phaseDurationsMillis()).isEqualTo(durations);
        durations.put(HandoverPhase.FAILED, 1L);
        assertThat(result.phaseDurationsMillis()).hasSize(1);
        assertThatThrownBy(() -> result.phaseDurationsMillis().put(HandoverPhase.FAILED, 1L))
                .isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void statusIsForRunningHandoversOnly() {
        assertThatThrownBy(() -> new HandoverStatus(ID, PLAN, HandoverPhase.COMPLETED, false, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("phase: COMPLETED (expected: a non-terminal phase");
        assertThatThrownBy(() -> new HandoverStatus(ID, PLAN, HandoverPhase.REQUESTED, true, -1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("elapsedMillis: -1 (expected: >= 0)");
    }

    @Test
    void optionsHaveDefaultsAndCheckEverySetting() {
        HandoverManagerOptions defaults = HandoverManagerOptions.defaults();
        assertThat(defaults.timeout()).isEqualTo(Duration.ofSeconds(60));
        assertThat(defaults.maxQueued()).isEqualTo(1);
        assertThat(defaults.resultHistorySize()).isEqualTo(100);

        HandoverManagerOptions custom =
                HandoverManagerOptions.builder()
                        .timeout(Duration.ofMillis(250))
                        .maxQueued(0)
                        .resultHistorySize(5)
                        .build();
        assertThat(custom.timeout()).isEqualTo(Duration.ofMillis(250));
        assertThat(custom.maxQueued()).isZero();
        assertThat(custom.resultHistorySize()).isEqualTo(5);

        assertThatThrownBy(() -> HandoverManagerOptions.builder().timeout(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("timeout: PT0S (expected: >= 1 ms)");
        assertThatThrownBy(() -> HandoverManagerOptions.builder().maxQueued(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxQueued: -1 (expected: >= 0)");
        assertThatThrownBy(() -> HandoverManagerOptions.builder().resultHistorySize(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("resultHistorySize: 0 (expected: >= 1)");
    }
}
