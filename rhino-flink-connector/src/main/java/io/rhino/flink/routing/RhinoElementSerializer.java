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

package io.rhino.flink.routing;

import java.io.IOException;
import org.apache.flink.api.common.typeutils.CompositeTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Serializes {@link RhinoElement}s: a kind byte (so that markers can share the format), the
 * channel, then the value with the user's serializer.
 */
public final class RhinoElementSerializer<T> extends TypeSerializer<RhinoElement<T>> {

    private static final long serialVersionUID = 1L;
    private static final byte KIND_RECORD = 0;

    private final TypeSerializer<T> valueSerializer;

    public RhinoElementSerializer(TypeSerializer<T> valueSerializer) {
        this.valueSerializer = valueSerializer;
    }

    TypeSerializer<T> valueSerializer() {
        return valueSerializer;
    }

    @Override
    public boolean isImmutableType() {
        return false;
    }

    @Override
    public TypeSerializer<RhinoElement<T>> duplicate() {
        TypeSerializer<T> duplicate = valueSerializer.duplicate();
        return duplicate == valueSerializer ? this : new RhinoElementSerializer<>(duplicate);
    }

    @Override
    public RhinoElement<T> createInstance() {
        return null;
    }

    @Override
    public RhinoElement<T> copy(RhinoElement<T> from) {
        return RhinoElement.record(from.channel(), valueSerializer.copy(from.value()));
    }

    @Override
    public RhinoElement<T> copy(RhinoElement<T> from, RhinoElement<T> reuse) {
        return copy(from);
    }

    @Override
    public int getLength() {
        return -1;
    }

    @Override
    public void serialize(RhinoElement<T> record, DataOutputView target) throws IOException {
        target.writeByte(KIND_RECORD);
        target.writeInt(record.channel());
        valueSerializer.serialize(record.value(), target);
    }

    @Override
    public RhinoElement<T> deserialize(DataInputView source) throws IOException {
        byte kind = source.readByte();
        if (kind != KIND_RECORD) {
            throw new IOException("Unknown Rhino element kind " + kind);
        }
        int channel = source.readInt();
        return RhinoElement.record(channel, valueSerializer.deserialize(source));
    }

    @Override
    public RhinoElement<T> deserialize(RhinoElement<T> reuse, DataInputView source)
            throws IOException {
        return deserialize(source);
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
        byte kind = source.readByte();
        target.writeByte(kind);
        target.writeInt(source.readInt());
        valueSerializer.copy(source, target);
    }

    @Override
    public boolean equals(Object obj) {
        return obj instanceof RhinoElementSerializer<?> other
                && valueSerializer.equals(other.valueSerializer);
    }

    @Override
    public int hashCode() {
        return valueSerializer.hashCode();
    }

    @Override
    public TypeSerializerSnapshot<RhinoElement<T>> snapshotConfiguration() {
        return new Snapshot<>(this);
    }

    /** Snapshot of the serializer: only its nested value serializer. */
    public static final class Snapshot<T>
            extends CompositeTypeSerializerSnapshot<RhinoElement<T>, RhinoElementSerializer<T>> {

        public Snapshot() {}

        Snapshot(RhinoElementSerializer<T> serializer) {
            super(serializer);
        }

        @Override
        protected int getCurrentOuterSnapshotVersion() {
            return 1;
        }

        @Override
        protected TypeSerializer<?>[] getNestedSerializers(RhinoElementSerializer<T> outer) {
            return new TypeSerializer<?>[] {outer.valueSerializer()};
        }

        @SuppressWarnings("unchecked")
        @Override
        protected RhinoElementSerializer<T> createOuterSerializerWithNestedSerializers(
                TypeSerializer<?>[] nestedSerializers) {
            return new RhinoElementSerializer<>((TypeSerializer<T>) nestedSerializers[0]);
        }
    }
}
