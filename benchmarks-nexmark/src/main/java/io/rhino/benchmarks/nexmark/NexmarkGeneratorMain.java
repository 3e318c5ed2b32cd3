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

import io.rhino.benchmarks.cli.Args;
import io.rhino.benchmarks.cli.BenchmarkMain;
import io.rhino.benchmarks.nexmark.generator.EventKind;
import io.rhino.benchmarks.nexmark.kafka.NexmarkKafkaProducer;
import io.rhino.benchmarks.nexmark.kafka.NexmarkTopics;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The NEXMark generator on its own: creates the three topics on an existing Kafka cluster and
 * writes generated persons, auctions and bids into them until {@code --events} are written, {@code
 * --seconds} passed or the process is stopped (SIGTERM flushes what was sent). Queries then read
 * the topics from a Flink cluster of their own, e.g. the one of {@code docker/compose.yaml}.
 */
public final class NexmarkGeneratorMain {

    private static final Logger LOG = LoggerFactory.getLogger(NexmarkGeneratorMain.class);

    private NexmarkGeneratorMain() {}

    /** The flags; public for checks of the command lines that run it (docker/compose.yaml). */
    public static Args declare() {
        Args args =
                new Args("NexmarkGeneratorMain")
                        .flag("bootstrap-servers", "", "the Kafka cluster to write to (required)")
                        .flag("topic-prefix", "nexmark-", "topics <prefix>person|auction|bid")
                        .flag("partitions", 4, "partitions per topic, if it is created here")
                        .flag("producer-threads", 2, "generator threads")
                        .flag("events", 0, "events to produce in total; 0: no limit")
                        .flag("seconds", 0, "stop after this many seconds; 0: no limit")
                        .flag(
                                "status-file",
                                "",
                                "a file rewritten every 5 s with the counts produced so far"
                                        + " (a health check reads its age); empty: none");
        return NexmarkFlags.declareGenerator(args);
    }

    public static void main(String[] argv) {
        Args args = declare();
        if (!args.parse(argv)) {
            return;
        }
        BenchmarkMain.exit("NexmarkGeneratorMain", () -> run(args, new CountDownLatch(1)));
    }

    /**
     * Produces as {@code args} say; {@code stop} ends an unlimited run early (the shutdown hook
     * counts it down). Returns whether every event sent was acknowledged.
     */
    static boolean run(Args args, CountDownLatch stop) throws Exception {
        String bootstrap = args.get("bootstrap-servers");
        if (bootstrap.isBlank()) {
            throw new IllegalArgumentException("--bootstrap-servers is required");
        }
        long events = args.getLong("events");
        long seconds = args.getLong("seconds");
        String statusFile = args.get("status-file");
        NexmarkTopics topics = NexmarkTopics.withPrefix(args.get("topic-prefix"));
        int partitions = args.getInt("partitions", 1);
        topics.create(bootstrap, partitions);
        try (NexmarkKafkaProducer producer =
                new NexmarkKafkaProducer(
                        new NexmarkKafkaProducer.Settings(
                                bootstrap,
                                topics,
                                partitions,
                                args.getInt("producer-threads", 1),
                                events,
                                NexmarkFlags.rate(args.get("rate")),
                                NexmarkFlags.generator(args)))) {
            Thread hook = new Thread(stop::countDown, "nexmark-generator-stop");
            Runtime.getRuntime().addShutdownHook(hook);
            producer.start();
            LOG.info("Producing to {} at {} ({})", bootstrap, topics.all(), args.get("rate"));
            long end = seconds > 0 ? System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds) : 0;
            while (!stop.await(5, TimeUnit.SECONDS)) {
                report(producer, statusFile);
                boolean allSent = events > 0 && total(producer) >= events;
                if (allSent || (end != 0 && System.nanoTime() >= end)) {
                    break;
                }
            }
            producer.stop();
            producer.await(Duration.ofMinutes(1));
            report(producer, statusFile);
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // the JVM is stopping: the hook has run
            }
            return true;
        }
    }

    private static long total(NexmarkKafkaProducer producer) {
        long total = 0;
        for (EventKind kind : EventKind.values()) {
            total += producer.produced(kind);
        }
        return total;
    }

    private static void report(NexmarkKafkaProducer producer, String statusFile)
            throws IOException {
        String line =
                String.format(
                        "persons=%d auctions=%d bids=%d bytes=%d",
                        producer.produced(EventKind.PERSON),
                        producer.produced(EventKind.AUCTION),
                        producer.produced(EventKind.BID),
                        producer.producedBytes());
        LOG.info("produced {}", line);
        if (!statusFile.isEmpty()) {
            // written whole, then moved, so a reader never sees half a line
            Path file = Path.of(statusFile);
            Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
            Files.writeString(tmp, line + "\n", StandardCharsets.UTF_8);
            Files.move(
                    tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }
    }
}
