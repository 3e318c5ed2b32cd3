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

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

class KeyGroupsPropertiesTest {

    @Property
    void keyGroupIsAlwaysInRange(
            @ForAll int keyHash, @ForAll @IntRange(min = 1, max = 32768) int maxParallelism) {
        assertThat(KeyGroups.computeKeyGroupForKeyHash(keyHash, maxParallelism))
                .isBetween(0, maxParallelism - 1);
    }

    @Property
    void keyGroupOfAnyKeyIsInRange(
            @ForAll String key, @ForAll @IntRange(min = 1, max = 32768) int maxParallelism) {
        assertThat(KeyGroups.assignToKeyGroup(key, maxParallelism))
                .isBetween(0, maxParallelism - 1)
                .isEqualTo(KeyGroups.computeKeyGroupForKeyHash(key.hashCode(), maxParallelism));
    }

    @Property
    void murmurHashIsNeverNegative(@ForAll int code) {
        assertThat(KeyGroups.murmurHash(code)).isNotNegative();
    }
}
