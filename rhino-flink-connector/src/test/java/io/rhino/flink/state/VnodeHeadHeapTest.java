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

import java.util.Random;
import org.apache.flink.runtime.state.PriorityComparable;
import org.junit.jupiter.api.Test;

/** Seeded random head changes against a linear scan of every vnode's head. */
class VnodeHeadHeapTest {

    private record Head(long priority) implements PriorityComparable<Head> {
        @Override
        public int comparePriorityTo(Head other) {
            return Long.compare(priority, other.priority);
        }
    }

    @Test
    void theTopIsAlwaysTheVnodeWithTheSmallestHead() {
        int vnodes = 37;
        Random random = new Random(20261125);
        VnodeHeadHeap<Head> heap = new VnodeHeadHeap<>(vnodes);
        Head[] heads = new Head[vnodes];
        for (int step = 0; step < 200_000; step++) {
            int vnode = random.nextInt(vnodes);
            Head head = random.nextInt(4) == 0 ? null : new Head(random.nextInt(1_000));
            heads[vnode] = head;
            heap.update(vnode, head);

            Head smallest = null;
            for (Head h : heads) {
                if (h != null && (smallest == null || h.priority() < smallest.priority())) {
                    smallest = h;
                }
            }
            if (smallest == null) {
                assertThat(heap.top()).isEqualTo(-1);
                assertThat(heap.isEmpty()).isTrue();
            } else {
                assertThat(heap.isEmpty()).isFalse();
                assertThat(heap.head(heap.top()).priority())
                        .as("step %d", step)
                        .isEqualTo(smallest.priority());
            }
        }
    }
}
