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
import io.rhino.core.handover.HandoverStateMachine;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * How an accepted handover ended. The future returned by {@link HandoverManager#handover} completes
 * normally with a result for every accepted handover, whether it completed or failed; it completes
 * exceptionally only when the request was refused up front.
 *
 * @param id the handover
 * @param plan its moves
 * @param outcome whether it completed or failed
 * @param newEpoch the routing table epoch it produced ({@code plan.basedOnEpoch() + 1}), or {@code
 *     -1} if it failed
 * @param phaseDurationsMillis for every phase reached, in order, the milliseconds it took to get
 *     there from the previous one ({@code REQUESTED} maps to 0); unmodifiable, iteration order kept
 * @param totalMillis milliseconds from start (commands sent to the routers) to the end; 0 for a
 *     handover that failed before it started
 * @param failedIn for a failed handover, the phase it was in; empty otherwise
 * @param failureCause for a failed handover, why; empty otherwise
 */
public record HandoverResult(
        HandoverId id,
        HandoverPlan plan,
        Outcome outcome,
        long newEpoch,
        Map<HandoverPhase, Long> phaseDurationsMillis,
        long totalMillis,
        Optional<HandoverPhase> failedIn,
        Optional<String> failureCause) {

    /** How a handover ended. */
    public enum Outcome {
        /** Every router, origin and target finished; the new routing table is in force. */
        COMPLETED,
        /** The handover was abandoned; the routing table stayed at the plan's epoch. */
        FAILED
    }

    /** Validates the fields and copies the durations. */
    public HandoverResult {
        Objects.requireNonNull(id, "id: null (expected: a HandoverId)");
        Objects.requireNonNull(plan, "plan: null (expected: a HandoverPlan)");
        Objects.requireNonNull(outcome, "outcome: null (expected: COMPLETED or FAILED)");
        Objects.requireNonNull(
                phaseDurationsMillis, "phaseDurationsMillis: null (expected: a map, maybe empty)");
        Objects.requireNonNull(failedIn, "failedIn: null (expected: an Optional)");
        Objects.requireNonNull(failureCause, "failureCause: null (expected: an Optional)");
        if (totalMillis < 0) {
            throw new IllegalArgumentException("totalMillis: " + totalMillis + " (expected: >= 0)");
        }
        if (outcome == Outcome.COMPLETED) {
            long expected = plan.basedOnEpoch() + 1;
            if (newEpoch != expected) {
                throw new IllegalArgumentException(
                        "newEpoch: "
                                + newEpoch
                                + " (expected: plan.basedOnEpoch()+1="
                                + expected
                                + " for a completed handover)");
            }
            if (failedIn.isPresent() || failureCause.isPresent()) {
                throw new IllegalArgumentException(
                        "failedIn: "
                                + failedIn
                                + ", failureCause: "
                                + failureCause
                                + " (expected: both empty for a completed handover)");
            }
        } else {
            if (newEpoch != -1) {
                throw new IllegalArgumentException(
                        "newEpoch: " + newEpoch + " (expected: -1 for a failed handover)");
            }
            if (failedIn.isEmpty() || failureCause.isEmpty()) {
                throw new IllegalArgumentException(
                        "failedIn: "
                                + failedIn
                                + ", failureCause: "
                                + failureCause
                                + " (expected: both present for a failed handover)");
            }
        }
        phaseDurationsMillis =
                Collections.unmodifiableMap(new LinkedHashMap<>(phaseDurationsMillis));
    }

    /** Returns whether the handover completed. */
    public boolean isCompleted() {
        return outcome == Outcome.COMPLETED;
    }

    /** Returns the result of a handover whose state machine reached COMPLETED. */
    static HandoverResult completed(HandoverStateMachine machine) {
        return new HandoverResult(
                machine.id(),
                machine.plan(),
                Outcome.COMPLETED,
                machine.plan().basedOnEpoch() + 1,
                machine.phaseDurationsMillis(),
                machine.totalMillis(),
                Optional.empty(),
                Optional.empty());
    }

    /** Returns the result of a handover whose state machine reached FAILED. */
    static HandoverResult failed(HandoverStateMachine machine) {
        return new HandoverResult(
                machine.id(),
                machine.plan(),
                Outcome.FAILED,
                -1,
                machine.phaseDurationsMillis(),
                machine.totalMillis(),
                Optional.of(machine.failedIn()),
                machine.failureCause());
    }

    /** Returns the result of a handover that failed while queued, before it sent any command. */
    static HandoverResult failedBeforeStart(HandoverId id, HandoverPlan plan, String cause) {
        return new HandoverResult(
                id,
                plan,
                Outcome.FAILED,
                -1,
                Map.of(HandoverPhase.REQUESTED, 0L),
                0,
                Optional.of(HandoverPhase.REQUESTED),
                Optional.of(cause));
    }
}
