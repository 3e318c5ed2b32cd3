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

import static org.assertj.core.api.Assertions.assertThat;

import io.rhino.benchmarks.nexmark.NexmarkTestClusters;
import io.rhino.benchmarks.nexmark.generator.GeneratorConfig;
import io.rhino.benchmarks.nexmark.generator.NexmarkEvents;
import io.rhino.benchmarks.nexmark.model.Auction;
import io.rhino.benchmarks.nexmark.model.Bid;
import io.rhino.benchmarks.nexmark.model.Person;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Each query's Rhino variant (Rhino keyed streams on the Rhino state backend) gives exactly the
 * plain Flink variant's output multiset, on a small generated input read from in-memory sources;
 * where a brute-force answer is cheap, both also equal it.
 */
class QueryEquivalenceTest {

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = NexmarkTestClusters.twoTaskManagers();

    /** 20,000 events, 100 per second of event time: 200 s, 400 persons, 1,200 auctions. */
    static final NexmarkEvents EVENTS =
            NexmarkEvents.generate(GeneratorConfig.paper(1234, 100), 20_000);

    private static final Duration OUT_OF_ORDERNESS = Duration.ofSeconds(1);
    private static final int PARALLELISM = 3;
    private static final int VNODES = 6;

    static final Duration NBQ5_SIZE = Duration.ofSeconds(20);
    static final Duration NBQ5_SLIDE = Duration.ofSeconds(5);
    static final Duration NBQ8_WINDOW = Duration.ofSeconds(10);
    static final List<Duration> NBQX_GAPS =
            List.of(
                    Duration.ofSeconds(3),
                    Duration.ofSeconds(6),
                    Duration.ofSeconds(9),
                    Duration.ofSeconds(12));
    static final Duration NBQX_TUMBLING = Duration.ofSeconds(24);

    private static List<String> run(
            Variant variant, Function<NexmarkStreams, List<DataStream<?>>> query) throws Exception {
        StreamExecutionEnvironment env = NexmarkTestClusters.environment(variant);
        NexmarkStreams in = NexmarkStreams.fromEvents(env, EVENTS, OUT_OF_ORDERNESS);
        DataStream<?>[] outputs = query.apply(in).toArray(DataStream[]::new);
        // the variants must really differ in how they key: Rhino's gates only in the Rhino job
        if (variant == Variant.RHINO) {
            assertThat(env.getExecutionPlan()).contains("(Rhino gate)");
        } else {
            assertThat(env.getExecutionPlan()).doesNotContain("Rhino");
        }
        return NexmarkTestClusters.collect(outputs);
    }

    private static Keying keying(Variant variant) {
        return new Keying(variant, PARALLELISM, VNODES);
    }

    @Test
    void nbq5() throws Exception {
        List<List<String>> outputs = new ArrayList<>();
        for (Variant variant : Variant.values()) {
            outputs.add(
                    run(
                            variant,
                            in -> {
                                Nbq5.Result result =
                                        Nbq5.build(in, keying(variant), NBQ5_SIZE, NBQ5_SLIDE);
                                return List.of(result.counts(), result.hottest());
                            }));
        }
        List<String> plain = outputs.get(0);
        List<String> rhino = outputs.get(1);

        List<String> expectedCounts = expectedNbq5Counts();
        assertThat(expectedCounts).hasSizeGreaterThan(10_000);
        assertThat(filter(plain, "AuctionBids[")).as("plain counts").isEqualTo(expectedCounts);
        // 200 s of bids in 20 s windows sliding by 5 s: 43 windows
        assertThat(filter(plain, "HotAuction[")).hasSize(43);
        assertSameMultiset(rhino, plain);
    }

    @Test
    void nbq8() throws Exception {
        List<String> plain =
                run(
                        Variant.PLAIN,
                        in -> List.of(Nbq8.build(in, keying(Variant.PLAIN), NBQ8_WINDOW)));
        List<String> rhino =
                run(
                        Variant.RHINO,
                        in -> List.of(Nbq8.build(in, keying(Variant.RHINO), NBQ8_WINDOW)));

        List<String> expected = expectedNbq8();
        assertThat(expected).hasSizeGreaterThan(100);
        assertThat(sorted(plain)).isEqualTo(expected);
        assertSameMultiset(rhino, plain);
    }

