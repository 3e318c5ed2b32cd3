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

import io.rhino.benchmarks.cluster.EmbeddedCluster;
import io.rhino.benchmarks.harness.LatencyProbe;
import io.rhino.benchmarks.harness.SpillingLatencyProbe;
import io.rhino.benchmarks.harness.ThroughputProbe;
import io.rhino.benchmarks.nexmark.generator.EventKind;
import io.rhino.benchmarks.nexmark.kafka.NexmarkKafkaSources;
import io.rhino.benchmarks.nexmark.kafka.NexmarkTopics;
import io.rhino.benchmarks.nexmark.model.Auction;
import io.rhino.benchmarks.nexmark.model.Bid;
import io.rhino.benchmarks.nexmark.model.NexmarkCodec;
import io.rhino.benchmarks.nexmark.model.Person;
import io.rhino.benchmarks.nexmark.queries.Keying;
import io.rhino.benchmarks.nexmark.queries.Nbq5;
import io.rhino.benchmarks.nexmark.queries.Nbq8;
import io.rhino.benchmarks.nexmark.queries.NbqX;
import io.rhino.benchmarks.nexmark.queries.NexmarkStreams;
import io.rhino.benchmarks.nexmark.queries.TimedResult;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;

/**
 * The job a system under test runs for a {@link NexmarkWorkload}: the Kafka sources of the topics
 * the query reads, each followed by a {@link ThroughputProbe} (the run's throughput is what the job
 * consumes, in records and wire bytes, as in the paper), the query, and after its output a {@link
 * LatencyProbe} (arrival after the last operator minus the newest contributing record's creation
 * time), then a discarding sink. Every operator has a uid, so a savepoint maps onto a job of
 * another parallelism.
 */
final class QueryJobs {

    /** NBQ5's windows: the paper's 60 s sliding by 10 s. */
    static final Duration NBQ5_SIZE = Nbq5.PAPER_SIZE;

    static final Duration NBQ5_SLIDE = Nbq5.PAPER_SLIDE;

    /**
     * NBQX's windows, scaled from the paper's minutes and hours to seconds so that sessions close
     * and windows fire within a run of minutes.
     */
    static final List<Duration> NBQX_GAPS =
            List.of(
                    Duration.ofSeconds(5),
                    Duration.ofSeconds(10),
                    Duration.ofSeconds(15),
                    Duration.ofSeconds(20));

    static final Duration NBQX_TUMBLING = Duration.ofSeconds(40);

    private static final Duration OUT_OF_ORDERNESS = Duration.ofMillis(500);
    private static final Duration IDLENESS = Duration.ofSeconds(5);

    private QueryJobs() {}

    /** The names of the query's keyed operators (the ones Rhino can hand over). */
    static List<String> keyedOperators(String query) {
        return switch (query) {
            case "nbq5" -> List.of(Nbq5.COUNT_OPERATOR);
            case "nbq8" -> List.of(Nbq8.JOIN_OPERATOR);
            case "nbqx" -> NbqX.operatorNames(NBQX_GAPS, NBQX_TUMBLING);
            default -> throw new IllegalArgumentException("unknown query " + query);
        };
    }

    /** Adds the job of {@code workload} to {@code env} and returns its graph. */
    static JobGraph build(
            StreamExecutionEnvironment env,
            NexmarkWorkload workload,
            Keying keying,
            KafkaFeed feed,
            String runId) {
        return build(env, workload, keying, feed.bootstrapServers(), feed.topics(), runId);
    }

    /** The job reading the topics of the broker at {@code bootstrapServers}. */
    static JobGraph build(
            StreamExecutionEnvironment env,
            NexmarkWorkload workload,
            Keying keying,
            String bootstrapServers,
            NexmarkTopics topics,
            String runId) {
        NexmarkStreams in =
                NexmarkKafkaSources.streams(
                        env,
                        new NexmarkKafkaSources.Settings(
                                bootstrapServers,
                                topics,
                                "nexmark-" + runId,
                                false,
                                1,
                                OUT_OF_ORDERNESS,
                                IDLENESS));
        in = probeInputs(in, workload.query(), runId);
        probe(query(env, workload, keying, in), runId, null);
        return EmbeddedCluster.jobGraph(env);
    }

