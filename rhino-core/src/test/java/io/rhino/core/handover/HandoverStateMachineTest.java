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

package io.rhino.core.handover;

import static io.rhino.core.handover.HandoverPhase.COMPLETED;
import static io.rhino.core.handover.HandoverPhase.FAILED;
import static io.rhino.core.handover.HandoverPhase.MARKERS_PROPAGATED;
import static io.rhino.core.handover.HandoverPhase.ORIGIN_ALIGNED;
import static io.rhino.core.handover.HandoverPhase.REQUESTED;
import static io.rhino.core.handover.HandoverPhase.STATE_SHIPPED;
import static io.rhino.core.handover.HandoverPhase.TARGET_INSTALLED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

class HandoverStateMachineTest {

    private static final HandoverId ID = new HandoverId("h-1");
    private static final HandoverPlan PLAN = HandoverPlan.of(0, List.of(new VnodeMove(0, 0, 1)));
    private static final List<HandoverPhase> HAPPY_PATH =
            List.of(
                    REQUESTED,
                    MARKERS_PROPAGATED,
                    ORIGIN_ALIGNED,
                    STATE_SHIPPED,
                    TARGET_INSTALLED,
                    COMPLETED);

    private final FakeClock clock = new FakeClock(1_000);

    /** Returns a machine that has walked the happy path up to {@code phase}. */
    private HandoverStateMachine machineIn(HandoverPhase phase) {
        HandoverStateMachine machine = new HandoverStateMachine(ID, PLAN, clock);
        if (phase == FAILED) {
            machine.fail("setup");
            return machine;
        }
        for (HandoverPhase step : HAPPY_PATH.subList(1, HAPPY_PATH.indexOf(phase) + 1)) {
            machine.advanceTo(step);
        }
        return machine;
    }

    @Test
    void legalPathRecordsPhasesAndDurations() {
        HandoverStateMachine machine = new HandoverStateMachine(ID, PLAN, clock);
        assertThat(machine.phase()).isEqualTo(REQUESTED);

        clock.advance(10);
        machine.advanceTo(MARKERS_PROPAGATED);
        clock.advance(20);
        machine.advanceTo(ORIGIN_ALIGNED);
        clock.advance(300);
        machine.advanceTo(STATE_SHIPPED);
        clock.advance(4_000);
        machine.advanceTo(TARGET_INSTALLED);
        assertThat(machine.totalMillis()).isEqualTo(4_330);
        clock.advance(5);
        machine.advanceTo(COMPLETED);
        clock.advance(99_999); // time after completion does not count

        assertThat(machine.phase()).isEqualTo(COMPLETED);
        assertThat(machine.phase().isTerminal()).isTrue();
        assertThat(machine.phaseDurationsMillis())
                .containsExactly(
                        entry(REQUESTED, 0L),
                        entry(MARKERS_PROPAGATED, 10L),
                        entry(ORIGIN_ALIGNED, 20L),
                        entry(STATE_SHIPPED, 300L),
                        entry(TARGET_INSTALLED, 4_000L),
                        entry(COMPLETED, 5L));
        assertThat(machine.totalMillis()).isEqualTo(4_335);
        assertThat(machine.isFailed()).isFalse();
        assertThat(machine.failureCause()).isEmpty();
    }

    @Test
    void totalMillisGrowsWhileRunning() {
        HandoverStateMachine machine = new HandoverStateMachine(ID, PLAN, clock);
        clock.advance(42);

        assertThat(machine.totalMillis()).isEqualTo(42);
        assertThat(machine.phaseDurationsMillis()).containsExactly(entry(REQUESTED, 0L));
    }

