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
import java.time.Duration;
import org.apache.flink.api.common.eventtime.SerializableTimestampAssigner;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;

/**
 * Event time of the NEXMark records: the creation timestamp, with watermarks bounded by an allowed
 * out-of-orderness.
 */
public final class EventTimeWatermarks {

    private EventTimeWatermarks() {}

    public static WatermarkStrategy<Person> persons(Duration outOfOrderness) {
        return WatermarkStrategy.<Person>forBoundedOutOfOrderness(outOfOrderness)
                .withTimestampAssigner(new PersonTime());
    }

    public static WatermarkStrategy<Auction> auctions(Duration outOfOrderness) {
        return WatermarkStrategy.<Auction>forBoundedOutOfOrderness(outOfOrderness)
                .withTimestampAssigner(new AuctionTime());
    }

    public static WatermarkStrategy<Bid> bids(Duration outOfOrderness) {
        return WatermarkStrategy.<Bid>forBoundedOutOfOrderness(outOfOrderness)
                .withTimestampAssigner(new BidTime());
    }

    private static final class PersonTime implements SerializableTimestampAssigner<Person> {
        @Override
        public long extractTimestamp(Person person, long recordTimestamp) {
            return person.dateTime;
        }
    }

    private static final class AuctionTime implements SerializableTimestampAssigner<Auction> {
        @Override
        public long extractTimestamp(Auction auction, long recordTimestamp) {
            return auction.dateTime;
        }
    }

    private static final class BidTime implements SerializableTimestampAssigner<Bid> {
        @Override
        public long extractTimestamp(Bid bid, long recordTimestamp) {
            return bid.dateTime;
        }
    }
}
