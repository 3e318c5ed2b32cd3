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

package io.rhino.benchmarks.nexmark.generator;

import static org.assertj.core.api.Assertions.assertThat;

import io.rhino.benchmarks.nexmark.model.Auction;
import io.rhino.benchmarks.nexmark.model.Bid;
import io.rhino.benchmarks.nexmark.model.Person;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Proportions, determinism and referential integrity of generated events. */
class NexmarkGeneratorTest {

    private static final GeneratorConfig PAPER = GeneratorConfig.paper(42, 10_000);

    @Test
    void defaultProportionsAreOneThreeFortySix() {
        NexmarkEvents events = NexmarkEvents.generate(PAPER, 50_000);
        assertThat(events.persons()).hasSize(1_000);
        assertThat(events.auctions()).hasSize(3_000);
        assertThat(events.bids()).hasSize(46_000);
    }

    @Test
    void proportionsAreConfigurable() {
        NexmarkEvents events = NexmarkEvents.generate(PAPER.withProportions(2, 1, 7), 1_005);
        // 100 full cycles of 10, then 2 persons, 1 auction and 2 bids
        assertThat(events.persons()).hasSize(202);
        assertThat(events.auctions()).hasSize(101);
        assertThat(events.bids()).hasSize(702);
    }

    @Test
    void sameSeedSameEventsOtherSeedOtherEvents() {
        NexmarkEvents a = NexmarkEvents.generate(PAPER, 5_000);
        NexmarkEvents b = NexmarkEvents.generate(PAPER, 5_000);
        NexmarkEvents c = NexmarkEvents.generate(GeneratorConfig.paper(43, 10_000), 5_000);
        assertThat(b).isEqualTo(a);
        assertThat(c.bids()).isNotEqualTo(a.bids());
        assertThat(c.persons()).isNotEqualTo(a.persons());
    }

    @Test
    void anEventDependsOnlyOnItsIndex() {
        // Three "threads" each taking every third index, in reverse: same events as in order.
        NexmarkEvents sequential = NexmarkEvents.generate(PAPER, 3_000);
        List<Bid> strided = new ArrayList<>();
        NexmarkGenerator generator = new NexmarkGenerator(PAPER);
        Map<Long, Bid> byIndex = new HashMap<>();
        for (int thread = 2; thread >= 0; thread--) {
            for (long index = 2_999 - thread; index >= 0; index -= 3) {
                if (generator.generate(index) == EventKind.BID) {
                    byIndex.put(index, generator.bid().copy());
                }
            }
        }
        byIndex.keySet().stream().sorted().forEach(index -> strided.add(byIndex.get(index)));
        assertThat(strided).isEqualTo(sequential.bids());
    }

    @Test
    void idsAreDenseAndReferencesPointAtEarlierEvents() {
        NexmarkEvents events = NexmarkEvents.generate(PAPER, 20_000);
        for (int i = 0; i < events.persons().size(); i++) {
            assertThat(events.persons().get(i).id).isEqualTo(i);
        }
        for (int i = 0; i < events.auctions().size(); i++) {
            assertThat(events.auctions().get(i).id).isEqualTo(i);
        }
        Map<Long, Long> personCreated = new HashMap<>();
        events.persons().forEach(p -> personCreated.put(p.id, p.dateTime));
        Map<Long, Long> auctionCreated = new HashMap<>();
        events.auctions().forEach(a -> auctionCreated.put(a.id, a.dateTime));
        for (Auction auction : events.auctions()) {
            assertThat(personCreated).containsKey(auction.seller);
            assertThat(personCreated.get(auction.seller)).isLessThanOrEqualTo(auction.dateTime);
            assertThat(auction.expires).isGreaterThan(auction.dateTime);
            assertThat(auction.reserve).isGreaterThanOrEqualTo(auction.initialBid);
        }
        for (Bid bid : events.bids()) {
            assertThat(auctionCreated).containsKey(bid.auction);
            assertThat(auctionCreated.get(bid.auction)).isLessThanOrEqualTo(bid.dateTime);
            assertThat(personCreated).containsKey(bid.bidder);
            assertThat(bid.price).isPositive();
        }
        // uniform over everything so far: old auctions still get bids late in the stream
        List<Bid> lastBids =
                events.bids().subList(events.bids().size() - 2_000, events.bids().size());
        assertThat(lastBids).anyMatch(bid -> bid.auction < 100);
    }

    @Test
    void activeWindowsLimitReferencesToTheNewest() {
        NexmarkEvents events = NexmarkEvents.generate(PAPER.withActive(10, 20), 20_000);
        long auctionsSoFar = 0;
        long personsSoFar = 0;
        NexmarkGenerator generator = new NexmarkGenerator(PAPER.withActive(10, 20));
        for (long index = 0; index < 20_000; index++) {
            switch (generator.generate(index)) {
                case PERSON -> personsSoFar++;
                case AUCTION -> {
                    assertThat(generator.auction().seller)
                            .isBetween(Math.max(0, personsSoFar - 10), personsSoFar - 1);
                    auctionsSoFar++;
                }
                case BID -> {
                    assertThat(generator.bid().auction)
                            .isBetween(Math.max(0, auctionsSoFar - 20), auctionsSoFar - 1);
                    assertThat(generator.bid().bidder)
                            .isBetween(Math.max(0, personsSoFar - 10), personsSoFar - 1);
                }
            }
        }
        assertThat(events.bids()).isNotEmpty();
    }

    @Test
    void syntheticTimestampsFollowTheIndex() {
        NexmarkGenerator generator = new NexmarkGenerator(PAPER);
        long previous = Long.MIN_VALUE;
        for (long index = 0; index < 30_000; index++) {
            generator.generate(index);
            long timestamp =
                    switch (generator.kindOf(index)) {
                        case PERSON -> generator.person().dateTime;
                        case AUCTION -> generator.auction().dateTime;
                        case BID -> generator.bid().dateTime;
                    };
            assertThat(timestamp)
                    .isEqualTo(GeneratorConfig.SYNTHETIC_BASE_MILLIS + index / 10)
                    .isGreaterThanOrEqualTo(previous);
            previous = timestamp;
        }
    }

    @Test
    void zipfKeysConcentrateBidsOnFewAuctions() {
        int events = 100_000;
        long uniformTop = topAuctionBids(NexmarkEvents.generate(PAPER, events));
        NexmarkEvents skewed =
                NexmarkEvents.generate(PAPER.withKeys(KeyDistribution.zipf(1.2, 10_000)), events);
        long skewedTop = topAuctionBids(skewed);
        assertThat(skewedTop).isGreaterThan(20 * uniformTop);
        // rank 0 is the oldest candidate: auction 0 is the hottest
        Map<Long, Long> counts = bidsPerAuction(skewed.bids());
        assertThat(counts.get(0L)).isEqualTo(skewedTop);
        assertThat(counts.get(0L)).isGreaterThan(counts.getOrDefault(1L, 0L));
        Person first = skewed.persons().get(0);
        assertThat(first.id).isZero();
    }

    private static long topAuctionBids(NexmarkEvents events) {
        return bidsPerAuction(events.bids()).values().stream()
                .mapToLong(Long::longValue)
                .max()
                .orElse(0);
    }

    private static Map<Long, Long> bidsPerAuction(List<Bid> bids) {
        Map<Long, Long> counts = new HashMap<>();
        bids.forEach(bid -> counts.merge(bid.auction, 1L, Long::sum));
        return counts;
    }
}
