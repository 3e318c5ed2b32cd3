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

class KeyGroupSpanTest {

    @Test
    void sizeAndContainsAreInclusive() {
        KeyGroupSpan span = new KeyGroupSpan(8, 15);

        assertThat(span.size()).isEqualTo(8);
        assertThat(span.contains(8)).isTrue();
        assertThat(span.contains(15)).isTrue();
        assertThat(span.contains(7)).isFalse();
        assertThat(span.contains(16)).isFalse();
    }

    @Test
    void singleKeyGroupSpan() {
        KeyGroupSpan span = new KeyGroupSpan(0, 0);

        assertThat(span.size()).isEqualTo(1);
        assertThat(span.contains(0)).isTrue();
        assertThat(span.contains(1)).isFalse();
    }

    @Test
    void toStringIsCompact() {
        assertThat(new KeyGroupSpan(0, 255)).hasToString("[0-255]");
    }

    @Test
    void rejectsNegativeStart() {
        assertThatThrownBy(() -> new KeyGroupSpan(-1, 3))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("startKeyGroup: -1 (expected: >= 0)");
    }

    @Test
    void rejectsEndBeforeStart() {
        assertThatThrownBy(() -> new KeyGroupSpan(5, 4))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("endKeyGroup: 4 (expected: >= startKeyGroup=5)");
    }
}
