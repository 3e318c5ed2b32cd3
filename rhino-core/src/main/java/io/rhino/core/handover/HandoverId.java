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
import java.util.Objects;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * Identifies one handover across the coordinator, routers, origins and targets.
 *
 * <p>The value is restricted to {@code [A-Za-z0-9._-]{1,64}} so it is safe in metric names, log
 * lines and file names.
 *
 * @param value the identifier
 */
public record HandoverId(String value) implements Serializable {

    private static final long serialVersionUID = 1L;

    private static final Pattern VALID = Pattern.compile("[A-Za-z0-9._-]{1,64}");

    /** Validates the value; records re-run this on deserialization too. */
    public HandoverId {
        Objects.requireNonNull(value, "value: null (expected: [A-Za-z0-9._-]{1,64})");
        if (!VALID.matcher(value).matches()) {
            throw new IllegalArgumentException(
                    "value: \"" + value + "\" (expected: [A-Za-z0-9._-]{1,64})");
        }
    }

    /** Returns a new random identifier (a UUID). */
    public static HandoverId random() {
        return new HandoverId(UUID.randomUUID().toString());
    }

    /** Returns the bare value, so that ids read naturally in messages. */
    @Override
    public String toString() {
        return value;
    }
}
