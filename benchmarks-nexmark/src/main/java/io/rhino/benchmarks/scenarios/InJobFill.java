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

import io.rhino.benchmarks.nexmark.generator.GeneratorConfig;
import io.rhino.benchmarks.nexmark.model.Auction;
import io.rhino.benchmarks.nexmark.model.Person;
import io.rhino.benchmarks.nexmark.queries.FillRecords;
import io.rhino.benchmarks.nexmark.queries.NexmarkStreams;
import java.time.Duration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Fills NBQ8's state from generators inside the job: bounded sources of persons and auctions (NBQ8
 * reads no bids) unioned into the query's Kafka inputs. Unlike a fill through Kafka at the
 * producer's full speed, these sources are slowed by backpressure, so the state grows as fast as
 * the job can store it and no backlog is left behind for the measured run. Fill records carry fill
 * ids ({@link FillRecords}): they never join the measured records and produce no early results, so
 * the fill costs the job state writes, not result reads and output.
 */
final class InJobFill {

    /** Name prefix of the fill sources, to find them in the running job. */
    static final String SOURCE_PREFIX = "fill-";

    /**
     * Checkpointed bytes one person or auction adds to NBQ8's window state: a little under its wire
     * size, as RocksDB compresses (measured: 250 per record asked for 2 GB and gave 1.6 GB).
     */
    private static final long STATE_BYTES_PER_RECORD = 200;

    /** Persons : auctions : bids of the fill. */
    private static final int PERSONS = NthEvent.PERSONS_PER_CYCLE;

    private static final int AUCTIONS = NthEvent.AUCTIONS_PER_CYCLE;

    private InJobFill() {}

    /** {@code in} with fill sources of about {@code targetBytes} of state unioned into it. */
    static NexmarkStreams addTo(
            StreamExecutionEnvironment env,
            NexmarkStreams in,
            GeneratorConfig workloadGenerator,
            long targetBytes,
            Duration outOfOrderness) {
        GeneratorConfig config = workloadGenerator.withProportions(PERSONS, AUCTIONS, 0);
        long records = Math.max(PERSONS + AUCTIONS, targetBytes / STATE_BYTES_PER_RECORD);
        long persons = records * PERSONS / (PERSONS + AUCTIONS);
        long auctions = records - persons;
        DataStream<Person> fillPersons =
                NthEvent.personSource(
                        env,
                        config,
                        NthEvent.Treatment.FILL,
                        persons,
                        outOfOrderness,
                        SOURCE_PREFIX);
        DataStream<Auction> fillAuctions =
                NthEvent.auctionSource(
                        env,
                        config,
                        NthEvent.Treatment.FILL,
                        auctions,
                        outOfOrderness,
                        SOURCE_PREFIX);
        return new NexmarkStreams(
                in.persons().union(fillPersons), in.auctions().union(fillAuctions), in.bids());
    }
}
