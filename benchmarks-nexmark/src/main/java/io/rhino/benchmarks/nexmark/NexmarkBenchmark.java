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
import io.rhino.benchmarks.cluster.EmbeddedCluster;
import io.rhino.benchmarks.nexmark.generator.EventKind;
import io.rhino.benchmarks.nexmark.kafka.EmbeddedKafka;
import io.rhino.benchmarks.nexmark.kafka.NexmarkKafkaProducer;
import io.rhino.benchmarks.nexmark.kafka.NexmarkKafkaSources;
import io.rhino.benchmarks.nexmark.kafka.NexmarkTopics;
import io.rhino.benchmarks.nexmark.queries.Keying;
import io.rhino.benchmarks.nexmark.queries.Nbq5;
import io.rhino.benchmarks.nexmark.queries.Nbq8;
import io.rhino.benchmarks.nexmark.queries.NbqX;
import io.rhino.benchmarks.nexmark.queries.NexmarkStreams;
import io.rhino.benchmarks.nexmark.queries.Variant;
import io.rhino.flink.state.RhinoStateBackendFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one NEXMark workload (NBQ5, NBQ8 or NBQX) end to end: generator threads write to Kafka (an
 * embedded broker unless {@code --bootstrap-servers} names one), and the query, in its Rhino or
 * plain-Flink variant, reads the three topics on an embedded Flink cluster of two TaskManagers and
 * logs its results' end-to-end latency. After {@code --seconds} the job is cancelled.
 */
public final class NexmarkBenchmark {

    private static final Logger LOG = LoggerFactory.getLogger(NexmarkBenchmark.class);

    private NexmarkBenchmark() {}

    static Args declare() {
        Args args =
                new Args("NexmarkBenchmark")
                        .flag("query", "nbq5", "nbq5, nbq8 or nbqx")
                        .flag("variant", "rhino", "rhino or plain")
                        .flag("seconds", 60, "how long the job runs before it is cancelled")
                        .flag("bootstrap-servers", "", "an external Kafka; empty: embedded broker")
                        .flag("topic-prefix", "nexmark-", "topics <prefix>person|auction|bid")
                        .flag("partitions", 4, "partitions per topic (paper: 32)")
                        .flag("producer-threads", 2, "generator threads (paper: 4 x 8)")
                        .flag("events", 0, "events to produce in total; 0: until the end")
                        .flag("source-parallelism", 1, "parallelism of each Kafka source")
                        .flag("parallelism", 2, "parallelism of the keyed operators (at most 4)")
                        .flag("vnodes", 16, "Rhino vnodes per keyed operator")
                        .flag("out-of-orderness", "5s", "watermark bound")
                        .flag("idleness", "10s", "a silent partition stops holding watermarks")
                        .flag("nbq5-size", "60s", "NBQ5 sliding window size")
                        .flag("nbq5-slide", "10s", "NBQ5 slide")
                        .flag("nbq8-window", "12h", "NBQ8 tumbling window")
                        .flag("nbqx-gaps", "30min,60min,90min,120min", "NBQX session gaps")
                        .flag("nbqx-tumbling", "4h", "NBQX tumbling window")
                        .flag("managed-memory", "512m", "managed memory per TaskManager");
        return NexmarkFlags.declareGenerator(args);
    }

    public static void main(String[] argv) throws Exception {
        Args args = declare();
        if (!args.parse(argv)) {
            return;
        }
        run(args);
    }

