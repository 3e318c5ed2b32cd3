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
import org.apache.flink.api.common.functions.JoinFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;

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