    /**
     * Adds NBQ8 on its input generated in the job ({@link PacedInput}: {@code eventsPerSecond}
     * NEXMark events per second from {@code startMillis} on) to {@code env}, for a cluster of other
     * processes: the latencies go to files under {@code latencyDirectory} ({@link
     * SpillingLatencyProbe}); nothing is counted in this JVM.
     */
    static void addPacedNbq8(
            StreamExecutionEnvironment env,
            NexmarkWorkload workload,
            Keying keying,
            long eventsPerSecond,
            long startMillis,
            Path latencyDirectory) {
        if (!workload.query().equals("nbq8")) {
            throw new IllegalArgumentException(
                    "the paced input carries persons and auctions: NBQ8 only, not "
                            + workload.query());
        }
        NexmarkStreams in =
                PacedInput.streams(
                        env, workload.generator(), eventsPerSecond, startMillis, OUT_OF_ORDERNESS);
        probe(query(env, workload, keying, in), null, latencyDirectory);
    }

    /** The query of {@code workload} on {@code in}, with the in-job fill where it has one. */
    private static DataStream<? extends TimedResult> query(
            StreamExecutionEnvironment env,
            NexmarkWorkload workload,
            Keying keying,
            NexmarkStreams in) {
        if (fillsInJob(workload)) {
            in =
                    InJobFill.addTo(
                            env,
                            in,
                            workload.generator(),
                            workload.stateSizeBytes(),
                            OUT_OF_ORDERNESS);
        }
        return switch (workload.query()) {
            case "nbq5" -> Nbq5.build(in, keying, NBQ5_SIZE, NBQ5_SLIDE).hottest();
            case "nbq8" -> Nbq8.buildEarlyFiring(in, keying, workload.nbq8Window());
            case "nbqx" -> NbqX.build(in, keying, NBQX_GAPS, NBQX_TUMBLING);
            default -> throw new IllegalArgumentException(workload.query());
        };
    }

    /** NBQ8 fills its state from generators inside the job ({@link InJobFill}). */
    static boolean fillsInJob(NexmarkWorkload workload) {
        return workload.stateSizeBytes() > 0 && workload.query().equals("nbq8");
    }

    /** The kinds of events (topics) the query reads. */
    static Set<EventKind> inputKinds(String query) {
        return switch (query) {
            case "nbq5" -> EnumSet.of(EventKind.BID);
            case "nbq8" -> EnumSet.of(EventKind.PERSON, EventKind.AUCTION);
            case "nbqx" -> EnumSet.of(EventKind.AUCTION, EventKind.BID);
            default -> throw new IllegalArgumentException("unknown query " + query);
        };
    }

    /** Counts what the query consumes; a topic it does not read stays out of the job. */
    private static NexmarkStreams probeInputs(NexmarkStreams in, String query, String runId) {
        Set<EventKind> read = inputKinds(query);
        return new NexmarkStreams(
                read.contains(EventKind.PERSON)
                        ? probed(
                                in.persons(),
                                "persons",
                                new ThroughputProbe<Person>(runId, NexmarkCodec::sizeOf))
                        : in.persons(),
                read.contains(EventKind.AUCTION)
                        ? probed(
                                in.auctions(),
                                "auctions",
                                new ThroughputProbe<Auction>(runId, NexmarkCodec::sizeOf))
                        : in.auctions(),
                read.contains(EventKind.BID)
                        ? probed(
                                in.bids(),
                                "bids",
                                new ThroughputProbe<Bid>(runId, NexmarkCodec::sizeOf))
                        : in.bids());
    }

    private static <T> DataStream<T> probed(
            DataStream<T> input, String name, ThroughputProbe<T> probe) {
        return input.map(probe)
                .returns(input.getType())
                .name("throughput-" + name)
                .uid("throughput-" + name)
                .setParallelism(input.getParallelism());
    }

    /**
     * The latency probe and a discarding sink after {@code out}: into the run's recorder in this
     * JVM, or into files under {@code spillDirectory} where that is set.
     */
    private static <T extends TimedResult> void probe(
            DataStream<T> out, String runId, Path spillDirectory) {
        MapFunction<T, T> probe =
                spillDirectory == null
                        ? new LatencyProbe<T>(runId, TimedResult::newestCreation)
                        : new SpillingLatencyProbe<T>(spillDirectory, TimedResult::newestCreation);
        out.map(probe)
                .returns(out.getType())
                .name("latency-probe")
                .uid("latency-probe")
                .setParallelism(out.getParallelism())
                .sinkTo(new DiscardingSink<>())
                .name("discard")
                .uid("discard")
                .setParallelism(out.getParallelism());
    }
}
