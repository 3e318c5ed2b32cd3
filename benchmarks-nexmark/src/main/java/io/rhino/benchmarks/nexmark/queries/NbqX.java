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
import io.rhino.benchmarks.nexmark.model.Bid;
import io.rhino.flink.api.RhinoStreams;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.functions.CoGroupFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.windowing.assigners.EventTimeSessionWindows;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.assigners.WindowAssigner;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.util.Collector;

/**
 * NBQX, the paper's own query: session-window joins of auctions and bids on the auction id (gaps of
 * 30, 60, 90 and 120 min in the paper) and a tumbling-window join of them (4 h), all concurrently
 * in one job. Each sub-query is its own keyed operator ({@code nbqx-session-30m}, ..., {@code
 * nbqx-tumbling-4h}); the output is their union.
 */
public final class NbqX {

    public static final List<Duration> PAPER_SESSION_GAPS =
            List.of(
                    Duration.ofMinutes(30),
                    Duration.ofMinutes(60),
                    Duration.ofMinutes(90),
                    Duration.ofMinutes(120));

    public static final Duration PAPER_TUMBLING = Duration.ofHours(4);

    private static final TypeInformation<AuctionBidMatch> RESULT_TYPE =
            TypeInformation.of(AuctionBidMatch.class);

    private NbqX() {}

    /** The sub-query name of a session gap, e.g. {@code session-30m}. */
    public static String sessionName(Duration gap) {
        return "session-" + label(gap);
    }

    /** The sub-query name of a tumbling window, e.g. {@code tumbling-4h}. */
    public static String tumblingName(Duration size) {
        return "tumbling-" + label(size);
    }

    /** The keyed operators' names, e.g. {@code nbqx-session-30m}. */
    public static List<String> operatorNames(List<Duration> sessionGaps, Duration tumbling) {
        List<String> names = new ArrayList<>();
        sessionGaps.forEach(gap -> names.add("nbqx-" + sessionName(gap)));
        names.add("nbqx-" + tumblingName(tumbling));
        return names;
    }

    public static DataStream<AuctionBidMatch> build(
            NexmarkStreams in, Keying keying, List<Duration> sessionGaps, Duration tumbling) {
        if (sessionGaps.stream().distinct().count() != sessionGaps.size()) {
            throw new IllegalArgumentException("Session gaps must differ: " + sessionGaps);
        }
        DataStream<AuctionBidMatch> all =
                join(
                        in,
                        keying,
                        tumblingName(tumbling),
                        TumblingEventTimeWindows.of(tumbling),
                        tumbling.toMillis());
        for (Duration gap : sessionGaps) {
            all =
                    all.union(
                            join(
                                    in,
                                    keying,
                                    sessionName(gap),
                                    EventTimeSessionWindows.withGap(gap),
                                    -1));
        }
        return all;
    }

    private static DataStream<AuctionBidMatch> join(
            NexmarkStreams in,
            Keying keying,
            String window,
            WindowAssigner<Object, TimeWindow> windows,
            long tumblingMillis) {
        String operator = "nbqx-" + window;
        MatchAuctionBid match = new MatchAuctionBid(window, tumblingMillis);
        if (keying.rhino()) {
            return Keying.named(
                    RhinoStreams.coGroup(in.auctions(), in.bids(), keying.options(operator))
                            .where(new Keys.AuctionId())
                            .equalTo(new Keys.BidAuction())
                            .window(windows)
                            .apply(match, RESULT_TYPE),
                    operator);
        }
        return keying.plain(
                in.auctions()
                        .coGroup(in.bids())
                        .where(new Keys.AuctionId())
                        .equalTo(new Keys.BidAuction())
                        .window(windows)
                        .apply(match, RESULT_TYPE),
                operator);
    }

    private static String label(Duration duration) {
        long seconds = duration.toSeconds();
        if (duration.toMillis() % 1000 != 0) {
            return duration.toMillis() + "ms";
        }
        if (seconds % 3600 == 0) {
            return seconds / 3600 + "h";
        }
        if (seconds % 60 == 0) {
            return seconds / 60 + "m";
        }
        return seconds + "s";
    }

    /**
     * One result per (auction, bid) pair of a window, as a window join emits them, each stamped
     * with the newest creation time of the whole window's auctions and bids: the pair's own newer
     * time would make a pair with an early bid carry the window's age (for a session that keeps
     * getting bids, growing a second per second) instead of the delay of the firing.
     */
    static final class MatchAuctionBid implements CoGroupFunction<Auction, Bid, AuctionBidMatch> {
        private final String window;
        private final long tumblingMillis;

        /** {@code tumblingMillis} is -1 for session windows. */
        MatchAuctionBid(String window, long tumblingMillis) {
            this.window = window;
            this.tumblingMillis = tumblingMillis;
        }

        @Override
        public void coGroup(
                Iterable<Auction> auctions, Iterable<Bid> bids, Collector<AuctionBidMatch> out) {
            long newest = Long.MIN_VALUE;
            for (Auction auction : auctions) {
                newest = Math.max(newest, auction.dateTime);
            }
            for (Bid bid : bids) {
                newest = Math.max(newest, bid.dateTime);
            }
            for (Auction auction : auctions) {
                for (Bid bid : bids) {
                    out.collect(match(auction, bid, newest));
                }
            }
        }

        private AuctionBidMatch match(Auction auction, Bid bid, long newestCreation) {
            long start =
                    tumblingMillis > 0
                            ? TimeWindow.getWindowStartWithOffset(
                                    auction.dateTime, 0, tumblingMillis)
                            : -1;
            return new AuctionBidMatch(
                    window,
                    auction.id,
                    auction.seller,
                    bid.bidder,
                    bid.price,
                    auction.dateTime,
                    bid.dateTime,
                    start,
                    tumblingMillis > 0 ? start + tumblingMillis : -1,
                    newestCreation);
        }
    }
}
