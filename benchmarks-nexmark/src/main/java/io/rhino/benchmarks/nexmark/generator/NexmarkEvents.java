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
import java.util.ArrayList;
import java.util.List;

/** The events of indexes [0, count) of a generator, split by stream, in index order. */
public record NexmarkEvents(List<Person> persons, List<Auction> auctions, List<Bid> bids) {

    /** Generates events 0 to {@code count - 1} of {@code config}. */
    public static NexmarkEvents generate(GeneratorConfig config, long count) {
        NexmarkGenerator generator = new NexmarkGenerator(config);
        List<Person> persons = new ArrayList<>();
        List<Auction> auctions = new ArrayList<>();
        List<Bid> bids = new ArrayList<>();
        for (long index = 0; index < count; index++) {
            switch (generator.generate(index)) {
                case PERSON -> persons.add(generator.person().copy());
                case AUCTION -> auctions.add(generator.auction().copy());
                case BID -> bids.add(generator.bid().copy());
            }
        }
        return new NexmarkEvents(persons, auctions, bids);
    }

    public int size() {
        return persons.size() + auctions.size() + bids.size();
    }
}
