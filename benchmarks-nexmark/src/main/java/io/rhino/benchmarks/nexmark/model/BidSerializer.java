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

import java.nio.ByteBuffer;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;

/** Flink serializer of {@link Bid} in its {@link NexmarkCodec} form. */
public final class BidSerializer extends CodecSerializer<Bid> {

    private static final long serialVersionUID = 1L;

    @Override
    int fixedBytes() {
        return NexmarkCodec.BID_FIXED_BYTES;
    }

    @Override
    int paddingOf(Bid record) {
        return record.extra.length;
    }

    @Override
    void write(Bid record, ByteBuffer out) {
        NexmarkCodec.write(record, out);
    }

    @Override
    Bid read(ByteBuffer in, int length, Bid into) {
        return NexmarkCodec.read(in, length, into);
    }

    @Override
    Bid copyOf(Bid record) {
        return record.copy();
    }

    @Override
    public TypeSerializer<Bid> duplicate() {
        return new BidSerializer();
    }

    @Override
    public Bid createInstance() {
        return new Bid();
    }

    @Override
    public TypeSerializerSnapshot<Bid> snapshotConfiguration() {
        return new Snapshot();
    }

    /** The serializer has no configuration: its snapshot only names it. */
    public static final class Snapshot extends SimpleTypeSerializerSnapshot<Bid> {
        public Snapshot() {
            super(BidSerializer::new);
        }
    }
}
