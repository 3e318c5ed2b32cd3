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

/**
 * Emitted by a router subtask on every downstream channel when it switches to {@code newEpoch}.
 * Records before the marker were routed with the old table, records after it with the new one,
 * which is what lets an origin know when a channel has no more records for a moving vnode.
 *
 * @param handoverId the handover
 * @param newEpoch the routing table epoch the router uses after this marker; always {@code
 *     plan.basedOnEpoch() + 1}
 * @param routerSubtask the index of the emitting router subtask, {@code >= 0}
 * @param plan the moves of the handover
 */
public record HandoverMarker(
        HandoverId handoverId, long newEpoch, int routerSubtask, HandoverPlan plan)
        implements Serializable {

    private static final long serialVersionUID = 1L;

    /** Validates the fields; records re-run this on deserialization too. */
    public HandoverMarker {
        Objects.requireNonNull(handoverId, "handoverId: null (expected: a HandoverId)");
        Objects.requireNonNull(plan, "plan: null (expected: a HandoverPlan)");
        if (routerSubtask < 0) {
            throw new IllegalArgumentException(
                    "routerSubtask: " + routerSubtask + " (expected: >= 0)");
        }
        EpochChecks.checkNewEpoch(newEpoch, plan);
    }
}
