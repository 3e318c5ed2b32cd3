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

package io.rhino.handover;

import java.io.Serializable;

/**
 * The exported state of one vnode, reported by its origin and forwarded by the {@link
 * HandoverManager} to its target.
 *
 * <p>The manager never looks inside {@link #payload()}: it is whatever the Flink adapter needs to
 * install the vnode on the target (e.g. a state handle). It may be null when there is nothing to
 * send.
 *
 * @param vnode the moved vnode, {@code >= 0}
 * @param fromSubtask the origin subtask that exported it, {@code >= 0}
 * @param toSubtask the target subtask that installs it, {@code >= 0} and {@code != fromSubtask}
 * @param payload the opaque exported state, may be null
 */
public record ShippedVnode(int vnode, int fromSubtask, int toSubtask, Serializable payload)
        implements Serializable {

    private static final long serialVersionUID = 1L;

    /** Validates the indices; records re-run this on deserialization too. */
    public ShippedVnode {
        if (vnode < 0) {
            throw new IllegalArgumentException("vnode: " + vnode + " (expected: >= 0)");
        }
        if (fromSubtask < 0) {
            throw new IllegalArgumentException("fromSubtask: " + fromSubtask + " (expected: >= 0)");
        }
        if (toSubtask < 0 || toSubtask == fromSubtask) {
            throw new IllegalArgumentException(
                    "toSubtask: "
                            + toSubtask
                            + " (expected: >= 0 and != fromSubtask="
                            + fromSubtask
                            + ")");
        }
    }
}
