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

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rhino.benchmarks.nexmark.generator.GeneratorConfig;
import io.rhino.benchmarks.nexmark.generator.NexmarkEvents;
import java.io.IOException;
import java.util.List;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/** Wire sizes and round trips of the codec and of the Flink serializers built on it. */
class NexmarkCodecTest {

    private static final NexmarkEvents EVENTS =
            NexmarkEvents.generate(GeneratorConfig.paper(7, 1000), 500);

    @Test
    void defaultSizesAreThePapers() {
        assertThat(NexmarkCodec.encode(EVENTS.persons().get(0))).hasSize(206);
        assertThat(NexmarkCodec.encode(EVENTS.auctions().get(0))).hasSize(269);
        assertThat(NexmarkCodec.encode(EVENTS.bids().get(0))).hasSize(32);
        for (Person person : EVENTS.persons()) {
            assertThat(NexmarkCodec.sizeOf(person)).isEqualTo(206);
        }
        for (Auction auction : EVENTS.auctions()) {
            assertThat(NexmarkCodec.sizeOf(auction)).isEqualTo(269);
        }
        for (Bid bid : EVENTS.bids()) {
            assertThat(NexmarkCodec.sizeOf(bid)).isEqualTo(32);
        }
    }

    @Test
    void codecRoundTripsEveryField() {
        for (Person person : EVENTS.persons()) {
            assertThat(NexmarkCodec.decodePerson(NexmarkCodec.encode(person))).isEqualTo(person);
        }
        for (Auction auction : EVENTS.auctions()) {
            assertThat(NexmarkCodec.decodeAuction(NexmarkCodec.encode(auction))).isEqualTo(auction);
        }
        for (Bid bid : EVENTS.bids()) {
            assertThat(NexmarkCodec.decodeBid(NexmarkCodec.encode(bid))).isEqualTo(bid);
        }
        Person person = EVENTS.persons().get(3);
        assertThat(person.name).isNotEmpty();
        assertThat(person.extra).hasSize(206 - NexmarkCodec.PERSON_FIXED_BYTES);
    }

    @Test
    void paddedBidsAndLongestTextRoundTrip() {
        Bid bid = new Bid(1, 2, 3, 4, new byte[] {9, 8, 7});
        assertThat(NexmarkCodec.encode(bid)).hasSize(35);
        assertThat(NexmarkCodec.decodeBid(NexmarkCodec.encode(bid))).isEqualTo(bid);

        Person full =
                new Person(
                        -1,
                        Long.MAX_VALUE,
                        "x".repeat(NexmarkCodec.NAME_WIDTH),
                        "e".repeat(NexmarkCodec.EMAIL_WIDTH),
                        "1".repeat(NexmarkCodec.CREDIT_CARD_WIDTH),
                        "c".repeat(NexmarkCodec.CITY_WIDTH),
                        "ZZ",
                        new byte[0]);
        assertThat(NexmarkCodec.decodePerson(NexmarkCodec.encode(full))).isEqualTo(full);
    }

    @Test
    void rejectsTextThatWouldNotReadBack() {
        Person tooLong = EVENTS.persons().get(0).copy();
        tooLong.name = "n".repeat(NexmarkCodec.NAME_WIDTH + 1);
        assertThatThrownBy(() -> NexmarkCodec.encode(tooLong))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("longer than");
        Person nonAscii = EVENTS.persons().get(0).copy();
        nonAscii.city = "Zürich";
        assertThatThrownBy(() -> NexmarkCodec.encode(nonAscii))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> NexmarkCodec.decodeBid(new byte[31]))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void flinkFindsTheRecordsTypeInformationWithoutKryo() {
        assertThat(TypeInformation.of(Person.class)).isSameAs(NexmarkTypeInfo.PERSON);
        assertThat(TypeInformation.of(Auction.class)).isSameAs(NexmarkTypeInfo.AUCTION);
        assertThat(TypeInformation.of(Bid.class)).isSameAs(NexmarkTypeInfo.BID);
        assertThat(NexmarkTypeInfo.BID.createSerializer(new SerializerConfigImpl()))
                .isInstanceOf(BidSerializer.class);
    }

    @Test
    void flinkSerializersRoundTripAndAddTwoBytes() throws IOException {
        roundTrip(new PersonSerializer(), EVENTS.persons(), 208);
        roundTrip(new AuctionSerializer(), EVENTS.auctions(), 271);
        roundTrip(new BidSerializer(), EVENTS.bids(), 34);
    }

    private static <T> void roundTrip(TypeSerializer<T> serializer, List<T> records, int bytes)
            throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(1024);
        for (T record : records) {
            serializer.serialize(record, out);
        }
        assertThat(out.length()).isEqualTo(bytes * records.size());

        DataInputDeserializer in =
                new DataInputDeserializer(out.getSharedBuffer(), 0, out.length());
        T reuse = serializer.createInstance();
        for (int i = 0; i < records.size(); i++) {
            T read = i % 2 == 0 ? serializer.deserialize(in) : serializer.deserialize(reuse, in);
            assertThat(read).isEqualTo(records.get(i));
        }

        // copy(view, view) moves the bytes unchanged
        DataInputDeserializer again =
                new DataInputDeserializer(out.getSharedBuffer(), 0, out.length());
        // DataOutputSerializer does not grow in write(DataInputView, int): size it up front
        DataOutputSerializer copied = new DataOutputSerializer(out.length());
        for (int i = 0; i < records.size(); i++) {
            serializer.copy(again, copied);
        }
        assertThat(copied.getCopyOfBuffer()).isEqualTo(out.getCopyOfBuffer());

        assertThat(serializer.copy(records.get(0)))
                .isEqualTo(records.get(0))
                .isNotSameAs(records.get(0));
        assertThat(serializer.duplicate()).isEqualTo(serializer).isNotSameAs(serializer);

        TypeSerializerSnapshot<T> snapshot = serializer.snapshotConfiguration();
        DataOutputSerializer snapshotOut = new DataOutputSerializer(64);
        TypeSerializerSnapshot.writeVersionedSnapshot(snapshotOut, snapshot);
        TypeSerializerSnapshot<T> restored =
                TypeSerializerSnapshot.readVersionedSnapshot(
                        new DataInputDeserializer(snapshotOut.getCopyOfBuffer()),
                        NexmarkCodecTest.class.getClassLoader());
        assertThat(restored.resolveSchemaCompatibility(snapshot).isCompatibleAsIs()).isTrue();
        assertThat(restored.restoreSerializer()).isEqualTo(serializer);
    }
}
