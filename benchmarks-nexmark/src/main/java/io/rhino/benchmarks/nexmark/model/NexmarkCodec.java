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

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The compact binary form of NEXMark records: fixed-layout fields written with a {@link ByteBuffer}
 * (big-endian), text in fixed-width zero-padded ASCII slots, then the record's padding. A record's
 * size is its fixed part plus its padding, so the padding length is not written: a reader takes it
 * from the encoded length (a Kafka message's length, or the length prefix that the Flink
 * serializers add).
 *
 * <p>Layouts (bytes): person = id 8, dateTime 8, name 24, email 32, credit card 16, city 16, state
 * 2, padding; auction = id 8, dateTime 8, seller 8, category 8, initial bid 8, reserve 8, expires
 * 8, item name 24, description 68, padding; bid = auction 8, bidder 8, price 8, dateTime 8,
 * padding.
 */
public final class NexmarkCodec {

    static final byte[] NO_BYTES = new byte[0];

    public static final int NAME_WIDTH = 24;
    public static final int EMAIL_WIDTH = 32;
    public static final int CREDIT_CARD_WIDTH = 16;
    public static final int CITY_WIDTH = 16;
    public static final int STATE_WIDTH = 2;
    public static final int ITEM_NAME_WIDTH = 24;
    public static final int DESCRIPTION_WIDTH = 68;

    /** Bytes of a person without padding. */
    public static final int PERSON_FIXED_BYTES =
            2 * Long.BYTES
                    + NAME_WIDTH
                    + EMAIL_WIDTH
                    + CREDIT_CARD_WIDTH
                    + CITY_WIDTH
                    + STATE_WIDTH;

    /** Bytes of an auction without padding. */
    public static final int AUCTION_FIXED_BYTES =
            7 * Long.BYTES + ITEM_NAME_WIDTH + DESCRIPTION_WIDTH;

    /** Bytes of a bid without padding. */
    public static final int BID_FIXED_BYTES = 4 * Long.BYTES;

    private NexmarkCodec() {}

    public static int sizeOf(Person person) {
        return PERSON_FIXED_BYTES + person.extra.length;
    }

    public static int sizeOf(Auction auction) {
        return AUCTION_FIXED_BYTES + auction.extra.length;
    }

    public static int sizeOf(Bid bid) {
        return BID_FIXED_BYTES + bid.extra.length;
    }

    /** Writes {@code person} at {@code out}'s position, advancing it by {@link #sizeOf(Person)}. */
    public static void write(Person person, ByteBuffer out) {
        out.putLong(person.id);
        out.putLong(person.dateTime);
        putText(out, person.name, NAME_WIDTH);
        putText(out, person.emailAddress, EMAIL_WIDTH);
        putText(out, person.creditCard, CREDIT_CARD_WIDTH);
        putText(out, person.city, CITY_WIDTH);
        putText(out, person.state, STATE_WIDTH);
        out.put(person.extra);
    }

    /** Writes {@code auction} at {@code out}'s position. */
    public static void write(Auction auction, ByteBuffer out) {
        out.putLong(auction.id);
        out.putLong(auction.dateTime);
        out.putLong(auction.seller);
        out.putLong(auction.category);
        out.putLong(auction.initialBid);
        out.putLong(auction.reserve);
        out.putLong(auction.expires);
        putText(out, auction.itemName, ITEM_NAME_WIDTH);
        putText(out, auction.description, DESCRIPTION_WIDTH);
        out.put(auction.extra);
    }

    /** Writes {@code bid} at {@code out}'s position. */
    public static void write(Bid bid, ByteBuffer out) {
        out.putLong(bid.auction);
        out.putLong(bid.bidder);
        out.putLong(bid.price);
        out.putLong(bid.dateTime);
        out.put(bid.extra);
    }

    public static byte[] encode(Person person) {
        ByteBuffer out = ByteBuffer.allocate(sizeOf(person));
        write(person, out);
        return out.array();
    }

    public static byte[] encode(Auction auction) {
        ByteBuffer out = ByteBuffer.allocate(sizeOf(auction));
        write(auction, out);
        return out.array();
    }

    public static byte[] encode(Bid bid) {
        ByteBuffer out = ByteBuffer.allocate(sizeOf(bid));
        write(bid, out);
        return out.array();
    }

