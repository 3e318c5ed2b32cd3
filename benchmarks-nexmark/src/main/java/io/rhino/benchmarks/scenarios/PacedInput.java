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

import io.rhino.benchmarks.nexmark.generator.EventTimestamps;
import io.rhino.benchmarks.nexmark.generator.GeneratorConfig;
import io.rhino.benchmarks.nexmark.model.Auction;
import io.rhino.benchmarks.nexmark.model.Person;
import io.rhino.benchmarks.nexmark.queries.NexmarkStreams;
import java.time.Duration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * NBQ8's input generated inside the job instead of read from Kafka, for clusters a Kafka broker in
 * the driver cannot reach (the network bed's hosts): persons and auctions of the paper's generator
 * (1:3:46, bids left out as NBQ8 reads none), each emitted when the wall clock reaches its creation
 * timestamp {@code start + index / eventsPerSecond}. The sources' positions are checkpointed, so
 * after a failure the job replays from its restored checkpoint what it had not processed and then
 * what was created while it was down, at its full speed: the backlog an open-loop Kafka producer
 * leaves behind, with the same latency (arrival minus creation).
 */
final class PacedInput {

    /** Source name prefix, beside {@link InJobFill#SOURCE_PREFIX}. */
    static final String SOURCE_PREFIX = "paced-";

    /** Generated records per source: more than any run reads. */
    private static final long UNBOUNDED = Long.MAX_VALUE / 1024;

    private PacedInput() {}

    /**
     * The persons and auctions of {@code generator} (its proportions, keys and sizes) at {@code
     * eventsPerSecond} NEXMark events per second from {@code startMillis} on; no bids stream.
     */
    static NexmarkStreams streams(
            StreamExecutionEnvironment env,
            GeneratorConfig generator,
            long eventsPerSecond,
            long startMillis,
            Duration outOfOrderness) {
        GeneratorConfig paced =
                generator.withTimestamps(EventTimestamps.synthetic(startMillis, eventsPerSecond));
        DataStream<Person> persons =
                NthEvent.personSource(
                        env,
                        paced,
                        NthEvent.Treatment.PACED,
                        UNBOUNDED,
                        outOfOrderness,
                        SOURCE_PREFIX);
        DataStream<Auction> auctions =
                NthEvent.auctionSource(
                        env,
                        paced,
                        NthEvent.Treatment.PACED,
                        UNBOUNDED,
                        outOfOrderness,
                        SOURCE_PREFIX);
        return new NexmarkStreams(persons, auctions, null);
    }
}
