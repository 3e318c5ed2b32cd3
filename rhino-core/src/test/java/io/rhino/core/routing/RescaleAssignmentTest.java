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
import io.rhino.core.handover.VnodeMove;
import java.util.List;
import org.junit.jupiter.api.Test;

class RescaleAssignmentTest {

    @Test
    void aRescaledTableFollowsFlinksKeyGroupRangesAtTheNextEpoch() {
        VnodeLayout layout = new VnodeLayout(1 << 15, 8);
        RoutingTable scattered =
                RoutingTable.initial(layout, 2, 2)
                        .apply(HandoverPlan.of(0, List.of(new VnodeMove(0, 0, 1))));

        RoutingTable rescaled = scattered.rescaledTo(4);

        assertThat(rescaled.epoch()).isEqualTo(2);
        assertThat(rescaled.parallelism()).isEqualTo(4);
        assertThat(rescaled.layout()).isEqualTo(layout);
        // 32768 key groups over 4 subtasks: 8192 each, two vnodes of 4096
        assertThat(rescaled.ownerByVnode()).containsExactly(0, 0, 1, 1, 2, 2, 3, 3);
    }

    @Test
    void anUnchangedParallelismKeepsTheRestoredOwners() {
        RoutingTable scattered =
                RoutingTable.initial(new VnodeLayout(128, 8), 2, 2)
                        .apply(HandoverPlan.of(0, List.of(new VnodeMove(0, 0, 1))));

        assertThat(scattered.rescaledTo(2)).isSameAs(scattered);
    }

    @Test
    void aRecutTableSplitsTheKeyGroupsIntoTheNewVnodesByFlinksRangesAtTheNextEpoch() {
        RoutingTable scattered =
                RoutingTable.initial(new VnodeLayout(128, 8), 2, 2)
                        .apply(HandoverPlan.of(0, List.of(new VnodeMove(0, 0, 1))));
        VnodeLayout twelve = new VnodeLayout(128, 12);

        RoutingTable recut = scattered.recutTo(twelve, 3);

        assertThat(recut.epoch()).isEqualTo(2);
        assertThat(recut.layout()).isEqualTo(twelve);
        assertThat(recut.parallelism()).isEqualTo(3);
        assertThat(recut.ownerByVnode()).containsExactly(RescaleAssignment.owners(twelve, 3));
        // Flink's ranges at 3 are 0..42, 43..85, 86..127: vnodes 4 (42..52) and 8 (85..95) start
        // in the range before
        assertThat(recut.vnodeCountBySubtask()).containsExactly(5, 4, 3);
        // deterministic: routers, gates and the coordinator each compute it alone
        assertThat(scattered.recutTo(new VnodeLayout(128, 12), 3)).isEqualTo(recut);
    }

    @Test
    void aRecutAtAnUnchangedParallelismKeepsEachNewVnodeWithTheOwnerOfItsOldOnes() {
        // 16 vnodes over 2 subtasks, vnode 0 moved to subtask 1
        RoutingTable scattered =
                RoutingTable.initial(new VnodeLayout(128, 16), 2, 2)
                        .apply(HandoverPlan.of(0, List.of(new VnodeMove(0, 0, 1))));

        // split: each new vnode lies in one old one
        RoutingTable split = scattered.recutTo(new VnodeLayout(128, 32), 2);
        assertThat(split.epoch()).isEqualTo(2);
        assertThat(split.ownerOf(0)).isEqualTo(1);
        assertThat(split.ownerOf(1)).isEqualTo(1);
        assertThat(split.ownerOf(2)).isEqualTo(0);
        assertThat(split.ownerOf(31)).isEqualTo(1);

        // merged 4 to 1: new vnode 0 holds old vnodes 0 (subtask 1) and 1..3 (subtask 0)
        VnodeLayout four = new VnodeLayout(128, 4);
        assertThat(scattered.vnodesWithSeveralOwnersIn(four)).containsExactly(0);
        assertThatThrownBy(() -> scattered.recutTo(four, 2))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("[0]");
        RoutingTable unscattered = RoutingTable.initial(new VnodeLayout(128, 16), 2, 2);
        assertThat(unscattered.recutTo(four, 2).ownerByVnode()).containsExactly(0, 0, 1, 1);
        // at another parallelism every subtask reads every old subtask's state: no such rule
        assertThat(scattered.recutTo(four, 3).ownerByVnode())
                .containsExactly(RescaleAssignment.owners(four, 3));
    }

    @Test
    void aRecutToTheSameLayoutIsARescale() {
        RoutingTable scattered =
                RoutingTable.initial(new VnodeLayout(128, 8), 2, 2)
                        .apply(HandoverPlan.of(0, List.of(new VnodeMove(0, 0, 1))));

        assertThat(scattered.recutTo(new VnodeLayout(128, 8), 2)).isSameAs(scattered);
        assertThat(scattered.recutTo(new VnodeLayout(128, 8), 4))
                .isEqualTo(scattered.rescaledTo(4));
    }

    @Test
    void aRecutCannotChangeTheKeyGroups() {
        RoutingTable table = RoutingTable.initial(new VnodeLayout(128, 8), 2, 2);

        assertThatThrownBy(() -> table.recutTo(new VnodeLayout(256, 8), 2))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("128 key groups");
    }

    @Test
    void everyVnodeGoesToTheSubtaskOfItsFirstKeyGroup() {
        VnodeLayout layout = new VnodeLayout(128, 12);
        for (int parallelism = 1; parallelism <= 12; parallelism++) {
            int[] owners = RescaleAssignment.owners(layout, parallelism);
            for (int vnode = 0; vnode < layout.numVnodes(); vnode++) {
                int first = layout.keyGroupsOf(vnode).startKeyGroup();
                int flinkStart = (owners[vnode] * 128 + parallelism - 1) / parallelism;
                int flinkNextStart = ((owners[vnode] + 1) * 128 + parallelism - 1) / parallelism;
                assertThat(first).isBetween(flinkStart, flinkNextStart - 1);
            }
            // ascending vnodes, non-decreasing owners: each subtask's vnodes are contiguous
            for (int vnode = 1; vnode < owners.length; vnode++) {
                assertThat(owners[vnode]).isGreaterThanOrEqualTo(owners[vnode - 1]);
            }
        }
    }

    @Test
    void vnodesThatStraddleAFlinkRangeAreNamed() {
        VnodeLayout layout = new VnodeLayout(1 << 15, 8);

        assertThat(RescaleAssignment.vnodesSplitAt(layout, 4)).isEmpty();
        assertThat(RescaleAssignment.vnodesSplitAt(layout, 8)).isEmpty();
        // 10922.67 key groups per subtask: vnodes 2 (8192..12287) and 5 (20480..24575) straddle
        assertThat(RescaleAssignment.vnodesSplitAt(layout, 3)).containsExactly(2, 5);
        assertThat(RescaleAssignment.unsplitParallelisms(layout, 8)).containsExactly(1, 2, 4, 8);
    }
}