    /** Reads a person of {@code length} bytes (padding included) into {@code into}. */
    public static Person read(ByteBuffer in, int length, Person into) {
        int padding = paddingOf(length, PERSON_FIXED_BYTES, "person");
        into.id = in.getLong();
        into.dateTime = in.getLong();
        into.name = getText(in, NAME_WIDTH);
        into.emailAddress = getText(in, EMAIL_WIDTH);
        into.creditCard = getText(in, CREDIT_CARD_WIDTH);
        into.city = getText(in, CITY_WIDTH);
        into.state = getText(in, STATE_WIDTH);
        into.extra = getPadding(in, padding, into.extra);
        return into;
    }

    /** Reads an auction of {@code length} bytes (padding included) into {@code into}. */
    public static Auction read(ByteBuffer in, int length, Auction into) {
        int padding = paddingOf(length, AUCTION_FIXED_BYTES, "auction");
        into.id = in.getLong();
        into.dateTime = in.getLong();
        into.seller = in.getLong();
        into.category = in.getLong();
        into.initialBid = in.getLong();
        into.reserve = in.getLong();
        into.expires = in.getLong();
        into.itemName = getText(in, ITEM_NAME_WIDTH);
        into.description = getText(in, DESCRIPTION_WIDTH);
        into.extra = getPadding(in, padding, into.extra);
        return into;
    }

    /** Reads a bid of {@code length} bytes (padding included) into {@code into}. */
    public static Bid read(ByteBuffer in, int length, Bid into) {
        int padding = paddingOf(length, BID_FIXED_BYTES, "bid");
        into.auction = in.getLong();
        into.bidder = in.getLong();
        into.price = in.getLong();
        into.dateTime = in.getLong();
        into.extra = getPadding(in, padding, into.extra);
        return into;
    }

    public static Person decodePerson(byte[] bytes) {
        return read(ByteBuffer.wrap(bytes), bytes.length, new Person());
    }

    public static Auction decodeAuction(byte[] bytes) {
        return read(ByteBuffer.wrap(bytes), bytes.length, new Auction());
    }

    public static Bid decodeBid(byte[] bytes) {
        return read(ByteBuffer.wrap(bytes), bytes.length, new Bid());
    }

    private static int paddingOf(int length, int fixed, String what) {
        if (length < fixed) {
            throw new IllegalArgumentException(
                    "A " + what + " needs at least " + fixed + " bytes, got " + length);
        }
        return length - fixed;
    }

    /** The padding, into {@code reuse} when it has the right length (saves an allocation). */
    private static byte[] getPadding(ByteBuffer in, int padding, byte[] reuse) {
        if (in.remaining() < padding) {
            throw new BufferUnderflowException();
        }
        byte[] extra =
                padding == 0 ? NO_BYTES : reuse.length == padding ? reuse : new byte[padding];
        in.get(extra);
        return extra;
    }

    /**
     * Writes {@code text} as ASCII into a slot of {@code width} bytes, zero-filled. Rejects text
     * that would not read back equal rather than truncating it silently.
     */
    static void putText(ByteBuffer out, String text, int width) {
        int length = text.length();
        if (length > width) {
            throw new IllegalArgumentException(
                    "'" + text + "' is longer than its " + width + "-byte field");
        }
        for (int i = 0; i < length; i++) {
            char c = text.charAt(i);
            if (c == 0 || c > 127) {
                throw new IllegalArgumentException("'" + text + "' is not printable ASCII");
            }
            out.put((byte) c);
        }
        for (int i = length; i < width; i++) {
            out.put((byte) 0);
        }
    }

    /** Reads a slot of {@code width} bytes; the text ends at the first zero byte. */
    static String getText(ByteBuffer in, int width) {
        int start = in.position();
        int length = 0;
        while (length < width && in.get(start + length) != 0) {
            length++;
        }
        String text;
        if (in.hasArray()) {
            text =
                    new String(
                            in.array(),
                            in.arrayOffset() + start,
                            length,
                            StandardCharsets.ISO_8859_1);
        } else {
            byte[] bytes = new byte[length];
            in.get(start, bytes);
            text = new String(bytes, StandardCharsets.ISO_8859_1);
        }
        in.position(start + width);
        return text;
    }
}
