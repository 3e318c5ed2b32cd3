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

package io.rhino.flink.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rhino.core.handover.HandoverPlan;
import io.rhino.core.handover.VnodeMove;
import io.rhino.core.routing.RoutingTable;
import io.rhino.core.routing.VnodeLayout;
import java.util.List;
import org.junit.jupiter.api.Test;

class RhinoOperatorSpecTest {

    private static final RhinoOperatorSpec SPEC = new RhinoOperatorSpec("counts", 128, 8, 2, 2);
    private static final RhinoOperatorSpec DEFAULT_VNODES =
            new RhinoOperatorSpec("counts", 128, 8, 2, 2, false);

    @Test
    void aRestoredTableOfTheSameShapeIsKept() {
        RoutingTable restored =
                new RhinoOperatorSpec("renamed", 128, 8, 2, 1).initialRoutingTable();
        assertThat(SPEC.refusalToRun(2, restored.layout())).isEmpty();
        assertThat(SPEC.routingTableAt(2, restored)).isSameAs(restored);
    }

    @Test
    void aRestoreAtAnotherParallelismRedistributesTheRestoredVnodes() {
        RoutingTable restored = new RhinoOperatorSpec("counts", 128, 8, 2, 2).initialRoutingTable();

        RoutingTable atFour = SPEC.routingTableAt(4, restored);

        assertThat(atFour.parallelism()).isEqualTo(4);
        assertThat(atFour.epoch()).isEqualTo(restored.epoch() + 1);
        assertThat(atFour.ownerByVnode()).containsExactly(0, 0, 1, 1, 2, 2, 3, 3);
        assertThat(SPEC.running(4, restored.layout()).parallelism()).isEqualTo(4);
    }

    @Test
    void anUnchosenVnodeCountFollowsTheRestoredState() {
        VnodeLayout restored = new VnodeLayout(128, 16);

        RhinoOperatorSpec running = DEFAULT_VNODES.running(3, restored);

        assertThat(running.numVnodes()).isEqualTo(16);
        assertThat(running.parallelism()).isEqualTo(3);
        assertThat(DEFAULT_VNODES.running(3, null).numVnodes()).isEqualTo(8);
    }

    @Test
    void aChosenVnodeCountOtherThanTheRestoredOneRecutsTheKeyGroups() {
        RoutingTable restored =
                new RhinoOperatorSpec("counts", 128, 16, 2, 2)
                        .initialRoutingTable()
                        .apply(HandoverPlan.of(0, List.of(new VnodeMove(0, 0, 1))));

        assertThat(SPEC.refusalToRestore(3, restored)).isEmpty();
        assertThat(SPEC.recuts(restored.layout())).isTrue();
        assertThat(SPEC.running(3, restored.layout()).numVnodes()).isEqualTo(8);
        RoutingTable atThree = SPEC.routingTableAt(3, restored);
        assertThat(atThree.layout()).isEqualTo(new VnodeLayout(128, 8));
        assertThat(atThree.epoch()).isEqualTo(restored.epoch() + 1);
        assertThat(atThree).isEqualTo(restored.recutTo(new VnodeLayout(128, 8), 3));
        // unset, the restored count is kept: no re-cut
        assertThat(DEFAULT_VNODES.recuts(restored.layout())).isFalse();
        assertThat(DEFAULT_VNODES.routingTableAt(3, restored).layout())
                .isEqualTo(restored.layout());
    }

    @Test
    void aRecutAtAnUnchangedParallelismOfVnodesOfSeveralSubtasksIsRefusedNamingThem() {
        RoutingTable scattered =
                new RhinoOperatorSpec("counts", 128, 16, 2, 2)
                        .initialRoutingTable()
                        .apply(HandoverPlan.of(0, List.of(new VnodeMove(0, 0, 1))));
        RhinoOperatorSpec four = new RhinoOperatorSpec("counts", 128, 4, 2, 2);

        assertThat(four.refusalToRestore(2, scattered))
                .hasValueSatisfying(
                        refusal ->
                                assertThat(refusal)
                                        .contains("16 vnodes into 4 (rhino.vnodes)")
                                        .contains("new vnodes [0]")
                                        .contains("Restore at another parallelism"));
        assertThatThrownBy(() -> four.routingTableAt(2, scattered))
                .hasRootCauseMessage(four.refusalToRestore(2, scattered).get());
        // a split keeps every new vnode inside one old one
        assertThat(new RhinoOperatorSpec("counts", 128, 32, 2, 2).refusalToRestore(2, scattered))
                .isEmpty();
        assertThat(four.refusalToRestore(3, scattered)).isEmpty();
    }

    @Test
    void aVnodeCountTheKeyGroupsCannotHoldIsRefusedNamingBothAndTheOption() {
        assertThatThrownBy(() -> new RhinoOperatorSpec("counts", 128, 200, 2, 2))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(
                        "Rhino keyed stream 'counts' is built with 200 vnodes (rhino.vnodes), but"
                                + " its 128 key groups (rhino.key-groups) hold 1 to 128 vnodes:"
                                + " a vnode is at least one key group. Set rhino.vnodes to at"
                                + " most 128.");
        assertThatThrownBy(() -> new RhinoOperatorSpec("counts", 128, 0, 1, 1))
                .hasMessageContaining("built with 0 vnodes (rhino.vnodes)");
    }

    @Test
    void otherKeyGroupsAreRefusedWhateverTheVnodes() {
        assertThat(DEFAULT_VNODES.refusalToRun(2, new VnodeLayout(256, 8)))
                .hasValue(
                        "Rhino keyed stream 'counts' restores state of 256 key groups in 8 vnodes,"
                                + " but the job is built with 128 key groups in 8 vnodes. Key"
                                + " groups cannot change for existing state: build the job with"
                                + " the restored key groups (rhino.key-groups: 256, rhino.vnodes:"
                                + " 8, or RhinoKeyedStreamOptions' keyGroups and vnodes;"
                                + " rhino.vnodes may differ, a restore re-cuts the key groups"
                                + " into it).");
    }
}
