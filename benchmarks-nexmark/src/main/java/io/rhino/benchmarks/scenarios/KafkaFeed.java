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

import io.rhino.benchmarks.nexmark.generator.EventKind;
import io.rhino.benchmarks.nexmark.generator.RateSchedule;
import io.rhino.benchmarks.nexmark.kafka.EmbeddedKafka;
import io.rhino.benchmarks.nexmark.kafka.NexmarkKafkaProducer;
import io.rhino.benchmarks.nexmark.kafka.NexmarkTopics;
import java.nio.file.Path;
import java.util.Set;

/**
 * The input side of a run: an embedded Kafka broker, the three NEXMark topics and the generator
 * threads writing into them. The generator keeps producing at the workload's rate for the whole
 * run, whatever the system under test does, so a system that stops processing builds up a backlog
 * that its end-to-end latency shows (as in the paper, §5.4.1.5).
 */
final class KafkaFeed implements AutoCloseable {

    private final EmbeddedKafka kafka;
    private final NexmarkTopics topics;
    private final SwitchableRate rate;
    private final NexmarkKafkaProducer producer;
    private long startNanos;

    private KafkaFeed(
            EmbeddedKafka kafka,
            NexmarkTopics topics,
            SwitchableRate rate,
            NexmarkKafkaProducer producer) {
        this.kafka = kafka;
        this.topics = topics;
        this.rate = rate;
        this.producer = producer;
    }

    /**
     * Starts a broker under {@code dir} and creates the topics; the producer starts with {@link
     * #startProducing}, at {@code initialRate}.
     */
    static KafkaFeed start(Path dir, NexmarkWorkload workload, RateSchedule initialRate)
            throws Exception {
        EmbeddedKafka kafka = EmbeddedKafka.start(dir);
        try {
            NexmarkTopics topics = NexmarkTopics.withPrefix("nexmark-");
            topics.create(kafka.bootstrapServers(), workload.partitions());
            SwitchableRate rate = new SwitchableRate(initialRate);
            NexmarkKafkaProducer producer =
                    new NexmarkKafkaProducer(
                            new NexmarkKafkaProducer.Settings(
                                    kafka.bootstrapServers(),
                                    topics,
                                    workload.partitions(),
                                    workload.producerThreads(),
                                    0,
                                    rate,
                                    workload.generator()));
            return new KafkaFeed(kafka, topics, rate, producer);
        } catch (Exception e) {
            kafka.close();
            throw e;
        }
    }

    String bootstrapServers() {
        return kafka.bootstrapServers();
    }

    NexmarkTopics topics() {
        return topics;
    }

    void startProducing() {
        startNanos = System.nanoTime();
        producer.start();
    }

    /** Continues at {@code schedule}, starting at its time zero now. */
    void switchRate(RateSchedule schedule) {
        rate.switchTo(schedule, System.nanoTime() - startNanos);
    }

    long producedBytes() {
        return producer.producedBytes();
    }

    /** Records produced so far of the given kinds (the topics a query reads). */
    long producedRecords(Set<EventKind> kinds) {
        return kinds.stream().mapToLong(producer::produced).sum();
    }

    @Override
    public void close() throws Exception {
        try {
            producer.close();
        } finally {
            kafka.close();
        }
    }
}
