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

package io.rhino.flink.state;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.junit.jupiter.api.Test;

class ClaimedKeyGroupsTest {

    private static final int KEY_GROUPS = 32_768;

    @Test
    void handlesOfOneCheckpointClaimDistinctRanges() {
        for (int parallelism = 1; parallelism <= 200; parallelism++) {
            Set<KeyGroupRange> claimed = new HashSet<>();
            for (int subtask = 0; subtask < parallelism; subtask++) {
                claimed.add(ClaimedKeyGroups.of(subtask, parallelism, KEY_GROUPS));
            }
            assertThat(claimed).as("ranges at parallelism %d", parallelism).hasSize(parallelism);
        }
    }

    @Test
    void everyHandleReachesEverySubtaskOfARestoreAtAnotherParallelism() {
        for (int before = 1; before <= 181; before += 6) {
            for (int after = 1; after <= 181; after += 5) {
                for (int subtask = 0; subtask < before; subtask++) {
                    KeyGroupRange claimed = ClaimedKeyGroups.of(subtask, before, KEY_GROUPS);
                    for (int restoring : new int[] {0, after - 1}) {
                        KeyGroupRange range =
                                KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(
                                        KEY_GROUPS, after, restoring);
                        assertThat(claimed.getIntersection(range).getNumberOfKeyGroups())
                                .as(
                                        "handle %d of %d meets subtask %d of %d",
                                        subtask, before, restoring, after)
                                .isPositive();
                    }
                }
            }
        }
    }

    @Test
    void aSingleSubtaskClaimsEveryKeyGroup() {
        assertThat(ClaimedKeyGroups.of(0, 1, KEY_GROUPS))
                .isEqualTo(new KeyGroupRange(0, KEY_GROUPS - 1));
    }
}
