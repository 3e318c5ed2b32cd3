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

import java.io.Serializable;

/**
 * Encoded sizes of the three record types, padding included. The defaults are the paper's: 206 B
 * per person, 269 B per auction, 32 B per bid.
 */
public record RecordSizes(int personBytes, int auctionBytes, int bidBytes) implements Serializable {

    public static final RecordSizes PAPER = new RecordSizes(206, 269, 32);

    public RecordSizes {
        check("person", personBytes, NexmarkCodec.PERSON_FIXED_BYTES);
        check("auction", auctionBytes, NexmarkCodec.AUCTION_FIXED_BYTES);
        check("bid", bidBytes, NexmarkCodec.BID_FIXED_BYTES);
    }

    public int personPadding() {
        return personBytes - NexmarkCodec.PERSON_FIXED_BYTES;
    }

    public int auctionPadding() {
        return auctionBytes - NexmarkCodec.AUCTION_FIXED_BYTES;
    }

    public int bidPadding() {
        return bidBytes - NexmarkCodec.BID_FIXED_BYTES;
    }

    private static void check(String what, int bytes, int fixed) {
        if (bytes < fixed || bytes > fixed + 0xFFFF) {
            throw new IllegalArgumentException(
                    "A "
                            + what
                            + " takes between "
                            + fixed
                            + " and "
                            + (fixed + 0xFFFF)
                            + " bytes, not "
                            + bytes);
        }
    }
}
