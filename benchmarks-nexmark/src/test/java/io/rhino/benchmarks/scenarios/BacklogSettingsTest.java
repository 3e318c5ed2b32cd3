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

import io.rhino.benchmarks.nexmark.generator.GeneratorConfig;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** What a backlog makes the generator write, and what it cannot be combined with. */
class BacklogSettingsTest {

    @Test
    void nbq8sBacklogHoldsOnlyThePersonsAndAuctionsItReads() {
        GeneratorConfig backlog = settings("nbq8", 0, 1_000).workload().generator();

        assertThat(backlog.bids()).isZero();
        assertThat(backlog.persons()).isEqualTo(1);
        assertThat(backlog.auctions()).isEqualTo(3);
    }

    @Test
    void queriesThatReadBidsKeepThePapersMix() {
        for (String query : new String[] {"nbq5", "nbqx"}) {
            assertThat(settings(query, 0, 1_000).workload().generator())
                    .isEqualTo(ScenarioSettings.generator(42));
        }
    }

    @Test
    void aRunWithoutABacklogKeepsThePapersMix() {
        assertThat(settings("nbq8", 0, 0).workload().generator())
                .isEqualTo(ScenarioSettings.generator(42));
    }

    @Test
    void aBacklogAndAStateFillExcludeEachOther() {
        assertThatThrownBy(() -> settings("nbq8", 1_000_000_000L, 1_000).workload())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("a backlog and a state fill exclude each other");
    }

    private static ScenarioSettings settings(String query, long stateBytes, long backlog) {
        return new ScenarioSettings(
                query,
                "fixed:0.01",
                Duration.ofSeconds(6),
                Duration.ofSeconds(2),
                1,
                Duration.ofSeconds(2),
                stateBytes,
                4,
                16,
                2,
                1,
                2,
                Duration.ofHours(12),
                42,
                backlog);
    }
}
