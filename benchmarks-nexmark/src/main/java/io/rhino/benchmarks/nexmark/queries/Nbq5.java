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

import io.rhino.benchmarks.nexmark.model.Bid;
import io.rhino.flink.api.RhinoStreams;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.functions.AggregateFunction;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.functions.windowing.ProcessAllWindowFunction;
import org.apache.flink.streaming.api.functions.windowing.ProcessWindowFunction;
import org.apache.flink.streaming.api.windowing.assigners.SlidingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.util.Collector;

/**
 * NBQ5, hot items: bids per auction over sliding event-time windows (60 s sliding by 10 s in the
 * paper), keyed by auction, then the auction with the most bids per window. The keyed count is the
 * stateful part that Rhino runs; the hottest-auction step is a non-keyed {@code windowAll} of
 * parallelism 1 in both variants.
 */
public final class Nbq5 {

    /** Name (and uid) of the keyed window operator. */
    public static final String COUNT_OPERATOR = "nbq5-bids-per-auction";

    public static final String HOTTEST_OPERATOR = "nbq5-hottest";

    public static final Duration PAPER_SIZE = Duration.ofSeconds(60);
    public static final Duration PAPER_SLIDE = Duration.ofSeconds(10);

    /** Both steps' outputs. */
    public record Result(DataStream<AuctionBids> counts, DataStream<HotAuction> hottest) {}

    private Nbq5() {}

    public static Result build(
            NexmarkStreams in, Keying keying, Duration windowSize, Duration windowSlide) {
        SlidingEventTimeWindows windows = SlidingEventTimeWindows.of(windowSize, windowSlide);
        SingleOutputStreamOperator<AuctionBids> counts =
                keying.rhino()
                        ? Keying.named(
                                RhinoStreams.keyBy(
                                                in.bids(),
                                                new Keys.BidAuction(),
                                                keying.options(COUNT_OPERATOR))
                                        .window(windows)
                                        .aggregate(new CountBids(), new EmitAuctionBids()),
                                COUNT_OPERATOR)
                        : keying.plain(
                                in.bids()
                                        .keyBy(new Keys.BidAuction())
                                        .window(windows)
                                        .aggregate(new CountBids(), new EmitAuctionBids()),
                                COUNT_OPERATOR);
        // A count of window [s, e) carries timestamp e - 1, so all counts of one window land in
        // the same tumbling pane of the slide's size.
        SingleOutputStreamOperator<HotAuction> hottest =
                counts.windowAll(TumblingEventTimeWindows.of(windowSlide))
                        .process(new Hottest())
                        .name(HOTTEST_OPERATOR)
                        .uid(HOTTEST_OPERATOR)
                        .setParallelism(1);
        return new Result(counts, hottest);
    }

    /** (count, newest creation timestamp) of an auction's bids. */
    static final class CountBids
            implements AggregateFunction<Bid, Tuple2<Long, Long>, Tuple2<Long, Long>> {
        @Override
        public Tuple2<Long, Long> createAccumulator() {
            return Tuple2.of(0L, Long.MIN_VALUE);
        }

        @Override
        public Tuple2<Long, Long> add(Bid bid, Tuple2<Long, Long> acc) {
            acc.f0 += 1;
            acc.f1 = Math.max(acc.f1, bid.dateTime);
            return acc;
        }

        @Override
        public Tuple2<Long, Long> getResult(Tuple2<Long, Long> acc) {
            return acc;
        }

        @Override
        public Tuple2<Long, Long> merge(Tuple2<Long, Long> a, Tuple2<Long, Long> b) {
            return Tuple2.of(a.f0 + b.f0, Math.max(a.f1, b.f1));
        }
    }

    /** Adds the auction and the window to the count. */
    static final class EmitAuctionBids
            extends ProcessWindowFunction<Tuple2<Long, Long>, AuctionBids, Long, TimeWindow> {
        @Override
        public void process(
                Long auction,
                Context context,
                Iterable<Tuple2<Long, Long>> counts,
                Collector<AuctionBids> out) {
            Tuple2<Long, Long> count = counts.iterator().next();
            out.collect(
                    new AuctionBids(
                            auction,
                            context.window().getStart(),
                            context.window().getEnd(),
                            count.f0,
                            count.f1));
        }
    }

    /** Per sliding window: the most bids, ties to the smallest auction id. */
    static final class Hottest
            extends ProcessAllWindowFunction<AuctionBids, HotAuction, TimeWindow> {
        @Override
        public void process(
                Context context, Iterable<AuctionBids> counts, Collector<HotAuction> out) {
            // Normally one sliding window per pane; grouping keeps it right for any size/slide.
            Map<Long, AuctionBids> best = new TreeMap<>();
            for (AuctionBids count : counts) {
                best.merge(count.windowStart(), count, Hottest::hotter);
            }
            for (AuctionBids hot : best.values()) {
                out.collect(
                        new HotAuction(
                                hot.windowStart(),
                                hot.windowEnd(),
                                hot.auction(),
                                hot.bids(),
                                hot.newestCreation()));
            }
        }

        private static AuctionBids hotter(AuctionBids a, AuctionBids b) {
            if (a.bids() != b.bids()) {
                return a.bids() > b.bids() ? a : b;
            }
            return a.auction() <= b.auction() ? a : b;
        }
    }
}
