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
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.rhino.core.routing.RoutingTable;
import io.rhino.core.routing.VnodeLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class HandoverPlanTest {

    /** 16 vnodes over subtasks 0..3: vnodes 0-3 on 0, 4-7 on 1, 8-11 on 2, 12-15 on 3. */
    private static final RoutingTable TABLE_AT_EPOCH_0 =
            RoutingTable.initial(new VnodeLayout(128, 16), 4, 4);

    private static VnodeMove move(int vnode, int from, int to) {
        return new VnodeMove(vnode, from, to);
    }

    @Test
    void derivedViews() {
        HandoverPlan plan =
                HandoverPlan.of(0, List.of(move(5, 1, 3), move(0, 0, 2), move(1, 0, 3)));

        assertThat(plan.basedOnEpoch()).isZero();
        assertThat(plan.vnodes()).containsExactly(0, 1, 5);
        assertThat(plan.involvedSubtasks()).containsExactly(0, 1, 2, 3);
        assertThat(plan.movesByTarget()).containsOnlyKeys(2, 3);
        assertThat(plan.movesByTarget().get(3)).containsExactly(move(5, 1, 3), move(1, 0, 3));
        assertThat(plan.movesByTarget().get(2)).containsExactly(move(0, 0, 2));
        assertThat(plan)
                .hasToString("HandoverPlan{basedOnEpoch=0, moves=[v5:1->3, v0:0->2, v1:0->3]}");
    }

    @Test
    void movesAreCopiedAndUnmodifiable() {
        List<VnodeMove> moves = new ArrayList<>(List.of(move(0, 0, 1)));
        HandoverPlan plan = HandoverPlan.of(0, moves);

        moves.add(move(1, 0, 1));

        assertThat(plan.moves()).containsExactly(move(0, 0, 1));
        assertThatThrownBy(() -> plan.moves().add(move(2, 0, 1)))
                .isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> plan.movesByTarget().get(1).clear())
                .isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void ofRejectsNullsAndNegativeEpochs() {
        assertThatThrownBy(() -> HandoverPlan.of(0, null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("moves: null");
        assertThatThrownBy(() -> HandoverPlan.of(0, Arrays.asList(move(0, 0, 1), null)))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("moves[1]: null");
        assertThatThrownBy(() -> HandoverPlan.of(-1, List.of(move(0, 0, 1))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("basedOnEpoch: -1 (expected: >= 0)");
    }

    @Test
    void validPlanPasses() {
        HandoverPlan plan = HandoverPlan.of(0, List.of(move(0, 0, 1), move(15, 3, 0)));

        TABLE_AT_EPOCH_0.validate(plan);
        assertThat(TABLE_AT_EPOCH_0.apply(plan).epoch()).isEqualTo(1);
    }

    static Stream<Arguments> invalidPlans() {
        return Stream.of(
                Arguments.of("empty plan", HandoverPlan.of(0, List.of()), "the plan has no moves"),
                Arguments.of(
                        "stale epoch",
                        HandoverPlan.of(3, List.of(move(0, 0, 1))),
                        "plan was made for epoch 3 but the routing table is at epoch 0;"
                                + " re-read the table and plan again"),
                Arguments.of(
                        "unknown vnode",
                        HandoverPlan.of(0, List.of(move(16, 3, 0))),
                        "vnode 16 does not exist; the layout has 16 vnodes (0..15)"),
                Arguments.of(
                        "negative vnode",
                        HandoverPlan.of(0, List.of(move(-1, 0, 1))),
                        "vnode -1 does not exist"),
                Arguments.of(
                        "duplicate vnode",
                        HandoverPlan.of(0, List.of(move(2, 0, 1), move(2, 0, 3))),
                        "vnode 2 appears 2 times; a vnode can move at most once per handover"),
                Arguments.of(
                        "wrong fromSubtask",
                        HandoverPlan.of(0, List.of(move(4, 0, 2))),
                        "vnode 4 is owned by subtask 1, not by fromSubtask 0"),
                Arguments.of(
                        "non-existent target",
                        HandoverPlan.of(0, List.of(move(4, 1, 9))),
                        "subtask 9 does not exist; the operator's deployed parallelism is 4"
                                + " (subtasks 0..3)"),
                Arguments.of(
                        "negative target",
                        HandoverPlan.of(0, List.of(move(4, 1, -1))),
                        "subtask -1 does not exist"),
                Arguments.of(
                        "self-move",
                        HandoverPlan.of(0, List.of(move(4, 1, 1))),
                        "vnode 4 moves from subtask 1 to itself"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidPlans")
    void validationRejects(String problem, HandoverPlan plan, String expectedFragment) {
        assertThatThrownBy(() -> TABLE_AT_EPOCH_0.validate(plan))
                .isInstanceOf(InvalidHandoverException.class)
                .hasMessageStartingWith("invalid handover plan")
                .hasMessageContaining(expectedFragment);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidPlans")
    void rejectedApplyLeavesTheTableUnchanged(
            String problem, HandoverPlan plan, String expectedFragment) {
        RoutingTable table = RoutingTable.initial(new VnodeLayout(128, 16), 4, 4);
        int[] ownersBefore = table.ownerByVnode();

        assertThatThrownBy(() -> table.apply(plan))
                .isInstanceOf(InvalidHandoverException.class)
                .hasMessageContaining(expectedFragment);

        assertThat(table.epoch()).isZero();
        assertThat(table.ownerByVnode()).isEqualTo(ownersBefore);
        assertThat(table).isEqualTo(TABLE_AT_EPOCH_0);
    }

    @Test
    void staleCheckUsesTheTablesCurrentEpoch() {
        RoutingTable epoch1 = TABLE_AT_EPOCH_0.apply(HandoverPlan.of(0, List.of(move(0, 0, 1))));
        HandoverPlan stale = HandoverPlan.of(0, List.of(move(1, 0, 1)));

        assertThatThrownBy(() -> epoch1.apply(stale))
                .isInstanceOf(InvalidHandoverException.class)
                .hasMessageContaining(
                        "plan was made for epoch 0 but the routing table is at epoch 1");
        assertThat(epoch1.epoch()).isEqualTo(1);
        assertThat(epoch1.ownerOf(1)).isZero();
    }

    @Test
    void reportsTheFirstProblemOfEveryVnode() {
        HandoverPlan plan =
                HandoverPlan.of(
                        0,
                        List.of(
                                move(0, 0, 1), // fine
                                move(2, 0, 0), // self-move
                                move(2, 0, 9), // duplicate of vnode 2: reported once
                                move(20, 0, 1), // unknown
                                move(5, 0, 9))); // wrong owner (also a bad target)

        InvalidHandoverException e =
                catchThrowableOfType(
                        InvalidHandoverException.class, () -> TABLE_AT_EPOCH_0.validate(plan));

        assertThat(e.problems())
                .containsExactly(
                        "vnode 2 appears 2 times; a vnode can move at most once per handover,"
                                + " keep one move",
                        "vnode 20 does not exist; the layout has 16 vnodes (0..15)",
                        "vnode 5 is owned by subtask 1, not by fromSubtask 0; re-read the routing"
                                + " table and plan again");
        assertThat(e).hasMessageStartingWith("invalid handover plan, 3 problems: vnode 2 appears");
    }

    @Test
    void valueSemantics() {
        HandoverPlan plan = HandoverPlan.of(2, List.of(move(1, 0, 1)));

        assertThat(plan)
                .isEqualTo(HandoverPlan.of(2, List.of(move(1, 0, 1))))
                .hasSameHashCodeAs(HandoverPlan.of(2, List.of(move(1, 0, 1))))
                .isNotEqualTo(HandoverPlan.of(3, List.of(move(1, 0, 1))))
                .isNotEqualTo(HandoverPlan.of(2, List.of(move(1, 0, 2))));
    }
}
