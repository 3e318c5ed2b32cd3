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

/** Flink serializer of {@link Person} in its {@link NexmarkCodec} form. */
public final class PersonSerializer extends CodecSerializer<Person> {

    private static final long serialVersionUID = 1L;

    @Override
    int fixedBytes() {
        return NexmarkCodec.PERSON_FIXED_BYTES;
    }

    @Override
    int paddingOf(Person record) {
        return record.extra.length;
    }

    @Override
    void write(Person record, ByteBuffer out) {
        NexmarkCodec.write(record, out);
    }

    @Override
    Person read(ByteBuffer in, int length, Person into) {
        return NexmarkCodec.read(in, length, into);
    }

    @Override
    Person copyOf(Person record) {
        return record.copy();
    }

    @Override
    public TypeSerializer<Person> duplicate() {
        return new PersonSerializer();
    }

    @Override
    public Person createInstance() {
        return new Person();
    }

    @Override
    public TypeSerializerSnapshot<Person> snapshotConfiguration() {
        return new Snapshot();
    }

    /** The serializer has no configuration: its snapshot only names it. */
    public static final class Snapshot extends SimpleTypeSerializerSnapshot<Person> {
        public Snapshot() {
            super(PersonSerializer::new);
        }
    }
}
