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

import java.util.Objects;

/**
 * What travels from a Rhino router to a Rhino gate: a record with the channel (target subtask) the
 * router chose for it. Later protocol messages (handover markers) travel the same way.
 */
public final class RhinoElement<T> {

    private final int channel;
    private final T value;

    private RhinoElement(int channel, T value) {
        this.channel = channel;
        this.value = value;
    }

    public static <T> RhinoElement<T> record(int channel, T value) {
        return new RhinoElement<>(channel, Objects.requireNonNull(value, "value"));
    }

    public int channel() {
        return channel;
    }

    public T value() {
        return value;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RhinoElement<?> other
                && channel == other.channel
                && Objects.equals(value, other.value);
    }

    @Override
    public int hashCode() {
        return 31 * channel + Objects.hashCode(value);
    }

    @Override
    public String toString() {
        return "RhinoElement{channel=" + channel + ", value=" + value + "}";
    }
}
