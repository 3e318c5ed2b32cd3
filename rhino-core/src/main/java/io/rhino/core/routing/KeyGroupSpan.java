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

package io.rhino.core.routing;

import java.io.Serializable;

/**
 * An inclusive, non-empty range of key groups {@code [startKeyGroup, endKeyGroup]}.
 *
 * @param startKeyGroup first key group in the span, {@code >= 0}
 * @param endKeyGroup last key group in the span, {@code >= startKeyGroup}
 */
public record KeyGroupSpan(int startKeyGroup, int endKeyGroup) implements Serializable {

    private static final long serialVersionUID = 1L;

    /** Validates the bounds; records re-run this on deserialization too. */
    public KeyGroupSpan {
        if (startKeyGroup < 0) {
            throw new IllegalArgumentException(
                    "startKeyGroup: " + startKeyGroup + " (expected: >= 0)");
        }
        if (endKeyGroup < startKeyGroup) {
            throw new IllegalArgumentException(
                    "endKeyGroup: "
                            + endKeyGroup
                            + " (expected: >= startKeyGroup="
                            + startKeyGroup
                            + ")");
        }
    }

    /** Returns the number of key groups in the span (at least 1). */
    public int size() {
        return endKeyGroup - startKeyGroup + 1;
    }

    /** Returns whether {@code keyGroup} lies inside the span. */
    public boolean contains(int keyGroup) {
        return keyGroup >= startKeyGroup && keyGroup <= endKeyGroup;
    }

    /** Returns the span as {@code [start-end]}, e.g. {@code [0-255]}. */
    @Override
    public String toString() {
        return "[" + startKeyGroup + "-" + endKeyGroup + "]";
    }
}
