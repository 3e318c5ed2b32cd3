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

import java.util.Optional;

/**
 * The phases of one handover. A successful handover passes through every non-{@link #FAILED} phase
 * in declaration order; it may fail in any non-terminal phase.
 */
public enum HandoverPhase {
    /** The coordinator accepted the plan and sent commands to the routers. */
    REQUESTED,
    /** Every router switched to the new epoch and emitted markers downstream. */
    MARKERS_PROPAGATED,
    /** Every origin received markers on all input channels; the moving vnodes are quiescent. */
    ORIGIN_ALIGNED,
    /** Origins shipped the moving vnodes' state. */
    STATE_SHIPPED,
    /** Targets installed the state and serve the moved vnodes. */
    TARGET_INSTALLED,
    /** The handover finished; the new routing table is in force. */
    COMPLETED,
    /** The handover was abandoned; see the state machine for where and why. */
    FAILED;

    /** Returns whether no further transition is possible. */
    public boolean isTerminal() {
        return this == COMPLETED || this == FAILED;
    }

    /** Returns the phase a successful handover enters next, or empty for a terminal phase. */
    public Optional<HandoverPhase> next() {
        switch (this) {
            case REQUESTED:
                return Optional.of(MARKERS_PROPAGATED);
            case MARKERS_PROPAGATED:
                return Optional.of(ORIGIN_ALIGNED);
            case ORIGIN_ALIGNED:
                return Optional.of(STATE_SHIPPED);
            case STATE_SHIPPED:
                return Optional.of(TARGET_INSTALLED);
            case TARGET_INSTALLED:
                return Optional.of(COMPLETED);
            default:
                return Optional.empty();
        }
    }
}
