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

package io.rhino.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rhino.core.handover.HandoverAck;
import io.rhino.core.handover.HandoverCommand;
import io.rhino.core.handover.HandoverId;
import io.rhino.core.handover.HandoverMarker;
import io.rhino.core.handover.HandoverPlan;
import io.rhino.core.handover.InvalidHandoverException;
import io.rhino.core.handover.VnodeMove;
import io.rhino.core.routing.KeyGroupSpan;
import io.rhino.core.routing.RoutingTable;
import io.rhino.core.routing.VnodeLayout;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Values cross process boundaries (Flink RPC, checkpoints), so they must survive Java
 * serialization.
 */
class SerializationTest {

    private static final VnodeLayout LAYOUT = new VnodeLayout(128, 16);
    private static final HandoverPlan PLAN =
            HandoverPlan.of(0, List.of(new VnodeMove(0, 0, 3), new VnodeMove(12, 2, 1)));
    private static final HandoverId ID = new HandoverId("h-42");

    static Stream<Serializable> values() {
        RoutingTable table = RoutingTable.initial(LAYOUT, 4, 3);
        Map<String, Long> timings = new LinkedHashMap<>();
        timings.put("align", 3L);
        timings.put("ship", 250L);
        return Stream.of(
                new KeyGroupSpan(8, 15),
                LAYOUT,
                table,
                table.apply(PLAN),
                new VnodeMove(1, 2, 3),
                PLAN,
                ID,
                HandoverId.random(),
                new HandoverCommand(ID, PLAN, 1),
                new HandoverMarker(ID, 1, 7, PLAN),
                new HandoverAck(ID, 3, HandoverAck.Role.TARGET, timings));
    }

    @ParameterizedTest
    @MethodSource("values")
    void roundTripEqualsTheOriginal(Serializable value) {
        Object copy = roundTrip(value);

        assertThat(copy).isNotSameAs(value).isEqualTo(value).hasSameHashCodeAs(value);
        assertThat(copy.toString()).isEqualTo(value.toString());
    }

    @Test
    void enumsRoundTripToTheSameConstant() {
        assertThat(roundTrip(HandoverAck.Role.ROUTER)).isSameAs(HandoverAck.Role.ROUTER);
    }

    @Test
    void deserializedTableIsFullyFunctional() {
        RoutingTable table = roundTrip(RoutingTable.initial(LAYOUT, 4, 3));

        RoutingTable next = table.apply(PLAN);

        assertThat(next.epoch()).isEqualTo(1);
        assertThat(next.ownerOf(0)).isEqualTo(3);
    }

    @Test
    void deserializedAckTimingsStayUnmodifiable() {
        HandoverAck ack =
                roundTrip(new HandoverAck(ID, 0, HandoverAck.Role.ORIGIN, Map.of("a", 1L)));

        assertThat(ack.timingsMillis()).containsEntry("a", 1L);
        assertThatThrownBy(() -> ack.timingsMillis().clear())
                .isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void invalidHandoverExceptionKeepsItsProblems() {
        InvalidHandoverException e = new InvalidHandoverException(List.of("a", "b"));

        InvalidHandoverException copy = roundTrip(e);

        assertThat(copy.problems()).containsExactly("a", "b");
        assertThat(copy).hasMessage(e.getMessage());
    }

    @SuppressWarnings("unchecked")
    private static <T> T roundTrip(T value) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
                out.writeObject(value);
            }
            try (ObjectInputStream in =
                    new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
                return (T) in.readObject();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(e);
        }
    }
}
