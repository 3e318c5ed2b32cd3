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
 * A NEXMark auction event. Mutable on purpose: the generator refills one instance per thread. Flink
 * serializes it with {@link AuctionSerializer} (never Kryo); on the wire it takes {@link
 * NexmarkCodec#AUCTION_FIXED_BYTES} plus {@link #extra} bytes, 269 by default.
 */
@TypeInfo(NexmarkTypeInfoFactories.AuctionFactory.class)
public final class Auction {

    /** Primary key. */
    public long id;

    /** Creation timestamp, epoch ms; also the event time. */
    public long dateTime;

    /** The person who sells: a {@link Person#id}. */
    public long seller;

    public long category;
    public long initialBid;
    public long reserve;

    /** When the auction closes, epoch ms. */
    public long expires;

    public String itemName = "";
    public String description = "";

    /** Padding up to the configured record size; its content has no meaning. */
    public byte[] extra = NexmarkCodec.NO_BYTES;

    public Auction() {}

    public Auction(
            long id,
            long dateTime,
            long seller,
            long category,
            long initialBid,
            long reserve,
            long expires,
            String itemName,
            String description,
            byte[] extra) {
        this.id = id;
        this.dateTime = dateTime;
        this.seller = seller;
        this.category = category;
        this.initialBid = initialBid;
        this.reserve = reserve;
        this.expires = expires;
        this.itemName = itemName;
        this.description = description;
        this.extra = extra;
    }

    /** A deep copy (the padding array is copied too). */
    public Auction copy() {
        return new Auction(
                id,
                dateTime,
                seller,
                category,
                initialBid,
                reserve,
                expires,
                itemName,
                description,
                extra.clone());
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof Auction other)) {
            return false;
        }
        return id == other.id
                && dateTime == other.dateTime
                && seller == other.seller
                && category == other.category
                && initialBid == other.initialBid
                && reserve == other.reserve
                && expires == other.expires
                && itemName.equals(other.itemName)
                && description.equals(other.description)
                && Arrays.equals(extra, other.extra);
    }

    @Override
    public int hashCode() {
        return Objects.hash(
                        id,
                        dateTime,
                        seller,
                        category,
                        initialBid,
                        reserve,
                        expires,
                        itemName,
                        description)
                + 31 * Arrays.hashCode(extra);
    }

    @Override
    public String toString() {
        return "Auction{id="
                + id
                + ", dateTime="
                + dateTime
                + ", seller="
                + seller
                + ", category="
                + category
                + ", reserve="
                + reserve
                + ", expires="
                + expires
                + ", extra="
                + extra.length
                + "B}";
    }
}
