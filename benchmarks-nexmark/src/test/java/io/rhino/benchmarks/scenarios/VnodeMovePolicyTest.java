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

package io.rhino.benchmarks.scenarios;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rhino.core.handover.VnodeMove;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class VnodeMovePolicyTest {

    /** 16 vnodes over {@code active} subtasks, as Rhino's initial routing table lays them out. */
    private static int[] initial(int vnodes, int active) {
        return IntStream.range(0, vnodes).map(v -> (int) ((long) v * active / vnodes)).toArray();
    }

    private static int[] apply(int[] owners, List<VnodeMove> moves) {
        int[] after = owners.clone();
        for (VnodeMove move : moves) {
            assertThat(after[move.vnode()]).isEqualTo(move.fromSubtask());
            after[move.vnode()] = move.toSubtask();
        }
        return after;
    }

    private static long load(int[] owners, int subtask) {
        return Arrays.stream(owners).filter(o -> o == subtask).count();
    }

    private static final Map<Integer, String> ONE_PER_TASK_MANAGER =
            Map.of(0, "tm-a", 1, "tm-b", 2, "tm-c", 3, "tm-d");

    @Test
    void scaleOutGivesTheNewSubtaskItsFairShareFromTheMostLoaded() {
        int[] owners = initial(16, 3); // 6, 5, 5 vnodes
        List<VnodeMove> moves = VnodeMovePolicy.scaleOut(owners, List.of(3), 7);

        assertThat(moves).hasSize(4).allSatisfy(m -> assertThat(m.toSubtask()).isEqualTo(3));
        assertThat(moves).extracting(VnodeMove::vnode).doesNotHaveDuplicates();
        int[] after = apply(owners, moves);
        assertThat(IntStream.range(0, 4).mapToLong(s -> load(after, s)).toArray())
                .containsExactly(4, 4, 4, 4);
    }

    @Test
    void scaleOutIsRepeatableForASeedAndVariesWithIt() {
        int[] owners = initial(16, 3);
        assertThat(VnodeMovePolicy.scaleOut(owners, List.of(3), 1))
                .isEqualTo(VnodeMovePolicy.scaleOut(owners, List.of(3), 1));
        List<List<VnodeMove>> bySeed =
                IntStream.range(0, 10)
                        .mapToObj(seed -> VnodeMovePolicy.scaleOut(owners, List.of(3), seed))
                        .distinct()
                        .toList();
        assertThat(bySeed).hasSizeGreaterThan(1);
    }

    @Test
    void scaleOutRejectsASubtaskThatIsAlreadyActive() {
        assertThatThrownBy(() -> VnodeMovePolicy.scaleOut(initial(16, 4), List.of(2), 1))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void rebalanceMovesHalfTheVnodesOfKSubtasksToOtherTaskManagers() {
        int[] owners = initial(16, 4); // 4 each
        for (long seed = 0; seed < 20; seed++) {
            List<VnodeMove> moves =
                    VnodeMovePolicy.rebalance(owners, ONE_PER_TASK_MANAGER, 2, 0.5, seed);

            assertThat(moves).hasSize(4);
            assertThat(moves).extracting(VnodeMove::vnode).doesNotHaveDuplicates();
            List<Integer> origins = moves.stream().map(VnodeMove::fromSubtask).distinct().toList();
            assertThat(origins).hasSize(2);
            for (int origin : origins) {
                assertThat(moves.stream().filter(m -> m.fromSubtask() == origin)).hasSize(2);
            }
            for (VnodeMove move : moves) {
                assertThat(origins).doesNotContain(move.toSubtask());
                assertThat(ONE_PER_TASK_MANAGER.get(move.toSubtask()))
                        .isNotEqualTo(ONE_PER_TASK_MANAGER.get(move.fromSubtask()));
            }
            // the least loaded targets get them: both targets end with 6
            int[] after = apply(owners, moves);
            assertThat(IntStream.range(0, 4).mapToLong(s -> load(after, s)).sorted().toArray())
                    .containsExactly(2, 2, 6, 6);
        }
    }

    @Test
    void rebalanceTakesTheMostLoadedSubtasksFirst() {
        int[] owners = {0, 0, 0, 0, 0, 0, 1, 1, 2, 2, 3, 3};
        List<VnodeMove> moves = VnodeMovePolicy.rebalance(owners, ONE_PER_TASK_MANAGER, 1, 0.5, 3);

        assertThat(moves).hasSize(3).allSatisfy(m -> assertThat(m.fromSubtask()).isZero());
        int[] after = apply(owners, moves);
        assertThat(IntStream.range(0, 4).mapToLong(s -> load(after, s)).toArray())
                .containsExactly(3, 3, 3, 3);
    }

    @Test
    void rebalanceOfAWholeSubtaskEmptiesIt() {
        int[] owners = initial(16, 4);
        List<VnodeMove> moves = VnodeMovePolicy.rebalance(owners, ONE_PER_TASK_MANAGER, 1, 1.0, 5);

        int origin = moves.get(0).fromSubtask();
        assertThat(load(apply(owners, moves), origin)).isZero();
        assertThat(moves).hasSize(4);
    }

    @Test
    void rebalanceNeverMovesWithinATaskManager() {
        // subtasks 0 and 1 share a TaskManager; 0 may only give to 2 and 3
        Map<Integer, String> shared = Map.of(0, "tm-a", 1, "tm-a", 2, "tm-b", 3, "tm-c");
        int[] owners = {0, 0, 0, 0, 0, 0, 1, 1, 2, 2, 3, 3};
        List<VnodeMove> moves = VnodeMovePolicy.rebalance(owners, shared, 1, 0.5, 11);

        assertThat(moves).extracting(VnodeMove::toSubtask).containsOnly(2, 3);
    }

    @Test
    void rebalanceFailsWhenNoOtherTaskManagerExists() {
        Map<Integer, String> single = Map.of(0, "tm", 1, "tm");
        assertThatThrownBy(() -> VnodeMovePolicy.rebalance(initial(8, 2), single, 1, 0.5, 1))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("another TaskManager");
    }
}
