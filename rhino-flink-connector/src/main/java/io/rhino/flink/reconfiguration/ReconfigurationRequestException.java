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

package io.rhino.flink.reconfiguration;

/**
 * A reconfiguration request that cannot be accepted; nothing changed. The reason says what is wrong
 * and what to do; the kind says how the REST API answers (404, 400, 409, 410 or 503).
 */
public final class ReconfigurationRequestException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** Why a request is refused. */
    public enum Reason {
        /** An unknown job, operator, vnode, subtask or TaskManager. */
        NOT_FOUND,
        /** The request is malformed or contradicts the operator's state. */
        INVALID,
        /** Another handover runs on the operator, or the request id was used before on it. */
        CONFLICT,
        /** The operator takes no handover any more (its input ended): retrying cannot help. */
        GONE,
        /** The operator cannot take handovers now (starting, restoring): retry later. */
        UNAVAILABLE
    }

    private final Reason reason;

    public ReconfigurationRequestException(Reason reason, String message) {
        super(message);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }

    static ReconfigurationRequestException notFound(String message) {
        return new ReconfigurationRequestException(Reason.NOT_FOUND, message);
    }

    static ReconfigurationRequestException invalid(String message) {
        return new ReconfigurationRequestException(Reason.INVALID, message);
    }
}
