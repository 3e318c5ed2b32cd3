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

import io.rhino.benchmarks.nexmark.generator.EventKind;
import java.io.Serializable;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * The three NEXMark topics: {@code <prefix>person}, {@code <prefix>auction}, {@code <prefix>bid}.
 */
public record NexmarkTopics(String person, String auction, String bid) implements Serializable {

    public static NexmarkTopics withPrefix(String prefix) {
        return new NexmarkTopics(prefix + "person", prefix + "auction", prefix + "bid");
    }

    public String of(EventKind kind) {
        return switch (kind) {
            case PERSON -> person;
            case AUCTION -> auction;
            case BID -> bid;
        };
    }

    public List<String> all() {
        return List.of(person, auction, bid);
    }

    /**
     * Creates the topics with {@code partitions} partitions each (replication factor 1); topics
     * that exist already are kept as they are.
     */
    public void create(String bootstrapServers, int partitions)
            throws InterruptedException, ExecutionException {
        try (Admin admin =
                Admin.create(
                        Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers))) {
            for (String topic : all()) {
                try {
                    admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1)))
                            .all()
                            .get(1, TimeUnit.MINUTES);
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException)) {
                        throw e;
                    }
                } catch (java.util.concurrent.TimeoutException e) {
                    throw new ExecutionException("Creating topic " + topic + " timed out", e);
                }
            }
        }
    }
}
