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

import io.rhino.benchmarks.cli.Args;
import io.rhino.benchmarks.nexmark.kafka.EmbeddedKafka;
import io.rhino.benchmarks.nexmark.kafka.NexmarkTopics;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The generator on its own, as the compose file runs it, against a real broker. */
class NexmarkGeneratorMainTest {

    @TempDir Path dir;

    @Test
    void producesTheAskedEventsIntoTopicsItCreates() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"))) {
            Path status = dir.resolve("status");
            Args args = NexmarkGeneratorMain.declare();
            assertThat(
                            args.parse(
                                    new String[] {
                                        "--bootstrap-servers", kafka.bootstrapServers(),
                                        "--topic-prefix", "gen-",
                                        "--partitions", "2",
                                        "--producer-threads", "2",
                                        "--events", "5000",
                                        "--rate", "max",
                                        "--status-file", status.toString()
                                    }))
                    .isTrue();

            assertThat(NexmarkGeneratorMain.run(args, new CountDownLatch(1))).isTrue();

            // 5,000 events are 100 cycles of 1:3:46
            assertThat(Files.readString(status).trim())
                    .isEqualTo(
                            "persons=100 auctions=300 bids=4600 bytes=%d",
                            100 * 206 + 300 * 269 + 4600 * 32);
            Map<String, Long> records = recordsPerTopic(kafka.bootstrapServers());
            NexmarkTopics topics = NexmarkTopics.withPrefix("gen-");
            assertThat(records)
                    .containsEntry(topics.person(), 100L)
                    .containsEntry(topics.auction(), 300L)
                    .containsEntry(topics.bid(), 4600L);
        }
    }

    private static Map<String, Long> recordsPerTopic(String bootstrap) throws Exception {
        try (Admin admin =
                Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            List<String> names = NexmarkTopics.withPrefix("gen-").all();
            Map<String, TopicDescription> described =
                    admin.describeTopics(names).allTopicNames().get();
            Map<TopicPartition, OffsetSpec> latest =
                    described.values().stream()
                            .flatMap(
                                    d ->
                                            d.partitions().stream()
                                                    .map(
                                                            p ->
                                                                    new TopicPartition(
                                                                            d.name(),
                                                                            p.partition())))
                            .collect(Collectors.toMap(p -> p, p -> OffsetSpec.latest()));
            assertThat(latest).hasSize(6);
            return admin.listOffsets(latest).all().get().entrySet().stream()
                    .collect(
                            Collectors.groupingBy(
                                    e -> e.getKey().topic(),
                                    Collectors.summingLong(e -> e.getValue().offset())));
        }
    }
}