    /**
     * NBQ8 with early results. Persons and auctions come from two sources, so which pairs are
     * emitted early depends on how they interleave; the last pair of each seller's window does not:
     * the newest person with the newest auction, i.e. the window's highest auction id. Both
     * variants must end every window on the expected pair, and fill records (a copy of every person
     * and auction in the fill key space) must add state without emitting anything.
     */
    @Test
    void nbq8EarlyResultsEndOnTheNewestPairAndIgnoreFillRecords() throws Exception {
        // each record followed by its fill copy: same time, so the copy is never late
        List<Person> persons = new ArrayList<>();
        EVENTS.persons().forEach(p -> persons.addAll(List.of(p, FillRecords.mark(p.copy()))));
        List<Auction> auctions = new ArrayList<>();
        EVENTS.auctions().forEach(a -> auctions.addAll(List.of(a, FillRecords.mark(a.copy()))));
        NexmarkEvents withFill = new NexmarkEvents(persons, auctions, EVENTS.bids());
        Map<String, Long> expected = lastAuctionPerSellerWindow(expectedNbq8());
        assertThat(expected).hasSizeGreaterThan(50);

        for (Variant variant : Variant.values()) {
            for (NexmarkEvents events : List.of(EVENTS, withFill)) {
                List<String> early = runEarlyNbq8(variant, events);
                assertThat(early)
                        .as("%s, no result of a fill record", variant)
                        .noneMatch(line -> line.startsWith("SellerAuction[person=-"));
                assertThat(lastAuctionPerSellerWindow(early))
                        .as("%s, last pair per seller window", variant)
                        .isEqualTo(expected);
            }
        }
    }

    private static final Pattern SELLER_AUCTION =
            Pattern.compile(
                    "SellerAuction\\[person=(-?\\d+), .*auction=(-?\\d+), .*windowStart=(-?\\d+),.*");

    /** (seller, window start) to the highest auction id of the results for it. */
    private static Map<String, Long> lastAuctionPerSellerWindow(List<String> results) {
        Map<String, Long> last = new TreeMap<>();
        for (String result : results) {
            Matcher m = SELLER_AUCTION.matcher(result);
            assertThat(m.matches()).as("result format: %s", result).isTrue();
            last.merge(m.group(1) + "@" + m.group(3), Long.parseLong(m.group(2)), Math::max);
        }
        return last;
    }

    private static List<String> runEarlyNbq8(Variant variant, NexmarkEvents events)
            throws Exception {
        StreamExecutionEnvironment env = NexmarkTestClusters.environment(variant);
        NexmarkStreams in = NexmarkStreams.fromEvents(env, events, OUT_OF_ORDERNESS);
        return NexmarkTestClusters.collect(Nbq8.buildEarlyFiring(in, keying(variant), NBQ8_WINDOW));
    }

    @Test
    void nbqx() throws Exception {
        List<String> plain =
                run(
                        Variant.PLAIN,
                        in ->
                                List.of(
                                        NbqX.build(
                                                in,
                                                keying(Variant.PLAIN),
                                                NBQX_GAPS,
                                                NBQX_TUMBLING)));
        List<String> rhino =
                run(
                        Variant.RHINO,
                        in ->
                                List.of(
                                        NbqX.build(
                                                in,
                                                keying(Variant.RHINO),
                                                NBQX_GAPS,
                                                NBQX_TUMBLING)));

        assertThat(filter(plain, "AuctionBidMatch[window=tumbling-24s,"))
                .isEqualTo(expectedNbqXTumbling());
        List<Integer> sessionMatches = new ArrayList<>();
        for (Duration gap : NBQX_GAPS) {
            List<String> matches =
                    filter(plain, "AuctionBidMatch[window=" + NbqX.sessionName(gap) + ",");
            assertThat(matches).as("matches of %s", gap).isNotEmpty();
            sessionMatches.add(matches.size());
        }
        // a longer gap merges more: never fewer matches
        assertThat(sessionMatches).isSorted();
        assertSameMultiset(rhino, plain);
    }

