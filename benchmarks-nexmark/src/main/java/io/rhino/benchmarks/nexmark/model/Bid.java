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

package io.rhino.benchmarks.nexmark.model;

import java.util.Arrays;
import java.util.Objects;
import org.apache.flink.api.common.typeinfo.TypeInfo;

/**
 * A NEXMark bid event: {@link #auction} and {@link #bidder} are its keys (a bid has no id of its
 * own). Mutable on purpose: the generator refills one instance per thread. Flink serializes it with
 * {@link BidSerializer} (never Kryo); on the wire it takes {@link NexmarkCodec#BID_FIXED_BYTES}
 * plus {@link #extra} bytes, 32 by default (no padding).
 */
@TypeInfo(NexmarkTypeInfoFactories.BidFactory.class)
public final class Bid {

    /** The auction bid on: an {@link Auction#id}. */
    public long auction;

    /** The person who bids: a {@link Person#id}. */
    public long bidder;

    public long price;

    /** Creation timestamp, epoch ms; also the event time. */
    public long dateTime;

    /** Padding up to the configured record size; empty by default. */
    public byte[] extra = NexmarkCodec.NO_BYTES;

    public Bid() {}

    public Bid(long auction, long bidder, long price, long dateTime, byte[] extra) {
        this.auction = auction;
        this.bidder = bidder;
        this.price = price;
        this.dateTime = dateTime;
        this.extra = extra;
    }

    /** A deep copy (the padding array is copied too). */
    public Bid copy() {
        return new Bid(
                auction,
                bidder,
                price,
                dateTime,
                extra.length == 0 ? NexmarkCodec.NO_BYTES : extra.clone());
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof Bid other)) {
            return false;
        }
        return auction == other.auction
                && bidder == other.bidder
                && price == other.price
                && dateTime == other.dateTime
                && Arrays.equals(extra, other.extra);
    }

    @Override
    public int hashCode() {
        return Objects.hash(auction, bidder, price, dateTime) + 31 * Arrays.hashCode(extra);
    }

    @Override
    public String toString() {
        return "Bid{auction="
                + auction
                + ", bidder="
                + bidder
                + ", price="
                + price
                + ", dateTime="
                + dateTime
                + ", extra="
                + extra.length
                + "B}";
    }
}
