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

package io.rhino.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.rhino.core.routing.KeyGroups;
import io.rhino.core.routing.VnodeLayout;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;

/**
 * Rhino routes by the same key groups Flink's state backends use, so the state of a key is where
 * Flink's backend expects it.
 */
class KeyGroupCompatibilityTest {

    @Property
    void rhinoKeyGroupsEqualFlinks(
            @ForAll long key, @ForAll @IntRange(min = 1, max = 1 << 15) int maxParallelism) {
        assertThat(KeyGroups.assignToKeyGroup(key, maxParallelism))
                .isEqualTo(KeyGroupRangeAssignment.assignToKeyGroup(key, maxParallelism));
    }

    @Property
    void stringKeysToo(
            @ForAll String key, @ForAll @IntRange(min = 1, max = 1 << 15) int maxParallelism) {
        assertThat(KeyGroups.assignToKeyGroup(key, maxParallelism))
                .isEqualTo(KeyGroupRangeAssignment.assignToKeyGroup(key, maxParallelism));
    }

    @Property
    void everyKeyGroupOfAVnodeIsInsideItsFlinkRange(
            @ForAll @IntRange(min = 1, max = 4096) int numKeyGroups,
            @ForAll @IntRange(min = 1, max = 256) int requestedVnodes,
            @ForAll long key) {
        int numVnodes = Math.min(requestedVnodes, numKeyGroups);
        VnodeLayout layout = new VnodeLayout(numKeyGroups, numVnodes);
        int keyGroup = KeyGroupRangeAssignment.assignToKeyGroup(key, numKeyGroups);
        assertThat(layout.keyGroupsOf(layout.vnodeOfKey(key)).contains(keyGroup)).isTrue();
    }
}
