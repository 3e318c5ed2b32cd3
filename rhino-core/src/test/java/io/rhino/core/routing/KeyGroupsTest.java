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

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Known values were computed with Flink 2.2.1's {@code MathUtils.murmurHash} and {@code
 * KeyGroupRangeAssignment.assignToKeyGroup}; they pin our copy of the algorithm to Flink's.
 */
class KeyGroupsTest {

    @ParameterizedTest
    @CsvSource({
        "0, 593689054",
        "1, 68075478",
        "-1, 1982413648",
        "42, 1134849565",
        "123456789, 1088346449",
        "2147483647, 1653689534",
        "-2147483648, 1718298732",
    })
    void murmurHashMatchesFlink(int code, int expected) {
        assertThat(KeyGroups.murmurHash(code)).isEqualTo(expected);
    }

    @ParameterizedTest
    @CsvSource({
        "user-1, 128, 121",
        "user-1, 1000, 673",
        "user-1, 32768, 13945",
        "hello, 128, 35",
        "hello, 1000, 179",
        "hello, 32768, 31395",
        "auction-1000, 128, 29",
        "auction-1000, 1000, 277",
        "auction-1000, 32768, 9501",
    })
    void stringKeysMatchFlink(String key, int maxParallelism, int expectedKeyGroup) {
        assertThat(KeyGroups.assignToKeyGroup(key, maxParallelism)).isEqualTo(expectedKeyGroup);
    }

    @Test
    void numericKeysMatchFlink() {
        assertThat(KeyGroups.assignToKeyGroup(42, 128)).isEqualTo(29);
        assertThat(KeyGroups.assignToKeyGroup(42, 1000)).isEqualTo(565);
        assertThat(KeyGroups.assignToKeyGroup(42, 32768)).isEqualTo(28189);
        assertThat(KeyGroups.assignToKeyGroup(7L, 128)).isEqualTo(113);
        assertThat(KeyGroups.assignToKeyGroup(7L, 1000)).isEqualTo(321);
        assertThat(KeyGroups.assignToKeyGroup(7L, 32768)).isEqualTo(4337);
    }

    @Test
    void assignUsesTheKeysHashCode() {
        assertThat(KeyGroups.assignToKeyGroup("user-1", 1000))
                .isEqualTo(KeyGroups.computeKeyGroupForKeyHash("user-1".hashCode(), 1000));
    }

    @Test
    void singleKeyGroupTakesEveryKey() {
        assertThat(KeyGroups.assignToKeyGroup("anything", 1)).isZero();
        assertThat(KeyGroups.computeKeyGroupForKeyHash(Integer.MIN_VALUE, 1)).isZero();
    }

    @Test
    void rejectsNullKey() {
        assertThatThrownBy(() -> KeyGroups.assignToKeyGroup(null, 128))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("key: null");
    }

    @Test
    void rejectsMaxParallelismOutOfRange() {
        assertThatThrownBy(() -> KeyGroups.computeKeyGroupForKeyHash(1, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxParallelism: 0 (expected: 1..32768)");
        assertThatThrownBy(() -> KeyGroups.assignToKeyGroup("k", 32769))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxParallelism: 32769 (expected: 1..32768)");
    }

    @Test
    void boundsAreFlinksLimits() {
        assertThat(KeyGroups.UPPER_BOUND_MAX_PARALLELISM).isEqualTo(32768);
        assertThat(KeyGroups.DEFAULT_MAX_PARALLELISM).isEqualTo(32768);
    }
}
