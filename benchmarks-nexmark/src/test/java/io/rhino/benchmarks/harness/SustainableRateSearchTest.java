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
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalDouble;
import java.util.function.DoublePredicate;
import org.junit.jupiter.api.Test;

class SustainableRateSearchTest {

    /** Runs the search against a system that sustains exactly the rates {@code capacity} allows. */
    private static List<Double> probe(SustainableRateSearch search, DoublePredicate capacity) {
        List<Double> probed = new ArrayList<>();
        for (OptionalDouble rate = search.nextRate(); rate.isPresent(); rate = search.nextRate()) {
            probed.add(rate.getAsDouble());
            search.record(capacity.test(rate.getAsDouble()));
        }
        return probed;
    }

    @Test
    void doublesUntilARateFailsThenBisectsToThePrecision() {
        SustainableRateSearch search = new SustainableRateSearch(1, 0.1, 20);
        List<Double> probed = probe(search, rate -> rate <= 5.3);
        assertThat(probed).containsExactly(1.0, 2.0, 4.0, 8.0, 6.0, 5.0, 5.5);
        assertThat(search.highestSustained()).hasValue(5.0);
        assertThat(search.done()).isTrue();
    }

    @Test
    void halvesFromAStartThatFails() {
        SustainableRateSearch search = new SustainableRateSearch(8, 0.1, 20);
        List<Double> probed = probe(search, rate -> rate <= 1.5);
        assertThat(probed).containsExactly(8.0, 4.0, 2.0, 1.0, 1.5, 1.75, 1.625);
        assertThat(search.highestSustained()).hasValue(1.5);
    }

    @Test
    void stopsAtTheStepBudgetAndReportsNothingIfNothingWasSustained() {
        SustainableRateSearch search = new SustainableRateSearch(1, 0.1, 3);
        assertThat(probe(search, rate -> false)).containsExactly(1.0, 0.5, 0.25);
        assertThat(search.highestSustained()).isEmpty();
        assertThatThrownBy(() -> search.record(true)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aStepIsSustainedWhenItsMedianP99StaysUnderTheBound() {
        // one checkpoint spike passes
        assertThat(SustainableRateSearch.sustained(List.of(300L, 280L, 2900L, 310L, 290L), 2000))
                .isTrue();
        // a growing backlog does not
        assertThat(SustainableRateSearch.sustained(List.of(800L, 1500L, 2200L, 2900L, 3600L), 2000))
                .isFalse();
        assertThat(SustainableRateSearch.sustained(List.of(), 2000)).as("no results").isFalse();
        assertThat(SustainableRateSearch.median(List.of(5L, 1L, 3L, 2L))).hasValue(2);
    }
}