    private static void assertSameMultiset(List<String> rhino, List<String> plain) {
        assertThat(plain).isNotEmpty();
        assertThat(sorted(rhino))
                .as("Rhino vs plain Flink output multiset")
                .isEqualTo(sorted(plain));
    }

    private static List<String> filter(List<String> lines, String prefix) {
        return sorted(lines.stream().filter(line -> line.startsWith(prefix)).toList());
    }

    private static List<String> sorted(List<String> lines) {
        return lines.stream().sorted().toList();
    }

    /** Bids per auction and sliding window, counted directly. */
    private static List<String> expectedNbq5Counts() {
        long size = NBQ5_SIZE.toMillis();
        long slide = NBQ5_SLIDE.toMillis();
        Map<List<Long>, long[]> counts = new HashMap<>();
        for (Bid bid : EVENTS.bids()) {
            long lastStart = bid.dateTime - Math.floorMod(bid.dateTime, slide);
            for (long start = lastStart; start > bid.dateTime - size; start -= slide) {
                long[] count =
                        counts.computeIfAbsent(
                                List.of(bid.auction, start), k -> new long[] {0, Long.MIN_VALUE});
                count[0]++;
                count[1] = Math.max(count[1], bid.dateTime);
            }
        }
        List<String> lines = new ArrayList<>();
        counts.forEach(
                (key, count) ->
                        lines.add(
                                new AuctionBids(
                                                key.get(0),
                                                key.get(1),
                                                key.get(1) + size,
                                                count[0],
                                                count[1])
                                        .toString()));
        return sorted(lines);
    }

    /**
     * Person-auction pairs with person.id = seller in the same tumbling window, by nested loops.
     */
    private static List<String> expectedNbq8() {
        long size = NBQ8_WINDOW.toMillis();
        List<String> lines = new ArrayList<>();
        for (Person person : EVENTS.persons()) {
            long start = person.dateTime - Math.floorMod(person.dateTime, size);
            for (Auction auction : EVENTS.auctions()) {
                if (auction.seller == person.id
                        && auction.dateTime >= start
                        && auction.dateTime < start + size) {
                    lines.add(
                            new SellerAuction(
                                            person.id,
                                            person.name,
                                            person.city,
                                            auction.id,
                                            auction.reserve,
                                            start,
                                            start + size,
                                            Math.max(person.dateTime, auction.dateTime))
                                    .toString());
                }
            }
        }
        return sorted(lines);
    }

    /**
     * Auction-bid pairs on the same auction in the same tumbling window, each stamped with the
     * newest creation of that auction's window (the auction and all its bids in the window).
     */
    private static List<String> expectedNbqXTumbling() {
        long size = NBQX_TUMBLING.toMillis();
        Map<Long, Auction> auctions = new HashMap<>();
        EVENTS.auctions().forEach(auction -> auctions.put(auction.id, auction));
        Map<Long, Long> newestInWindow = new HashMap<>();
        for (Bid bid : EVENTS.bids()) {
            Auction auction = auctions.get(bid.auction);
            long start = auction.dateTime - Math.floorMod(auction.dateTime, size);
            if (bid.dateTime >= start && bid.dateTime < start + size) {
                newestInWindow.merge(
                        auction.id, Math.max(auction.dateTime, bid.dateTime), Math::max);
            }
        }
        List<String> lines = new ArrayList<>();
        for (Bid bid : EVENTS.bids()) {
            Auction auction = auctions.get(bid.auction);
            long start = auction.dateTime - Math.floorMod(auction.dateTime, size);
            if (bid.dateTime >= start && bid.dateTime < start + size) {
                lines.add(
                        new AuctionBidMatch(
                                        NbqX.tumblingName(NBQX_TUMBLING),
                                        auction.id,
                                        auction.seller,
                                        bid.bidder,
                                        bid.price,
                                        auction.dateTime,
                                        bid.dateTime,
                                        start,
                                        start + size,
                                        newestInWindow.get(auction.id))
                                .toString());
            }
        }
        assertThat(lines).hasSizeGreaterThan(100);
        return sorted(lines);
    }
}
