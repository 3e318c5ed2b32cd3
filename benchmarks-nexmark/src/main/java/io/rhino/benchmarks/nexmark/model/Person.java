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

import java.util.Arrays;
import java.util.Objects;
import org.apache.flink.api.common.typeinfo.TypeInfo;

/**
 * A NEXMark new-user event. Mutable on purpose: the generator refills one instance per thread
 * instead of allocating one per event. Flink serializes it with {@link PersonSerializer} (never
 * Kryo); on the wire it takes {@link NexmarkCodec#PERSON_FIXED_BYTES} plus {@link #extra} bytes,
 * 206 by default.
 */
@TypeInfo(NexmarkTypeInfoFactories.PersonFactory.class)
public final class Person {

    /** Primary key. */
    public long id;

    /** Creation timestamp, epoch ms; also the event time. */
    public long dateTime;

    public String name = "";
    public String emailAddress = "";
    public String creditCard = "";
    public String city = "";
    public String state = "";

    /** Padding up to the configured record size; its content has no meaning. */
    public byte[] extra = NexmarkCodec.NO_BYTES;

    public Person() {}

    public Person(
            long id,
            long dateTime,
            String name,
            String emailAddress,
            String creditCard,
            String city,
            String state,
            byte[] extra) {
        this.id = id;
        this.dateTime = dateTime;
        this.name = name;
        this.emailAddress = emailAddress;
        this.creditCard = creditCard;
        this.city = city;
        this.state = state;
        this.extra = extra;
    }

    /** A deep copy (the padding array is copied too). */
    public Person copy() {
        return new Person(id, dateTime, name, emailAddress, creditCard, city, state, extra.clone());
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof Person other)) {
            return false;
        }
        return id == other.id
                && dateTime == other.dateTime
                && name.equals(other.name)
                && emailAddress.equals(other.emailAddress)
                && creditCard.equals(other.creditCard)
                && city.equals(other.city)
                && state.equals(other.state)
                && Arrays.equals(extra, other.extra);
    }

    @Override
    public int hashCode() {
        return Objects.hash(id, dateTime, name, emailAddress, creditCard, city, state)
                + 31 * Arrays.hashCode(extra);
    }

    @Override
    public String toString() {
        return "Person{id="
                + id
                + ", dateTime="
                + dateTime
                + ", name="
                + name
                + ", city="
                + city
                + ", state="
                + state
                + ", extra="
                + extra.length
                + "B}";
    }
}
