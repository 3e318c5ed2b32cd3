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

import io.rhino.benchmarks.nexmark.model.Auction;
import io.rhino.benchmarks.nexmark.model.Person;
import io.rhino.flink.api.RhinoStreams;
import java.time.Duration;
import org.apache.flink.api.common.functions.CoGroupFunction;
import org.apache.flink.api.common.functions.JoinFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.util.Collector;

/**
 * NBQ8, monitor new users: persons who created auctions in the same tumbling event-time window (12
 * h in the paper), a window join of persons and auctions on {@code person.id = auction.seller}.
 */
public final class Nbq8 {

    /** Name (and uid) of the join's keyed operator. */
    public static final String JOIN_OPERATOR = "nbq8-join";

    public static final Duration PAPER_WINDOW = Duration.ofHours(12);

    private static final TypeInformation<SellerAuction> RESULT_TYPE =
            TypeInformation.of(SellerAuction.class);

    private Nbq8() {}

    public static DataStream<SellerAuction> build(
            NexmarkStreams in, Keying keying, Duration window) {
        TumblingEventTimeWindows windows = TumblingEventTimeWindows.of(window);
        JoinSellerAuction join = new JoinSellerAuction(window.toMillis());
        if (keying.rhino()) {
            return Keying.named(
                    RhinoStreams.join(in.persons(), in.auctions(), keying.options(JOIN_OPERATOR))
                            .where(new Keys.PersonId())
                            .equalTo(new Keys.AuctionSeller())
                            .window(windows)
                            .apply(join, RESULT_TYPE),
                    JOIN_OPERATOR);
        }
        return keying.plain(
                in.persons()
                        .join(in.auctions())
                        .where(new Keys.PersonId())
                        .equalTo(new Keys.AuctionSeller())
                        .window(windows)
                        .apply(join, RESULT_TYPE),
                JOIN_OPERATOR);
    }

    /**
     * NBQ8 with early results, for latency measurements: the same windows and the same state (the
     * window keeps every person and auction of a seller until it ends, so state grows append-only
     * for a whole window, 12 h in the paper), but each arriving person or auction fires its key's
     * window at once and emits the seller's newest (person, auction) pair. A 12-hour window would
     * otherwise emit nothing during a run of minutes; with early firing every record that completes
     * a pair yields a result whose {@link SellerAuction#newestCreation()} is that record's
     * creation, so the result's latency is the record's end-to-end latency through the join. Fill
     * records ({@link FillRecords}) add to the state without firing.
     */
    public static DataStream<SellerAuction> buildEarlyFiring(
            NexmarkStreams in, Keying keying, Duration window) {
        TumblingEventTimeWindows windows = TumblingEventTimeWindows.of(window);
        NewestPair newest = new NewestPair(window.toMillis());
        if (keying.rhino()) {
            return Keying.named(
                    RhinoStreams.coGroup(in.persons(), in.auctions(), keying.options(JOIN_OPERATOR))
                            .where(new Keys.PersonId())
                            .equalTo(new Keys.AuctionSeller())
                            .window(windows)
                            .trigger(new EarlyResultTrigger())
                            .apply(newest, RESULT_TYPE),
                    JOIN_OPERATOR);
        }
        return keying.plain(
                in.persons()
                        .coGroup(in.auctions())
                        .where(new Keys.PersonId())
                        .equalTo(new Keys.AuctionSeller())
                        .window(windows)
                        .trigger(new EarlyResultTrigger())
                        .apply(newest, RESULT_TYPE),
                JOIN_OPERATOR);
    }

    /** The newest person and newest auction of a seller's window as one result, if both exist. */
    static final class NewestPair implements CoGroupFunction<Person, Auction, SellerAuction> {
        private final JoinSellerAuction join;

        NewestPair(long windowMillis) {
            this.join = new JoinSellerAuction(windowMillis);
        }

        @Override
        public void coGroup(
                Iterable<Person> persons,
                Iterable<Auction> auctions,
                Collector<SellerAuction> out) {
            Person person = null;
            for (Person p : persons) {
                if (person == null || p.dateTime > person.dateTime) {
                    person = p;
                }
            }
            if (person == null) {
                return;
            }
            Auction auction = null;
            for (Auction a : auctions) {
                if (auction == null || a.dateTime > auction.dateTime) {
                    auction = a;
                }
            }
            if (auction != null) {
                out.collect(join.join(person, auction));
            }
        }
    }

    /**
     * One result per (person, auction) pair. The window follows from either timestamp: both lie in
     * the same tumbling window.
     */
    static final class JoinSellerAuction implements JoinFunction<Person, Auction, SellerAuction> {
        private final long windowMillis;

        JoinSellerAuction(long windowMillis) {
            this.windowMillis = windowMillis;
        }

        @Override
        public SellerAuction join(Person person, Auction auction) {
            long start = TimeWindow.getWindowStartWithOffset(person.dateTime, 0, windowMillis);
            return new SellerAuction(
                    person.id,
                    person.name,
                    person.city,
                    auction.id,
                    auction.reserve,
                    start,
                    start + windowMillis,
                    Math.max(person.dateTime, auction.dateTime));
        }
    }
}
