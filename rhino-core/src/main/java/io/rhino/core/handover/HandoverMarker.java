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
 * @param numVnodes how many vnodes the plan's vnode numbers count from (the router's layout), so
 *     that a gate restored into another count knows a marker replayed from before the re-cut; 0
 *     where unknown (a marker written before markers carried it)
 */
public record HandoverMarker(
        HandoverId handoverId, long newEpoch, int routerSubtask, HandoverPlan plan, int numVnodes)
        implements Serializable {

    private static final long serialVersionUID = 1L;

    /**
     * Validates the fields; records re-run this on deserialization too, where a marker serialized
     * before {@code numVnodes} existed reads it as 0.
     */
    public HandoverMarker {
        Objects.requireNonNull(handoverId, "handoverId: null (expected: a HandoverId)");
        Objects.requireNonNull(plan, "plan: null (expected: a HandoverPlan)");
        if (routerSubtask < 0) {
            throw new IllegalArgumentException(
                    "routerSubtask: " + routerSubtask + " (expected: >= 0)");
        }
        if (numVnodes < 0) {
            throw new IllegalArgumentException(
                    "numVnodes: " + numVnodes + " (expected: >= 1, or 0 where unknown)");
        }
        EpochChecks.checkNewEpoch(newEpoch, plan);
    }

    /** A marker that does not say how many vnodes its plan counts from. */
    public HandoverMarker(
            HandoverId handoverId, long newEpoch, int routerSubtask, HandoverPlan plan) {
        this(handoverId, newEpoch, routerSubtask, plan, 0);
    }

    /**
     * Whether this marker counts its vnodes from another number than {@code restoredVnodes}: it was
     * emitted before a restore re-cut the vnodes, so it is replayed from the restored checkpoint.
     */
    public boolean predatesRecutTo(int restoredVnodes) {
        return numVnodes > 0 && numVnodes != restoredVnodes;
    }
}
