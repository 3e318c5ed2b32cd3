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

package io.rhino.benchmarks.nexmark.kafka;

import io.rhino.benchmarks.nexmark.model.Auction;
import io.rhino.benchmarks.nexmark.model.Bid;
import io.rhino.benchmarks.nexmark.model.NexmarkCodec;
import io.rhino.benchmarks.nexmark.model.NexmarkTypeInfo;
import io.rhino.benchmarks.nexmark.model.Person;
import org.apache.flink.api.common.serialization.AbstractDeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;

/** Flink deserialization schemas of Kafka message values in the {@link NexmarkCodec} form. */
public final class NexmarkDeserializers {

    private NexmarkDeserializers() {}

    /** Persons. */
    public static final class PersonSchema extends AbstractDeserializationSchema<Person> {
        @Override
        public Person deserialize(byte[] message) {
            return NexmarkCodec.decodePerson(message);
        }

        @Override
        public TypeInformation<Person> getProducedType() {
            return NexmarkTypeInfo.PERSON;
        }
    }

    /** Auctions. */
    public static final class AuctionSchema extends AbstractDeserializationSchema<Auction> {
        @Override
        public Auction deserialize(byte[] message) {
            return NexmarkCodec.decodeAuction(message);
        }

        @Override
        public TypeInformation<Auction> getProducedType() {
            return NexmarkTypeInfo.AUCTION;
        }
    }

    /** Bids. */
    public static final class BidSchema extends AbstractDeserializationSchema<Bid> {
        @Override
        public Bid deserialize(byte[] message) {
            return NexmarkCodec.decodeBid(message);
        }

        @Override
        public TypeInformation<Bid> getProducedType() {
            return NexmarkTypeInfo.BID;
        }
    }
}
