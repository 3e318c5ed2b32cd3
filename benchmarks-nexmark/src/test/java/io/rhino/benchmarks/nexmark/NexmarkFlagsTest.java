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

package io.rhino.benchmarks.nexmark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rhino.benchmarks.cli.Args;
import io.rhino.benchmarks.nexmark.generator.EventTimestamps;
import io.rhino.benchmarks.nexmark.generator.GeneratorConfig;
import io.rhino.benchmarks.nexmark.generator.KeyDistribution;
import io.rhino.benchmarks.nexmark.model.RecordSizes;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The benchmark's flags parse into the generator's and the queries' settings. */
class NexmarkFlagsTest {

    @Test
    void defaultsAreThePapersWorkload() {
        Args args = NexmarkBenchmark.declare();
        assertThat(args.parse(new String[0])).isTrue();
        GeneratorConfig config = NexmarkFlags.generator(args);
        assertThat(config.persons()).isEqualTo(1);
        assertThat(config.auctions()).isEqualTo(3);
        assertThat(config.bids()).isEqualTo(46);
        assertThat(config.keys()).isEqualTo(KeyDistribution.UNIFORM);
        assertThat(config.sizes()).isEqualTo(RecordSizes.PAPER);
        assertThat(config.timestamps()).isInstanceOf(EventTimestamps.WallClock.class);
        assertThat(NexmarkFlags.durations(args, "nbqx-gaps"))
                .containsExactly(
                        Duration.ofMinutes(30),
                        Duration.ofMinutes(60),
                        Duration.ofMinutes(90),
                        Duration.ofMinutes(120));
        assertThat(NexmarkFlags.duration(args, "nbq8-window")).isEqualTo(Duration.ofHours(12));
        assertThat(NexmarkFlags.duration(args, "nbq5-size")).isEqualTo(Duration.ofSeconds(60));
        assertThat(NexmarkFlags.rate(args.get("rate")).bytesPerSecond(0)).isEqualTo(1e6);
    }

    @Test
    void skewRatesAndTimestampsAreSettable() {
        Args args = NexmarkBenchmark.declare();
        args.parse(
                new String[] {
                    "--keys", "zipf:1.3",
                    "--zipf-keys", "500",
                    "--proportions", "2:5:43",
                    "--timestamps", "synthetic:1000",
                    "--sizes", "300:300:40"
                });
        GeneratorConfig config = NexmarkFlags.generator(args);
        assertThat(config.keys()).isEqualTo(KeyDistribution.zipf(1.3, 500));
        assertThat(List.of(config.persons(), config.auctions(), config.bids()))
                .containsExactly(2, 5, 43);
        assertThat(config.timestamps().timestampOf(1_000))
                .isEqualTo(GeneratorConfig.SYNTHETIC_BASE_MILLIS + 1_000);
        assertThat(config.sizes()).isEqualTo(new RecordSizes(300, 300, 40));
        assertThat(NexmarkFlags.rate("max").bytesPerSecond(123)).isInfinite();
        assertThat(NexmarkFlags.rate("varying").bytesPerSecond(15_000_000_000L)).isEqualTo(1.5e6);
        assertThatThrownBy(() -> NexmarkFlags.keys("pareto", 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RecordSizes(10, 269, 32))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
