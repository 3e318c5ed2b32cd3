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

package io.rhino.flink.api;

import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.streaming.api.datastream.CoGroupedStreams.UnionSerializer;
import org.apache.flink.util.TaggedUnion;

/**
 * Type information for the tagged union of two join inputs, serialized by Flink's own serializer.
 */
final class TaggedUnionTypeInfo<T1, T2> extends TypeInformation<TaggedUnion<T1, T2>> {

    private static final long serialVersionUID = 1L;

    private final TypeInformation<T1> firstType;
    private final TypeInformation<T2> secondType;

    TaggedUnionTypeInfo(TypeInformation<T1> firstType, TypeInformation<T2> secondType) {
        this.firstType = firstType;
        this.secondType = secondType;
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
        return 2;
    }

    @Override
    public int getTotalFields() {
        return 2;
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    @Override
    public Class<TaggedUnion<T1, T2>> getTypeClass() {
        return (Class) TaggedUnion.class;
    }

    @Override
    public boolean isKeyType() {
        return false;
    }

    @Override
    public TypeSerializer<TaggedUnion<T1, T2>> createSerializer(SerializerConfig config) {
        return new UnionSerializer<>(
                firstType.createSerializer(config), secondType.createSerializer(config));
    }

    @Override
    public String toString() {
        return "TaggedUnion<" + firstType + ", " + secondType + ">";
    }

    @Override
    public boolean equals(Object obj) {
        return obj instanceof TaggedUnionTypeInfo<?, ?> other
                && firstType.equals(other.firstType)
                && secondType.equals(other.secondType);
    }

    @Override
    public int hashCode() {
        return 31 * firstType.hashCode() + secondType.hashCode();
    }

    @Override
    public boolean canEqual(Object obj) {
        return obj instanceof TaggedUnionTypeInfo;
    }
}
