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

package io.rhino.handover.replication;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ReplicaGroupsTest {

    @Test
    void everyChainHoldsDistinctOtherTaskManagersAndCopiesSpreadEvenly() {
        Random random = new Random(20261124);
        for (int round = 0; round < 300; round++) {
            int taskManagers = 2 + random.nextInt(6);
            int subtasks = 1 + random.nextInt(24);
            int factor = 1 + random.nextInt(4);
            Map<Integer, String> where = new HashMap<>();
            for (int s = 0; s < subtasks; s++) {
                where.put(s, "tm-" + (s % taskManagers));
            }
            Map<Integer, List<String>> chains = ReplicaGroups.assign(where, Map.of(), factor);

            Map<String, Integer> copies = new HashMap<>();
            for (int s = 0; s < subtasks; s++) {
                List<String> chain = chains.get(s);
                long distinct = where.values().stream().distinct().count();
                assertThat(chain).hasSize((int) Math.min(factor - 1, distinct - 1));
                assertThat(chain).doesNotHaveDuplicates().doesNotContain(where.get(s));
                chain.forEach(tm -> copies.merge(tm, 1, Integer::sum));
            }
            if (!copies.isEmpty()) {
                int max = copies.values().stream().max(Integer::compare).orElseThrow();
                int min =
                        copies.size() < taskManagers
                                ? 0
                                : copies.values().stream().min(Integer::compare).orElseThrow();
                assertThat(max - min)
                        .as("round %d: copies per TaskManager %s", round, copies)
                        .isLessThanOrEqualTo(1 + factor);
            }
            assertThat(ReplicaGroups.assign(where, Map.of(), factor)).isEqualTo(chains);
        }
    }

    @Test
    void heavySubtasksGoToTheLightestTaskManagers() {
        Map<Integer, String> where = Map.of(0, "a", 1, "b", 2, "c");
        Map<Integer, List<String>> chains =
                ReplicaGroups.assign(where, Map.of(0, 100L, 1, 90L, 2, 10L), 2);
        // 0 (heaviest) copies to b (a tie with c, by name); 1 to a (a and c empty, by name);
        // 2, on c, to a (90 bytes) rather than b (100); then c holds nothing and a 100 bytes,
        // so 1's copy (90 bytes) moves from a to c
        assertThat(chains)
                .containsEntry(0, List.of("b"))
                .containsEntry(1, List.of("c"))
                .containsEntry(2, List.of("a"));
    }

    @Test
    void anExcludedTaskManagerHoldsNoCopyButItsSubtasksStillReplicate() {
        Map<Integer, String> where = Map.of(0, "a", 1, "b", 2, "c", 3, "c");
        Map<Integer, List<String>> chains =
                ReplicaGroups.assign(where, Map.of(), 3, java.util.Set.of("c"));
        assertThat(chains.get(0)).containsExactly("b");
        assertThat(chains.get(1)).containsExactly("a");
        assertThat(chains.get(2)).containsExactlyInAnyOrder("a", "b");
        assertThat(chains.get(3)).containsExactlyInAnyOrder("a", "b");
    }

    @Test
    void everyTaskManagerHoldsACopyWhenThreeEqualSubtasksReplicateOnce() {
        Map<Integer, String> where = Map.of(0, "a", 1, "b", 2, "c");
        Map<Integer, List<String>> chains =
                ReplicaGroups.assign(where, Map.of(0, 100L, 1, 101L, 2, 99L), 2);
        assertThat(chains.values().stream().map(chain -> chain.get(0)))
                .containsExactlyInAnyOrder("a", "b", "c");
    }
}
