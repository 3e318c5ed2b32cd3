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

package io.rhino.benchmarks.nexmark.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.rhino.benchmarks.nexmark.NexmarkTestClusters;
import io.rhino.benchmarks.nexmark.generator.EventKind;
import io.rhino.benchmarks.nexmark.generator.GeneratorConfig;
import io.rhino.benchmarks.nexmark.generator.NexmarkEvents;
import io.rhino.benchmarks.nexmark.generator.RateSchedule;
import io.rhino.benchmarks.nexmark.queries.Keying;
import io.rhino.benchmarks.nexmark.queries.Nbq8;
import io.rhino.benchmarks.nexmark.queries.NexmarkStreams;
import io.rhino.benchmarks.nexmark.queries.Variant;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * End to end through a real (embedded) Kafka broker: generated events written by the producer
 * threads and read back by Flink's Kafka source give NBQ8 (Rhino) exactly the answer it gives over
 * the same events from memory.
 */
class KafkaNbq8Test {

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = NexmarkTestClusters.twoTaskManagers();

    private static final long EVENTS = 10_000;
    private static final Duration WINDOW = Duration.ofSeconds(10);

    /**
     * Larger than the input's event-time span (100 s): several producer threads interleave in a
     * partition, and no record may be late, or the Kafka run would drop what memory keeps.
     */
    private static final Duration OUT_OF_ORDERNESS = Duration.ofMinutes(5);

    @TempDir Path dir;

    @Test
    void nbq8FromKafkaEqualsNbq8FromMemory() throws Exception {
        GeneratorConfig config = GeneratorConfig.paper(77, 100);
        NexmarkTopics topics = NexmarkTopics.withPrefix("test-");
        Keying keying = new Keying(Variant.RHINO, 3, 6);

        List<String> fromKafka;
        try (EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"))) {
            topics.create(kafka.bootstrapServers(), 3);
            try (NexmarkKafkaProducer producer =
                    new NexmarkKafkaProducer(
                            new NexmarkKafkaProducer.Settings(
                                    kafka.bootstrapServers(),
                                    topics,
                                    3,
                                    2,
                                    EVENTS,
                                    RateSchedule.max(),
                                    config))) {
                producer.start().await(Duration.ofMinutes(1));
                assertThat(producer.produced(EventKind.PERSON)).isEqualTo(200);
                assertThat(producer.produced(EventKind.AUCTION)).isEqualTo(600);
                assertThat(producer.produced(EventKind.BID)).isEqualTo(9_200);
                assertThat(producer.producedBytes())
                        .isEqualTo(200L * 206 + 600L * 269 + 9_200L * 32);
            }

            StreamExecutionEnvironment env = NexmarkTestClusters.environment(Variant.RHINO);
            NexmarkStreams in =
                    NexmarkKafkaSources.streams(
                            env,
                            new NexmarkKafkaSources.Settings(
                                    kafka.bootstrapServers(),
                                    topics,
                                    "nbq8-test",
                                    true,
                                    2,
                                    OUT_OF_ORDERNESS,
                                    Duration.ZERO));
            fromKafka = NexmarkTestClusters.collect(Nbq8.build(in, keying, WINDOW));
        }

        StreamExecutionEnvironment env = NexmarkTestClusters.environment(Variant.RHINO);
        NexmarkStreams in =
                NexmarkStreams.fromEvents(
                        env, NexmarkEvents.generate(config, EVENTS), OUT_OF_ORDERNESS);
        List<String> fromMemory = NexmarkTestClusters.collect(Nbq8.build(in, keying, WINDOW));

        assertThat(fromMemory).hasSizeGreaterThan(50);
        assertThat(fromKafka.stream().sorted().toList())
                .as("NBQ8 from Kafka vs from memory")
                .isEqualTo(fromMemory.stream().sorted().toList());
    }
}
