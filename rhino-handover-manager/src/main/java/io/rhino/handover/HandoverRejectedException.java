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
 * A handover request was refused because another handover of the same operator is in flight or
 * already queued, or because its id is already taken. Nothing changed; retry once {@link
 * #blockingHandover()} has finished.
 */
public final class HandoverRejectedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final HandoverId blockingHandover;

    /**
     * Creates the exception.
     *
     * @param message what blocks the request and what to do, not null
     * @param blockingHandover the handover that has to finish first, or null if none
     */
    public HandoverRejectedException(String message, HandoverId blockingHandover) {
        super(Objects.requireNonNull(message, "message: null (expected: a description)"));
        this.blockingHandover = blockingHandover;
    }

    /** Returns the handover that has to finish before a new one is accepted, if any. */
    public Optional<HandoverId> blockingHandover() {
        return Optional.ofNullable(blockingHandover);
    }
}
