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

import io.rhino.benchmarks.cli.Args;
import java.time.Duration;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.state.rocksdb.RocksDBConfigurableOptions;
import org.junit.jupiter.api.Test;

/** {@code --flink-conf} passes Flink options to both systems, over the scenarios' own. */
class FlinkConfFlagTest {

    @Test
    void everyGivenOptionReachesTheConfigurationOverTheScenariosOwn() {
        Args args = NexmarkScenarios.declare();
        args.parse(
                new String[] {
                    "--flink-conf",
                    "state.backend.rocksdb.compaction.style=UNIVERSAL",
                    "--flink-conf=state.backend.rocksdb.thread.num = 8"
                });
        ClusterShape shape =
                new ClusterShape(
                        4,
                        2,
                        MemorySize.parse("256m"),
                        NexmarkScenarios.flinkOptions(args.getAll("flink-conf")));
        Configuration base = new Configuration();
        base.set(RocksDBConfigurableOptions.MAX_BACKGROUND_THREADS, 4);

        Configuration config = shape.withFlinkOptions(base);

        assertThat(config.get(RocksDBConfigurableOptions.COMPACTION_STYLE))
                .hasToString("UNIVERSAL");
        assertThat(config.get(RocksDBConfigurableOptions.MAX_BACKGROUND_THREADS)).isEqualTo(8);
        assertThat(base.get(RocksDBConfigurableOptions.MAX_BACKGROUND_THREADS)).isEqualTo(4);
    }

    @Test
    void withoutTheFlagNothingChanges() {
        Args args = NexmarkScenarios.declare();
        args.parse(new String[0]);
        assertThat(NexmarkScenarios.flinkOptions(args.getAll("flink-conf"))).isEmpty();
        assertThat(new ClusterShape(1, 1, MemorySize.parse("64m")).flinkOptions())
                .isEqualTo(Map.of());
    }

    @Test
    void aValueWithoutKeyIsRefusedWithAnExample() {
        assertThatThrownBy(() -> NexmarkScenarios.flinkOptions(java.util.List.of("UNIVERSAL")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("key=value")
                .hasMessageContaining("'UNIVERSAL'");
    }

    @Test
    void aLargeFillWithFrequentCheckpointsOrLittleMemoryGetsAdvice() {
        MemorySize twentyGb = MemorySize.parse("20g");
        MemorySize twoGb = MemorySize.parse("2g");
        assertThat(
                        NexmarkScenarios.largeStateAdvice(
                                twentyGb.getBytes(), Duration.ofSeconds(5), twoGb))
                .hasValueSatisfying(
                        advice ->
                                assertThat(advice)
                                        .contains(
                                                "20.0 GB",
                                                "every 5 s",
                                                "--checkpoint-interval 60s --managed-memory 2g"));
        assertThat(
                        NexmarkScenarios.largeStateAdvice(
                                twentyGb.getBytes(),
                                Duration.ofSeconds(60),
                                MemorySize.parse("256m")))
                .hasValueSatisfying(advice -> assertThat(advice).contains("256 MB"));
        assertThat(
                        NexmarkScenarios.largeStateAdvice(
                                twentyGb.getBytes(), Duration.ofSeconds(60), twoGb))
                .isEmpty();
        assertThat(
                        NexmarkScenarios.largeStateAdvice(
                                MemorySize.parse("1g").getBytes(),
                                Duration.ofSeconds(5),
                                MemorySize.parse("256m")))
                .isEmpty();
    }
}
