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

import io.rhino.core.handover.HandoverMarker;
import java.io.IOException;
import org.apache.flink.api.common.typeutils.CompositeTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.util.InstantiationUtil;

/**
 * Serializes {@link RhinoElement}s: a kind byte, the channel, then either the value with the user's
 * serializer or the (rare, small) handover marker with Java serialization.
 */
public final class RhinoElementSerializer<T> extends TypeSerializer<RhinoElement<T>> {

    private static final long serialVersionUID = 1L;
    private static final byte KIND_RECORD = 0;
    private static final byte KIND_MARKER = 1;
    private static final byte KIND_ROUTER_ENDED = 2;

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
        // markers and ends are immutable
        return from.isMarker() || from.isRouterEnded()
                ? from
                : RhinoElement.record(from.channel(), valueSerializer.copy(from.value()));
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
    public void serialize(RhinoElement<T> element, DataOutputView target) throws IOException {
        if (element.isRouterEnded()) {
            target.writeByte(KIND_ROUTER_ENDED);
            target.writeInt(element.channel());
            target.writeInt(element.routerParallelism());
            target.writeInt(element.endedRouter());
        } else if (element.isMarker()) {
            target.writeByte(KIND_MARKER);
            target.writeInt(element.channel());
            target.writeInt(element.routerParallelism());
            byte[] marker = InstantiationUtil.serializeObject(element.marker());
            target.writeInt(marker.length);
            target.write(marker);
        } else {
            target.writeByte(KIND_RECORD);
            target.writeInt(element.channel());
            valueSerializer.serialize(element.value(), target);
        }
    }

    @Override
    public RhinoElement<T> deserialize(DataInputView source) throws IOException {
        byte kind = source.readByte();
        int channel = source.readInt();
        if (kind == KIND_RECORD) {
            return RhinoElement.record(channel, valueSerializer.deserialize(source));
        }
        if (kind == KIND_MARKER) {
            int routerParallelism = source.readInt();
            byte[] marker = new byte[source.readInt()];
            source.readFully(marker);
            try {
                return RhinoElement.marker(
                        channel,
                        InstantiationUtil.deserializeObject(
                                marker, HandoverMarker.class.getClassLoader()),
                        routerParallelism);
            } catch (ClassNotFoundException e) {
                throw new IOException("Cannot read a handover marker", e);
            }
        }
        if (kind == KIND_ROUTER_ENDED) {
            int routerParallelism = source.readInt();
            return RhinoElement.routerEnded(channel, source.readInt(), routerParallelism);
        }
        throw new IOException("Unknown Rhino element kind " + kind);
    }

    @Override
    public RhinoElement<T> deserialize(RhinoElement<T> reuse, DataInputView source)
            throws IOException {
        return deserialize(source);
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
        serialize(deserialize(source), target);
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
