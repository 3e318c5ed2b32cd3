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

import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Flink serializer of a NEXMark record through {@link NexmarkCodec}: the padding length as an
 * unsigned short, then the record's wire form. Records in Flink's state and network buffers thus
 * take their wire size plus two bytes. Holds a scratch buffer, so each copy of the serializer
 * ({@link #duplicate()}) gets its own.
 */
abstract class CodecSerializer<T> extends TypeSerializer<T> {

    private static final long serialVersionUID = 1L;

    private transient ByteBuffer scratch;

    /** Bytes of the record without padding. */
    abstract int fixedBytes();

    abstract int paddingOf(T record);

    abstract void write(T record, ByteBuffer out);

    abstract T read(ByteBuffer in, int length, T into);

    abstract T copyOf(T record);

    @Override
    public boolean isImmutableType() {
        return false;
    }

    @Override
    public T copy(T from) {
        return copyOf(from);
    }

    @Override
    public T copy(T from, T reuse) {
        return copyOf(from);
    }

    @Override
    public int getLength() {
        return -1;
    }

    @Override
    public void serialize(T record, DataOutputView target) throws IOException {
        int padding = paddingOf(record);
        int length = fixedBytes() + padding;
        ByteBuffer buffer = scratch(length);
        write(record, buffer);
        target.writeShort(padding);
        target.write(buffer.array(), 0, length);
    }

    @Override
    public T deserialize(DataInputView source) throws IOException {
        return deserialize(createInstance(), source);
    }

    @Override
    public T deserialize(T reuse, DataInputView source) throws IOException {
        int length = fixedBytes() + source.readUnsignedShort();
        ByteBuffer buffer = scratch(length);
        source.readFully(buffer.array(), 0, length);
        return read(buffer, length, reuse);
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
        int padding = source.readUnsignedShort();
        target.writeShort(padding);
        target.write(source, fixedBytes() + padding);
    }

    @Override
    public boolean equals(Object obj) {
        return obj != null && obj.getClass() == getClass();
    }

    @Override
    public int hashCode() {
        return getClass().hashCode();
    }

    /** The scratch buffer, cleared, with at least {@code length} bytes. */
    private ByteBuffer scratch(int length) {
        if (scratch == null || scratch.capacity() < length) {
            scratch = ByteBuffer.allocate(Math.max(length, 512));
        }
        scratch.clear();
        return scratch;
    }
}
