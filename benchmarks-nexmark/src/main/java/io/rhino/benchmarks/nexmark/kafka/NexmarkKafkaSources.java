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

import io.rhino.benchmarks.nexmark.queries.EventTimeWatermarks;
import io.rhino.benchmarks.nexmark.queries.NexmarkStreams;
import java.time.Duration;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.KafkaSourceBuilder;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The three NEXMark streams read from Kafka with Flink's Kafka source, from the earliest offsets.
 * Watermarks are generated per partition inside the source (event time = creation timestamp,
 * bounded out-of-orderness), and a partition that stays silent for {@code idleness} stops holding
 * the watermark back.
 */
public final class NexmarkKafkaSources {

    /**
     * Where and how to read.
     *
     * @param bounded read up to the offsets that are latest when the job starts, then finish
     * @param parallelism parallelism of each of the three sources
     * @param idleness silence after which a partition is idle; zero for never
     */
    public record Settings(
            String bootstrapServers,
            NexmarkTopics topics,
            String groupId,
            boolean bounded,
            int parallelism,
            Duration outOfOrderness,
            Duration idleness) {}

    private NexmarkKafkaSources() {}

    public static NexmarkStreams streams(StreamExecutionEnvironment env, Settings settings) {
        return new NexmarkStreams(
                read(
                        env,
                        settings,
                        settings.topics().person(),
                        new NexmarkDeserializers.PersonSchema(),
                        EventTimeWatermarks.persons(settings.outOfOrderness())),
                read(
                        env,
                        settings,
                        settings.topics().auction(),
                        new NexmarkDeserializers.AuctionSchema(),
                        EventTimeWatermarks.auctions(settings.outOfOrderness())),
                read(
                        env,
                        settings,
                        settings.topics().bid(),
                        new NexmarkDeserializers.BidSchema(),
                        EventTimeWatermarks.bids(settings.outOfOrderness())));
    }

    private static <T> DataStream<T> read(
            StreamExecutionEnvironment env,
            Settings settings,
            String topic,
            DeserializationSchema<T> schema,
            WatermarkStrategy<T> watermarks) {
        KafkaSourceBuilder<T> builder =
                KafkaSource.<T>builder()
                        .setBootstrapServers(settings.bootstrapServers())
                        .setTopics(topic)
                        .setGroupId(settings.groupId())
                        .setStartingOffsets(OffsetsInitializer.earliest())
                        .setValueOnlyDeserializer(schema);
        if (settings.bounded()) {
            builder.setBounded(OffsetsInitializer.latest());
        }
        WatermarkStrategy<T> strategy =
                settings.idleness().isZero()
                        ? watermarks
                        : watermarks.withIdleness(settings.idleness());
        String name = "kafka-" + topic;
        return env.fromSource(builder.build(), strategy, name)
                .uid(name)
                .setParallelism(settings.parallelism());
    }
}
