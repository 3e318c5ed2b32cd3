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
import io.rhino.benchmarks.nexmark.model.Person;
import org.apache.flink.api.java.functions.KeySelector;

/** The key selectors of the queries (classes, not lambdas, so Flink sees the key type). */
final class Keys {

    private Keys() {}

    static final class PersonId implements KeySelector<Person, Long> {
        @Override
        public Long getKey(Person person) {
            return person.id;
        }
    }

    static final class AuctionId implements KeySelector<Auction, Long> {
        @Override
        public Long getKey(Auction auction) {
            return auction.id;
        }
    }

    static final class AuctionSeller implements KeySelector<Auction, Long> {
        @Override
        public Long getKey(Auction auction) {
            return auction.seller;
        }
    }

    static final class BidAuction implements KeySelector<Bid, Long> {
        @Override
        public Long getKey(Bid bid) {
            return bid.auction;
        }
    }
}
