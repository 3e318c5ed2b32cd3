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

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import io.rhino.core.handover.HandoverAck.Role;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class HandoverMessagesTest {

    private static final HandoverId ID = new HandoverId("h-1");
    private static final HandoverPlan PLAN = HandoverPlan.of(4, List.of(new VnodeMove(0, 0, 1)));

    @ParameterizedTest
    @ValueSource(
            strings = {
                "a",
                "h-1",
                "2024.06.01_rebalance-7",
                "550e8400-e29b-41d4-a716-446655440000"
            })
    void acceptsValidIds(String value) {
        assertThat(new HandoverId(value).value()).isEqualTo(value);
        assertThat(new HandoverId(value)).hasToString(value);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "has space", "a/b", "ünïcode", "semi;colon"})
    void rejectsInvalidIds(String value) {
        assertThatThrownBy(() -> new HandoverId(value))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("value: \"" + value + "\" (expected: [A-Za-z0-9._-]{1,64})");
    }

    @Test
    void idLengthIsBounded() {
        assertThat(new HandoverId("x".repeat(64)).value()).hasSize(64);
        assertThatThrownBy(() -> new HandoverId("x".repeat(65)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new HandoverId(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void randomIdsAreValidAndDistinct() {
        HandoverId a = HandoverId.random();
        HandoverId b = HandoverId.random();

        assertThat(a).isNotEqualTo(b);
        assertThat(new HandoverId(a.value())).isEqualTo(a);
    }

    @Test
    void commandAndMarkerAdvanceTheEpochByOne() {
        HandoverCommand command = new HandoverCommand(ID, PLAN, 5);
        HandoverMarker marker = new HandoverMarker(ID, 5, 2, PLAN);

        assertThat(command.newEpoch()).isEqualTo(marker.newEpoch()).isEqualTo(5);
        assertThat(marker.routerSubtask()).isEqualTo(2);
        assertThatThrownBy(() -> new HandoverCommand(ID, PLAN, 4))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("newEpoch: 4 (expected: plan.basedOnEpoch()+1=5)");
        assertThatThrownBy(() -> new HandoverMarker(ID, 7, 0, PLAN))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("newEpoch: 7 (expected: plan.basedOnEpoch()+1=5)");
    }

    @Test
    void aMarkerTellsWhetherARecutFollowedIt() {
        HandoverMarker marker = new HandoverMarker(ID, 5, 2, PLAN, 16);
        assertThat(marker.predatesRecutTo(16)).as("the same vnodes").isFalse();
        assertThat(marker.predatesRecutTo(32)).as("restored into 32 since").isTrue();
        assertThat(new HandoverMarker(ID, 5, 2, PLAN).predatesRecutTo(32))
                .as("a marker that does not say")
                .isFalse();
        assertThatThrownBy(() -> new HandoverMarker(ID, 5, 2, PLAN, -1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("numVnodes: -1 (expected: >= 1, or 0 where unknown)");
    }

    @Test
    void markerRejectsBadFields() {
        assertThatThrownBy(() -> new HandoverMarker(ID, 5, -1, PLAN))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("routerSubtask: -1 (expected: >= 0)");
        assertThatThrownBy(() -> new HandoverMarker(null, 5, 0, PLAN))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("handoverId");
        assertThatThrownBy(() -> new HandoverCommand(ID, null, 5))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("plan");
    }

    @Test
    void ackCopiesTimingsAndKeepsTheirOrder() {
        Map<String, Long> timings = new LinkedHashMap<>();
        timings.put("align", 12L);
        timings.put("ship", 340L);
        HandoverAck ack = new HandoverAck(ID, 3, Role.ORIGIN, timings);

        timings.put("late", 1L);

        assertThat(ack.timingsMillis()).containsExactly(entry("align", 12L), entry("ship", 340L));
        assertThatThrownBy(() -> ack.timingsMillis().put("x", 1L))
                .isInstanceOf(UnsupportedOperationException.class);
        assertThat(ack.role()).isEqualTo(Role.ORIGIN);
    }

    @Test
    void ackRejectsBadFields() {
        assertThatThrownBy(() -> new HandoverAck(ID, -1, Role.TARGET, Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("subtask: -1 (expected: >= 0)");
        Map<String, Long> withNull = new HashMap<>();
        withNull.put("ship", null);
        assertThatThrownBy(() -> new HandoverAck(ID, 0, Role.TARGET, withNull))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("ship=null");
        assertThatThrownBy(() -> new HandoverAck(ID, 0, null, Map.of()))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("role");
    }

    @Test
    void onlyCompletedAndFailedAreTerminal() {
        for (HandoverPhase phase : HandoverPhase.values()) {
            boolean terminal = phase == HandoverPhase.COMPLETED || phase == HandoverPhase.FAILED;
            assertThat(phase.isTerminal()).as(phase.name()).isEqualTo(terminal);
            assertThat(phase.next().isEmpty()).as(phase.name()).isEqualTo(terminal);
        }
        assertThat(HandoverPhase.ORIGIN_ALIGNED.next()).contains(HandoverPhase.STATE_SHIPPED);
    }
}
