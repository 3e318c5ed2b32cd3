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

package io.rhino.core.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rhino.core.handover.HandoverPlan;
import io.rhino.core.handover.InvalidHandoverException;
import io.rhino.core.handover.VnodeMove;
import java.util.List;
import org.junit.jupiter.api.Test;

class RoutingTableTest {

    private final VnodeLayout layout = new VnodeLayout(128, 16);

    @Test
    void initialSpreadsVnodesInContiguousBlocks() {
        RoutingTable table = RoutingTable.initial(layout, 4, 4);

        assertThat(table.epoch()).isZero();
        assertThat(table.parallelism()).isEqualTo(4);
        assertThat(table.layout()).isEqualTo(layout);
        assertThat(table.ownerByVnode())
                .containsExactly(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3);
        assertThat(table.vnodesOwnedBy(1)).containsExactly(4, 5, 6, 7);
        assertThat(table.activeSubtasks()).containsExactly(0, 1, 2, 3);
    }

    @Test
    void initialLeavesStandbySubtasksEmpty() {
        RoutingTable table = RoutingTable.initial(layout, 4, 2);

        assertThat(table.vnodesOwnedBy(0)).containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
        assertThat(table.vnodesOwnedBy(2)).isEmpty();
        assertThat(table.vnodesOwnedBy(3)).isEmpty();
        assertThat(table.activeSubtasks()).containsExactly(0, 1);
        assertThat(table.vnodeCountBySubtask()).containsExactly(8, 8, 0, 0);
    }

    @Test
    void ownerLookupsGoThroughTheLayout() {
        RoutingTable table = RoutingTable.initial(layout, 4, 4);

        assertThat(table.ownerOf(3)).isZero();
        assertThat(table.ownerOfKeyGroup(24)).isZero(); // vnode 3
        assertThat(table.ownerOfKeyGroup(127)).isEqualTo(3); // vnode 15
        assertThat(table.ownerOfKey("user-1")).isEqualTo(3); // key group 121, vnode 15
    }

    @Test
    void applyMovesVnodesAndAdvancesTheEpoch() {
        RoutingTable before = RoutingTable.initial(layout, 4, 2);
        HandoverPlan plan =
                HandoverPlan.of(0, List.of(new VnodeMove(0, 0, 3), new VnodeMove(9, 1, 2)));

        RoutingTable after = before.apply(plan);

        assertThat(after.epoch()).isEqualTo(1);
        assertThat(after.ownerOf(0)).isEqualTo(3);
        assertThat(after.ownerOf(9)).isEqualTo(2);
        assertThat(after.vnodesOwnedBy(0)).containsExactly(1, 2, 3, 4, 5, 6, 7);
        assertThat(after.activeSubtasks()).containsExactly(0, 1, 2, 3);
        // The old table is untouched.
        assertThat(before).isEqualTo(RoutingTable.initial(layout, 4, 2));
        assertThat(before.ownerOf(0)).isZero();
    }

    @Test
    void epochsOnlyMoveForwardOneApplyAtATime() {
        RoutingTable epoch0 = RoutingTable.initial(layout, 4, 2);
        HandoverPlan first = HandoverPlan.of(0, List.of(new VnodeMove(0, 0, 2)));
        RoutingTable epoch1 = epoch0.apply(first);
        RoutingTable epoch2 = epoch1.apply(HandoverPlan.of(1, List.of(new VnodeMove(0, 2, 3))));

        assertThat(epoch2.epoch()).isEqualTo(2);
        assertThat(epoch2.ownerOf(0)).isEqualTo(3);
        // Replaying a plan is rejected as stale.
        assertThatThrownBy(() -> epoch2.apply(first))
                .isInstanceOf(InvalidHandoverException.class)
                .hasMessageContaining("epoch 0 but the routing table is at epoch 2");
    }

    @Test
    void moveBackRestoresOwnershipAtANewEpoch() {
        RoutingTable epoch0 = RoutingTable.initial(layout, 4, 2);
        RoutingTable epoch1 = epoch0.apply(HandoverPlan.of(0, List.of(new VnodeMove(5, 0, 3))));
        RoutingTable epoch2 = epoch1.apply(HandoverPlan.of(1, List.of(new VnodeMove(5, 3, 0))));

        assertThat(epoch2.ownerByVnode()).isEqualTo(epoch0.ownerByVnode());
        assertThat(epoch2).isNotEqualTo(epoch0); // the epoch differs
    }

    @Test
    void returnedArraysAndSetsCannotChangeTheTable() {
        RoutingTable table = RoutingTable.initial(layout, 4, 4);

        table.ownerByVnode()[0] = 3;
        table.vnodesOwnedBy(0)[0] = 15;

        assertThat(table.ownerOf(0)).isZero();
        assertThat(table.vnodesOwnedBy(0)).containsExactly(0, 1, 2, 3);
        assertThatThrownBy(() -> table.activeSubtasks().add(7))
                .isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void rejectsBadActiveParallelism() {
        assertThatThrownBy(() -> RoutingTable.initial(layout, 4, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("activeParallelism: 0 (expected: 1..parallelism=4)");
        assertThatThrownBy(() -> RoutingTable.initial(layout, 4, 5))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("activeParallelism: 5 (expected: 1..parallelism=4)");
        VnodeLayout fewVnodes = new VnodeLayout(128, 2);
        assertThatThrownBy(() -> RoutingTable.initial(fewVnodes, 4, 3))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("activeParallelism: 3 (expected: <= numVnodes=2");
    }

    @Test
    void rejectsBadParallelism() {
        assertThatThrownBy(() -> RoutingTable.initial(layout, 0, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("parallelism: 0 (expected: 1..numKeyGroups=128)");
        assertThatThrownBy(() -> RoutingTable.initial(layout, 129, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("parallelism: 129 (expected: 1..numKeyGroups=128)");
        assertThatThrownBy(() -> RoutingTable.initial(null, 4, 1))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("layout");
    }

    @Test
    void rejectsUnknownVnodesAndSubtasks() {
        RoutingTable table = RoutingTable.initial(layout, 4, 4);

        assertThatThrownBy(() -> table.ownerOf(16))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("vnode: 16 (expected: 0..15)");
        assertThatThrownBy(() -> table.vnodesOwnedBy(4))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("subtask: 4 (expected: 0..3)");
        assertThatThrownBy(() -> table.ownerOfKeyGroup(128))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("keyGroup: 128 (expected: 0..127)");
    }

    @Test
    void valueSemantics() {
        RoutingTable table = RoutingTable.initial(layout, 4, 3);

        assertThat(table)
                .isEqualTo(RoutingTable.initial(layout, 4, 3))
                .hasSameHashCodeAs(RoutingTable.initial(layout, 4, 3))
                .isNotEqualTo(RoutingTable.initial(layout, 4, 4))
                .isNotEqualTo(RoutingTable.initial(layout, 5, 3))
                .hasToString("RoutingTable{epoch=0, numVnodes=16, vnodesPerSubtask=[6, 5, 5, 0]}");
    }
}
