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

package io.rhino.benchmarks.nexmark.queries;

import io.rhino.benchmarks.nexmark.generator.NexmarkEvents;
import io.rhino.benchmarks.nexmark.model.Auction;
import io.rhino.benchmarks.nexmark.model.Bid;
import io.rhino.benchmarks.nexmark.model.NexmarkTypeInfo;
import io.rhino.benchmarks.nexmark.model.Person;
import java.time.Duration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The three NEXMark input streams of a query, with event-time timestamps and watermarks already
 * assigned. Queries take this, so the same query reads Kafka or an in-memory source.
 */
public record NexmarkStreams(
        DataStream<Person> persons, DataStream<Auction> auctions, DataStream<Bid> bids) {

    /**
     * Bounded in-memory sources of {@code events} (parallelism 1 each, in index order), with
     * watermarks that trail the newest timestamp by {@code outOfOrderness}.
     */
    public static NexmarkStreams fromEvents(
            StreamExecutionEnvironment env, NexmarkEvents events, Duration outOfOrderness) {
        return new NexmarkStreams(
                env.fromData(events.persons(), NexmarkTypeInfo.PERSON)
                        .name("persons")
                        .uid("persons")
                        .setParallelism(1)
                        .assignTimestampsAndWatermarks(EventTimeWatermarks.persons(outOfOrderness))
                        .setParallelism(1),
                env.fromData(events.auctions(), NexmarkTypeInfo.AUCTION)
                        .name("auctions")
                        .uid("auctions")
                        .setParallelism(1)
                        .assignTimestampsAndWatermarks(EventTimeWatermarks.auctions(outOfOrderness))
                        .setParallelism(1),
                env.fromData(events.bids(), NexmarkTypeInfo.BID)
                        .name("bids")
                        .uid("bids")
                        .setParallelism(1)
                        .assignTimestampsAndWatermarks(EventTimeWatermarks.bids(outOfOrderness))
                        .setParallelism(1));
    }
}