    static void run(Args args) throws Exception {
        Variant variant = Variant.valueOf(args.get("variant").toUpperCase(Locale.ROOT));
        String query = args.get("query").toLowerCase(Locale.ROOT);
        NexmarkTopics topics = NexmarkTopics.withPrefix(args.get("topic-prefix"));
        int partitions = args.getInt("partitions", 1);
        Path workDir = Files.createTempDirectory("nexmark-");
        EmbeddedKafka embedded = null;
        try {
            String bootstrap = args.get("bootstrap-servers");
            if (bootstrap.isEmpty()) {
                embedded = EmbeddedKafka.start(workDir.resolve("kafka"));
                bootstrap = embedded.bootstrapServers();
            }
            topics.create(bootstrap, partitions);
            try (NexmarkKafkaProducer producer =
                            new NexmarkKafkaProducer(
                                    new NexmarkKafkaProducer.Settings(
                                            bootstrap,
                                            topics,
                                            partitions,
                                            args.getInt("producer-threads", 1),
                                            args.getLong("events"),
                                            NexmarkFlags.rate(args.get("rate")),
                                            NexmarkFlags.generator(args)));
                    EmbeddedCluster cluster =
                            EmbeddedCluster.start(
                                    2,
                                    2,
                                    workDir.resolve("flink"),
                                    MemorySize.parse(args.get("managed-memory")))) {
                StreamExecutionEnvironment env = environment(variant);
                NexmarkStreams in =
                        NexmarkKafkaSources.streams(
                                env,
                                new NexmarkKafkaSources.Settings(
                                        bootstrap,
                                        topics,
                                        "nexmark-" + UUID.randomUUID(),
                                        false,
                                        args.getInt("source-parallelism", 1),
                                        NexmarkFlags.duration(args, "out-of-orderness"),
                                        NexmarkFlags.duration(args, "idleness")));
                addQuery(
                        args,
                        query,
                        in,
                        new Keying(
                                variant, args.getInt("parallelism", 1), args.getInt("vnodes", 1)));

                JobID job = cluster.submit(EmbeddedCluster.jobGraph(env));
                cluster.awaitRunning(job, Duration.ofMinutes(2));
                producer.start();
                LOG.info("Running {} ({}) for {} s", query, variant, args.getLong("seconds"));
                long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(args.getLong("seconds"));
                while (System.nanoTime() < end) {
                    Thread.sleep(5_000);
                    LOG.info(
                            "produced {} persons, {} auctions, {} bids, {} MB",
                            producer.produced(EventKind.PERSON),
                            producer.produced(EventKind.AUCTION),
                            producer.produced(EventKind.BID),
                            producer.producedBytes() / 1_000_000);
                }
                producer.stop();
                cluster.miniCluster().cancelJob(job).get(1, TimeUnit.MINUTES);
            }
        } finally {
            if (embedded != null) {
                embedded.close();
            }
            EmbeddedCluster.deleteRecursively(workDir);
        }
    }

    private static StreamExecutionEnvironment environment(Variant variant) {
        Configuration config = new Configuration();
        config.set(
                StateBackendOptions.STATE_BACKEND,
                variant == Variant.RHINO ? RhinoStateBackendFactory.class.getName() : "rocksdb");
        config.set(PipelineOptions.GENERIC_TYPES, false);
        return StreamExecutionEnvironment.getExecutionEnvironment(config);
    }

    private static void addQuery(Args args, String query, NexmarkStreams in, Keying keying) {
        switch (query) {
            case "nbq5" -> {
                Nbq5.Result result =
                        Nbq5.build(
                                in,
                                keying,
                                NexmarkFlags.duration(args, "nbq5-size"),
                                NexmarkFlags.duration(args, "nbq5-slide"));
                result.counts()
                        .sinkTo(new LatencyLoggingSink<>("nbq5-counts"))
                        .name("nbq5-counts-sink");
                result.hottest()
                        .sinkTo(new LatencyLoggingSink<>("nbq5-hottest"))
                        .name("nbq5-hottest-sink");
            }
            case "nbq8" ->
                    Nbq8.build(in, keying, NexmarkFlags.duration(args, "nbq8-window"))
                            .sinkTo(new LatencyLoggingSink<>("nbq8"))
                            .name("nbq8-sink");
            case "nbqx" ->
                    NbqX.build(
                                    in,
                                    keying,
                                    NexmarkFlags.durations(args, "nbqx-gaps"),
                                    NexmarkFlags.duration(args, "nbqx-tumbling"))
                            .sinkTo(new LatencyLoggingSink<>("nbqx"))
                            .name("nbqx-sink");
            default ->
                    throw new IllegalArgumentException(
                            "--query is nbq5, nbq8 or nbqx, not " + query);
        }
    }
}
