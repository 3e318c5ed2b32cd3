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

import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.util.function.SerializableSupplier;

/**
 * Type information of a NEXMark record: an atomic type with its own {@link CodecSerializer}, so
 * Flink never falls back to Kryo for the records.
 */
public final class NexmarkTypeInfo<T> extends TypeInformation<T> {

    private static final long serialVersionUID = 1L;

    public static final NexmarkTypeInfo<Person> PERSON =
            new NexmarkTypeInfo<>(Person.class, PersonSerializer::new);
    public static final NexmarkTypeInfo<Auction> AUCTION =
            new NexmarkTypeInfo<>(Auction.class, AuctionSerializer::new);
    public static final NexmarkTypeInfo<Bid> BID =
            new NexmarkTypeInfo<>(Bid.class, BidSerializer::new);

    private final Class<T> type;
    private final SerializableSupplier<TypeSerializer<T>> serializer;

    private NexmarkTypeInfo(Class<T> type, SerializableSupplier<TypeSerializer<T>> serializer) {
        this.type = type;
        this.serializer = serializer;
    }

    @Override
    public boolean isBasicType() {
        return false;
    }

    @Override
    public boolean isTupleType() {
        return false;
    }

    @Override
    public int getArity() {
        return 1;
    }

    @Override
    public int getTotalFields() {
        return 1;
    }

    @Override
    public Class<T> getTypeClass() {
        return type;
    }

    @Override
    public boolean isKeyType() {
        return false;
    }

    @Override
    public TypeSerializer<T> createSerializer(SerializerConfig config) {
        return serializer.get();
    }

    @Override
    public String toString() {
        return "Nexmark<" + type.getSimpleName() + ">";
    }

    @Override
    public boolean equals(Object obj) {
        return obj instanceof NexmarkTypeInfo<?> other && other.type == type;
    }

    @Override
    public int hashCode() {
        return type.hashCode();
    }

    @Override
    public boolean canEqual(Object obj) {
        return obj instanceof NexmarkTypeInfo;
    }
}
