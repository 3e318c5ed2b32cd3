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
 * Sent by the coordinator to every router subtask to start a handover.
 *
 * @param handoverId the handover
 * @param plan the moves, validated by the coordinator against the table at {@code
 *     plan.basedOnEpoch()}
 * @param newEpoch the routing table epoch after the handover; always {@code plan.basedOnEpoch() +
 *     1}
 */
public record HandoverCommand(HandoverId handoverId, HandoverPlan plan, long newEpoch)
        implements Serializable {

    private static final long serialVersionUID = 1L;

    /** Validates the fields; records re-run this on deserialization too. */
    public HandoverCommand {
        Objects.requireNonNull(handoverId, "handoverId: null (expected: a HandoverId)");
        Objects.requireNonNull(plan, "plan: null (expected: a HandoverPlan)");
        EpochChecks.checkNewEpoch(newEpoch, plan);
    }
}
