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
import java.util.Objects;

/**
 * A started handover did not complete within {@link HandoverManagerOptions#timeout()}. The message
 * names the phase and the routers, origins or targets that had not reported.
 */
public final class HandoverTimeoutException extends HandoverFailedException {

    private static final long serialVersionUID = 1L;

    private final HandoverPhase phase;

    /**
     * Creates the exception.
     *
     * @param handoverId the timed-out handover, not null
     * @param phase the phase it was in, not null
     * @param message what timed out and what was missing, not null
     */
    public HandoverTimeoutException(HandoverId handoverId, HandoverPhase phase, String message) {
        super(handoverId, message, null);
        this.phase = Objects.requireNonNull(phase, "phase: null (expected: a HandoverPhase)");
    }

    /** Returns the phase the handover was in when it timed out. */
    public HandoverPhase phase() {
        return phase;
    }
}
