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
import io.rhino.benchmarks.nexmark.generator.GeneratorConfig;
import io.rhino.benchmarks.nexmark.generator.NexmarkGenerator;
import io.rhino.benchmarks.nexmark.generator.RateLimiter;
import io.rhino.benchmarks.nexmark.generator.RateSchedule;
import io.rhino.benchmarks.nexmark.model.NexmarkCodec;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes generated NEXMark events to the three topics from several threads. Thread {@code t} of
 * {@code T} makes the events of indexes {@code t, t + T, t + 2T, ...} (so the events are the same
 * for any number of threads), encodes each with {@link NexmarkCodec} into a reused buffer, paces
 * itself with its own {@link RateLimiter}, and spreads each topic's records round-robin over the
 * partitions. All threads share one Kafka producer, batching 32 KB for up to 100 ms as the paper
 * did. A record's Kafka timestamp is its creation timestamp.
 */
public final class NexmarkKafkaProducer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(NexmarkKafkaProducer.class);

    /**
     * What to produce.
     *
     * @param events events in total over all threads; 0 to produce until {@link #stop()}
     * @param rate the rate of each thread
     */
    public record Settings(
            String bootstrapServers,
            NexmarkTopics topics,
            int partitions,
            int threads,
            long events,
            RateSchedule rate,
            GeneratorConfig generator) {

        public Settings {
            if (partitions < 1 || threads < 1 || events < 0) {
                throw new IllegalArgumentException(
                        "partitions and threads >= 1 and events >= 0 needed");
            }
        }
    }

    private final Settings settings;
    private final KafkaProducer<byte[], byte[]> producer;
    private final List<Thread> threads = new ArrayList<>();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicReference<Exception> failure = new AtomicReference<>();
    private final LongAdder[] produced = {new LongAdder(), new LongAdder(), new LongAdder()};
    private final LongAdder bytes = new LongAdder();

    public NexmarkKafkaProducer(Settings settings) {
        this.settings = settings;
        this.producer = new KafkaProducer<>(producerProperties(settings.bootstrapServers()));
    }

    /** The producer configuration: the paper's batching (32 KB, 100 ms), leader acks only. */
    public static Properties producerProperties(String bootstrapServers) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(ProducerConfig.BATCH_SIZE_CONFIG, 32 * 1024);
        props.put(ProducerConfig.LINGER_MS_CONFIG, 100);
        props.put(ProducerConfig.ACKS_CONFIG, "1");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        return props;
    }

    /** Starts the producer threads. */
    public NexmarkKafkaProducer start() {
        for (int t = 0; t < settings.threads(); t++) {
            int thread = t;
            Thread worker = new Thread(() -> produce(thread), "nexmark-producer-" + t);
            worker.setDaemon(true);
            threads.add(worker);
            worker.start();
        }
        return this;
    }

    /** Asks the threads to stop after their current event. */
    public void stop() {
        running.set(false);
    }

    /**
     * Waits until all threads are done (all events produced, or stopped), then until Kafka has
     * acknowledged every record; rethrows the first send failure.
     */
    public void await(Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (Thread thread : threads) {
            long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            thread.join(Math.max(1, left));
            if (thread.isAlive()) {
                throw new IllegalStateException(thread.getName() + " still runs after " + timeout);
            }
        }
        producer.flush();
        Exception e = failure.get();
        if (e != null) {
            throw e;
        }
    }

    public long produced(EventKind kind) {
        return produced[kind.ordinal()].sum();
    }

    public long producedBytes() {
        return bytes.sum();
    }

    @Override
    public void close() {
        stop();
        for (Thread thread : threads) {
            try {
                thread.join(TimeUnit.SECONDS.toMillis(10));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        producer.close(Duration.ofSeconds(30));
    }

    private void produce(int thread) {
        GeneratorConfig config = settings.generator();
        NexmarkGenerator generator = new NexmarkGenerator(config);
        RateLimiter limiter = RateLimiter.onSystemClock(settings.rate());
        int maxBytes =
                Math.max(
                        config.sizes().personBytes(),
                        Math.max(config.sizes().auctionBytes(), config.sizes().bidBytes()));
        ByteBuffer buffer = ByteBuffer.allocate(maxBytes);
        long[] sentPerKind = new long[EventKind.values().length];
        int partitions = settings.partitions();
        try {
            for (long index = thread;
                    running.get() && (settings.events() == 0 || index < settings.events());
                    index += settings.threads()) {
                EventKind kind = generator.generate(index);
                buffer.clear();
                long timestamp =
                        switch (kind) {
                            case PERSON -> {
                                NexmarkCodec.write(generator.person(), buffer);
                                yield generator.person().dateTime;
                            }
                            case AUCTION -> {
                                NexmarkCodec.write(generator.auction(), buffer);
                                yield generator.auction().dateTime;
                            }
                            case BID -> {
                                NexmarkCodec.write(generator.bid(), buffer);
                                yield generator.bid().dateTime;
                            }
                        };
                byte[] value = Arrays.copyOf(buffer.array(), buffer.position());
                limiter.acquire(value.length);
                int partition = (int) ((sentPerKind[kind.ordinal()]++ + thread) % partitions);
                producer.send(
                        new ProducerRecord<>(
                                settings.topics().of(kind), partition, timestamp, null, value),
                        (metadata, e) -> {
                            if (e != null && failure.compareAndSet(null, e)) {
                                LOG.error("Sending to Kafka failed", e);
                            }
                        });
                produced[kind.ordinal()].increment();
                bytes.add(value.length);
                if (failure.get() != null) {
                    return;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            failure.compareAndSet(null, e);
            LOG.error("Producer thread {} failed", thread, e);
        }
    }
}