    static Stream<Arguments> illegalTransitions() {
        List<Arguments> cases = new ArrayList<>();
        for (HandoverPhase from : HandoverPhase.values()) {
            for (HandoverPhase to : HandoverPhase.values()) {
                boolean legal = from.next().map(n -> n == to).orElse(false);
                if (!legal) {
                    cases.add(Arguments.of(from, to));
                }
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @MethodSource("illegalTransitions")
    void illegalTransitionThrowsNamingTheCurrentPhase(HandoverPhase from, HandoverPhase to) {
        HandoverStateMachine machine = machineIn(from);
        var durationsBefore = machine.phaseDurationsMillis();

        assertThatThrownBy(() -> machine.advanceTo(to))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("handover h-1: cannot go from " + from + " to " + to);

        assertThat(machine.phase()).isEqualTo(from);
        assertThat(machine.phaseDurationsMillis()).isEqualTo(durationsBefore);
    }

    @Test
    void illegalTransitionMessageNamesTheExpectedNextPhase() {
        HandoverStateMachine machine = machineIn(ORIGIN_ALIGNED);

        assertThatThrownBy(() -> machine.advanceTo(COMPLETED))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage(
                        "handover h-1: cannot go from ORIGIN_ALIGNED to COMPLETED"
                                + " (expected next: STATE_SHIPPED)");
        assertThatThrownBy(() -> machineIn(COMPLETED).advanceTo(FAILED))
                .hasMessage(
                        "handover h-1: cannot go from COMPLETED to FAILED"
                                + " (expected next: none, COMPLETED is terminal)");
        assertThatThrownBy(() -> machine.advanceTo(FAILED))
                .hasMessageContaining("use fail(cause) to fail");
    }

    @ParameterizedTest
    @EnumSource(
            names = {
                "REQUESTED",
                "MARKERS_PROPAGATED",
                "ORIGIN_ALIGNED",
                "STATE_SHIPPED",
                "TARGET_INSTALLED"
            })
    void failFromEveryNonTerminalPhase(HandoverPhase phase) {
        HandoverStateMachine machine = machineIn(phase);
        clock.advance(7);

        machine.fail("target subtask 3 lost");

        assertThat(machine.phase()).isEqualTo(FAILED);
        assertThat(machine.isFailed()).isTrue();
        assertThat(machine.failedIn()).isEqualTo(phase);
        assertThat(machine.failureCause()).contains("target subtask 3 lost");
        assertThat(machine.phaseDurationsMillis()).containsEntry(FAILED, 7L);
        assertThat(machine.phaseDurationsMillis().keySet())
                .containsExactlyElementsOf(
                        concat(HAPPY_PATH.subList(0, HAPPY_PATH.indexOf(phase) + 1), FAILED));
    }

    @Test
    void failAfterCompletedThrows() {
        HandoverStateMachine machine = machineIn(COMPLETED);

        assertThatThrownBy(() -> machine.fail("too late"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("handover h-1: cannot fail in COMPLETED");
        assertThat(machine.phase()).isEqualTo(COMPLETED);
        assertThat(machine.failureCause()).isEmpty();
    }

    @Test
    void failTwiceThrowsAndKeepsTheFirstCause() {
        HandoverStateMachine machine = machineIn(STATE_SHIPPED);
        machine.fail("first");

        assertThatThrownBy(() -> machine.fail("second"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("cannot fail in FAILED")
                .hasMessageContaining("failed in STATE_SHIPPED: first");
        assertThat(machine.failedIn()).isEqualTo(STATE_SHIPPED);
        assertThat(machine.failureCause()).contains("first");
    }

    @Test
    void failedInThrowsWhileNotFailed() {
        HandoverStateMachine machine = machineIn(MARKERS_PROPAGATED);

        assertThatThrownBy(machine::failedIn)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("current phase: MARKERS_PROPAGATED");
    }

    @Test
    void backwardsClockNeverYieldsNegativeDurations() {
        HandoverStateMachine machine = new HandoverStateMachine(ID, PLAN, clock);
        clock.advance(-500);
        machine.advanceTo(MARKERS_PROPAGATED);

        assertThat(machine.phaseDurationsMillis()).containsEntry(MARKERS_PROPAGATED, 0L);
        assertThat(machine.totalMillis()).isZero();
    }

    @Test
    void durationsAreASnapshot() {
        HandoverStateMachine machine = new HandoverStateMachine(ID, PLAN, clock);
        var snapshot = machine.phaseDurationsMillis();
        machine.advanceTo(MARKERS_PROPAGATED);

        assertThat(snapshot).containsOnlyKeys(REQUESTED);
        assertThatThrownBy(() -> snapshot.put(FAILED, 1L))
                .isInstanceOf(UnsupportedOperationException.class);
    }

    private static List<HandoverPhase> concat(List<HandoverPhase> phases, HandoverPhase last) {
        List<HandoverPhase> all = new ArrayList<>(phases);
        all.add(last);
        return all;
    }
}
