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
import java.util.Objects;
import java.util.Optional;

/**
 * A handover request was refused; nothing changed. {@link #reason()} says whether waiting helps:
 * another handover in flight or queued, a checkpoint in the way, or a job that is restarting pass;
 * an id already taken, or an input that ended, never do.
 */
public final class HandoverRejectedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** Why a request was refused, and so whether retrying it can succeed. */
    public enum Reason {
        /** Another handover runs on the operator: retry once {@link #blockingHandover()} ended. */
        BUSY(true),
        /** A checkpoint is in flight and no more handovers may wait for it: retry when it ended. */
        CHECKPOINT(true),
        /** The job is failing over or restarting: retry once it runs again. */
        SUSPENDED(true),
        /** The handover id was used before on this operator: retrying it never succeeds. */
        ID_TAKEN(false),
        /** The operator's input ended (bounded input): no handover can run any more. */
        INPUT_ENDED(false);

        private final boolean passes;

        Reason(boolean passes) {
            this.passes = passes;
        }

        /** Whether the same request can succeed later, once what refused it passed. */
        public boolean passes() {
            return passes;
        }
    }

    private final Reason reason;
    private final HandoverId blockingHandover;

    /**
     * Creates the exception.
     *
     * @param reason why, not null
     * @param message what blocks the request and what to do, not null
     * @param blockingHandover the handover that has to finish first, or null if none
     */
    public HandoverRejectedException(Reason reason, String message, HandoverId blockingHandover) {
        super(Objects.requireNonNull(message, "message: null (expected: a description)"));
        this.reason = Objects.requireNonNull(reason, "reason: null (expected: a Reason)");
        this.blockingHandover = blockingHandover;
    }

    /** Why the request was refused. */
    public Reason reason() {
        return reason;
    }

    /** Returns the handover that has to finish before a new one is accepted, if any. */
    public Optional<HandoverId> blockingHandover() {
        return Optional.ofNullable(blockingHandover);
    }
}
