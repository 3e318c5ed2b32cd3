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

package io.rhino.core.handover;

import java.io.Serializable;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Sent to the coordinator by a subtask when it has finished its part of a handover.
 *
 * @param handoverId the handover
 * @param subtask the index of the acknowledging subtask, {@code >= 0}
 * @param role what the subtask did in the handover
 * @param timingsMillis named durations or timestamps in milliseconds, for metrics; copied,
 *     iteration order kept, unmodifiable
 */
public record HandoverAck(
        HandoverId handoverId, int subtask, Role role, Map<String, Long> timingsMillis)
        implements Serializable {

    private static final long serialVersionUID = 1L;

    /** The part a subtask plays in a handover. */
    public enum Role {
        /** Switched routing to the new epoch and emitted markers. */
        ROUTER,
        /** Owned moving vnodes before the handover and shipped their state. */
        ORIGIN,
        /** Owns moving vnodes after the handover and installed their state. */
        TARGET
    }

    /** Validates and copies the fields; records re-run this on deserialization too. */
    public HandoverAck {
        Objects.requireNonNull(handoverId, "handoverId: null (expected: a HandoverId)");
        Objects.requireNonNull(role, "role: null (expected: ROUTER, ORIGIN or TARGET)");
        Objects.requireNonNull(timingsMillis, "timingsMillis: null (expected: a map, maybe empty)");
        if (subtask < 0) {
            throw new IllegalArgumentException("subtask: " + subtask + " (expected: >= 0)");
        }
        LinkedHashMap<String, Long> copy = new LinkedHashMap<>();
        timingsMillis.forEach(
                (name, millis) -> {
                    if (name == null || millis == null) {
                        throw new NullPointerException(
                                "timingsMillis: contains "
                                        + name
                                        + "="
                                        + millis
                                        + " (expected: non-null names and values)");
                    }
                    copy.put(name, millis);
                });
        timingsMillis = Collections.unmodifiableMap(copy);
    }
}
