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

import io.rhino.core.handover.HandoverId;
import io.rhino.core.handover.HandoverPhase;
import io.rhino.core.handover.HandoverPlan;
import java.util.Objects;

/**
 * A snapshot of a handover that has not ended yet, as returned by {@link
 * HandoverManager#currentHandover()}.
 *
 * @param id the handover
 * @param plan its moves
 * @param phase the phase it reached; {@link HandoverPhase#REQUESTED} while it is queued
 * @param queuedBehindCheckpoint whether it waits for a checkpoint to end before it can start
 * @param elapsedMillis for a started handover the milliseconds since it started, for a queued one
 *     the milliseconds since it was requested; {@code >= 0}
 */
public record HandoverStatus(
        HandoverId id,
        HandoverPlan plan,
        HandoverPhase phase,
        boolean queuedBehindCheckpoint,
        long elapsedMillis) {

    /** Validates the fields. */
    public HandoverStatus {
        Objects.requireNonNull(id, "id: null (expected: a HandoverId)");
        Objects.requireNonNull(plan, "plan: null (expected: a HandoverPlan)");
        Objects.requireNonNull(phase, "phase: null (expected: a HandoverPhase)");
        if (phase.isTerminal()) {
            throw new IllegalArgumentException(
                    "phase: "
                            + phase
                            + " (expected: a non-terminal phase, the handover is running)");
        }
        if (elapsedMillis < 0) {
            throw new IllegalArgumentException(
                    "elapsedMillis: " + elapsedMillis + " (expected: >= 0)");
        }
    }
}
