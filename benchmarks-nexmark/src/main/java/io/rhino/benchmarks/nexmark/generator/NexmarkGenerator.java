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

import io.rhino.benchmarks.nexmark.model.Auction;
import io.rhino.benchmarks.nexmark.model.Bid;
import io.rhino.benchmarks.nexmark.model.Person;

/**
 * Makes NEXMark events as a pure function of (config, global event index). Events come in cycles of
 * {@code persons + auctions + bids} (1:3:46 by default): in each cycle the persons first, then the
 * auctions, then the bids. Ids follow from the index (the n-th person has id n), so every auction's
 * seller and every bid's auction and bidder were created at a smaller index, and several producer
 * threads can each take every T-th index without sharing anything.
 *
 * <p>Not thread-safe: {@link #generate(long)} refills one {@link Person}, {@link Auction} or {@link
 * Bid} held by the generator (no allocation per event); copy it to keep it.
 */
public final class NexmarkGenerator {

    private static final long MAX_AUCTION_MILLIS = 2 * 60 * 60 * 1000L;

    private final GeneratorConfig config;
    private final KeySampler sampler;
    private final EventRandom random = new EventRandom();
    private final Person person = new Person();
    private final Auction auction = new Auction();
    private final Bid bid = new Bid();

    public NexmarkGenerator(GeneratorConfig config) {
        this.config = config;
        this.sampler = KeySampler.of(config.keys());
        person.extra = new byte[config.sizes().personPadding()];
        auction.extra = new byte[config.sizes().auctionPadding()];
        bid.extra = new byte[config.sizes().bidPadding()];
    }

    public GeneratorConfig config() {
        return config;
    }

    /** The kind of event {@code index}, without generating it. */
    public EventKind kindOf(long index) {
        long offset = index % config.cycle();
        if (offset < config.persons()) {
            return EventKind.PERSON;
        }
        return offset < config.persons() + config.auctions() ? EventKind.AUCTION : EventKind.BID;
    }

    /**
     * Generates event {@code index} into {@link #person()}, {@link #auction()} or {@link #bid()}
     * and returns which one.
     */
    public EventKind generate(long index) {
        random.reset(config.seed(), index);
        long timestamp = config.timestamps().timestampOf(index);
        EventKind kind = kindOf(index);
        switch (kind) {
            case PERSON -> fillPerson(index, timestamp);
            case AUCTION -> fillAuction(index, timestamp);
            case BID -> fillBid(index, timestamp);
        }
        return kind;
    }

    public Person person() {
        return person;
    }

    public Auction auction() {
        return auction;
    }

    public Bid bid() {
        return bid;
    }

    /** Persons created at indexes below {@code index}. */
    long personsBefore(long index) {
        long cycles = index / config.cycle();
        long offset = index % config.cycle();
        return cycles * config.persons() + Math.min(offset, config.persons());
    }

    /** Auctions created at indexes below {@code index}. */
    long auctionsBefore(long index) {
        long cycles = index / config.cycle();
        long offset = index % config.cycle() - config.persons();
        return cycles * config.auctions() + Math.max(0, Math.min(offset, config.auctions()));
    }

    private void fillPerson(long index, long timestamp) {
        person.id = personsBefore(index);
        person.dateTime = timestamp;
        person.name = pick(TextPools.NAMES);
        person.emailAddress = pick(TextPools.EMAILS);
        person.creditCard = pick(TextPools.CREDIT_CARDS);
        person.city = pick(TextPools.CITIES);
        person.state = pick(TextPools.STATES);
        random.nextBytes(person.extra);
    }

    private void fillAuction(long index, long timestamp) {
        auction.id = auctionsBefore(index);
        auction.dateTime = timestamp;
        auction.seller = reference(personsBefore(index), config.activePersons());
        auction.category = 10 + random.nextLong(5);
        auction.initialBid = 1 + random.nextLong(1_000);
        auction.reserve = auction.initialBid + random.nextLong(1_000);
        auction.expires = timestamp + 1 + random.nextLong(MAX_AUCTION_MILLIS);
        auction.itemName = pick(TextPools.ITEM_NAMES);
        auction.description = pick(TextPools.DESCRIPTIONS);
        random.nextBytes(auction.extra);
    }

    private void fillBid(long index, long timestamp) {
        bid.auction = reference(auctionsBefore(index), config.activeAuctions());
        bid.bidder = reference(personsBefore(index), config.activePersons());
        bid.price = 1 + random.nextLong(100_000);
        bid.dateTime = timestamp;
        random.nextBytes(bid.extra);
    }

    /** An id among the {@code count} created so far, or among the newest {@code active} of them. */
    private long reference(long count, long active) {
        long candidates = active == 0 ? count : Math.min(count, active);
        return count - candidates + sampler.sample(random, candidates);
    }

    private String pick(String[] pool) {
        return pool[(int) random.nextLong(pool.length)];
    }
}
