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

import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real Kafka broker in this JVM: one combined KRaft node (broker and controller) of Kafka's own
 * {@link KafkaClusterTestKit}, listening on a free local port, with its logs under a directory that
 * is deleted on {@link #close()}.
 */
public final class EmbeddedKafka implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedKafka.class);

    private final KafkaClusterTestKit cluster;

    private EmbeddedKafka(KafkaClusterTestKit cluster) {
        this.cluster = cluster;
    }

    /** Formats and starts a one-node cluster with its data under {@code baseDir} (created). */
    public static EmbeddedKafka start(Path baseDir) throws Exception {
        Files.createDirectories(baseDir);
        KafkaClusterTestKit cluster =
                new KafkaClusterTestKit.Builder(
                                new TestKitNodes.Builder()
                                        .setCombined(true)
                                        .setNumBrokerNodes(1)
                                        .setNumControllerNodes(1)
                                        .setBaseDirectory(baseDir)
                                        .build())
                        // one broker: internal topics cannot have more replicas
                        .setConfigProp("offsets.topic.replication.factor", "1")
                        .setConfigProp("offsets.topic.num.partitions", "1")
                        .setConfigProp("transaction.state.log.replication.factor", "1")
                        .setConfigProp("transaction.state.log.min.isr", "1")
                        .setConfigProp("group.initial.rebalance.delay.ms", "0")
                        .setDeleteOnClose(true)
                        .build();
        try {
            cluster.format();
            cluster.startup();
            cluster.waitForReadyBrokers();
        } catch (Exception e) {
            cluster.close();
            throw e;
        }
        LOG.info("Embedded Kafka broker ready at {}", cluster.bootstrapServers());
        return new EmbeddedKafka(cluster);
    }

    public String bootstrapServers() {
        return cluster.bootstrapServers();
    }

    @Override
    public void close() throws Exception {
        cluster.close();
    }
}
