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

package io.rhino.benchmarks.harness;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class MarkerLabelLayoutTest {

    // a 145 s run drawn 880 pixels wide: about 6 pixels per second
    private final MarkerLabelLayout layout = new MarkerLabelLayout(145, 880);

    @Test
    void closeMarkersWithDifferentLabelsGoOnDifferentRows() {
        assertThat(layout.place("rebalance (rhino)", 21)).isZero();
        assertThat(layout.place("rebalance (flink)", 26)).isEqualTo(1);
        assertThat(layout.place("scale-out", 30)).isEqualTo(2);
    }

    @Test
    void markersFarApartShareTheTopRow() {
        assertThat(layout.place("scale-out", 20)).isZero();
        assertThat(layout.place("rebalance", 60)).isZero();
        assertThat(layout.place("rebalance", 120)).isZero();
    }

    @Test
    void aLabelRepeatedNearbyIsDrawnOnce() {
        assertThat(layout.place("rebalance", 30)).isZero();
        assertThat(layout.place("rebalance", 31)).isEqualTo(-1);
        assertThat(layout.place("rebalance", 33)).isEqualTo(-1);
    }

    @Test
    void labelsBeyondTheLastRowAreLeftOut() {
        for (int i = 0; i < MarkerLabelLayout.MAX_ROWS; i++) {
            assertThat(layout.place("operator " + i + " rebalanced", 40 + i)).isEqualTo(i);
        }
        assertThat(layout.place("one more operator", 44)).isEqualTo(-1);
        assertThat(layout.place("far right", 140)).isZero();
    }
}
