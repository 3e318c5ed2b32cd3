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

/**
 * Passed to {@link HandoverManager.ProtocolPort#failJob(Throwable)} when a started handover cannot
 * finish and the job must roll back to the pre-handover checkpoint, because routers may already
 * route by the new epoch.
 */
public class HandoverFailedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final HandoverId handoverId;

    /**
     * Creates the exception.
     *
     * @param handoverId the failed handover, not null
     * @param message what went wrong, not null
     * @param cause the underlying error, or null
     */
    public HandoverFailedException(HandoverId handoverId, String message, Throwable cause) {
        super(Objects.requireNonNull(message, "message: null (expected: a description)"), cause);
        this.handoverId =
                Objects.requireNonNull(handoverId, "handoverId: null (expected: a HandoverId)");
    }

    /** Returns the failed handover. */
    public HandoverId handoverId() {
        return handoverId;
    }
}
