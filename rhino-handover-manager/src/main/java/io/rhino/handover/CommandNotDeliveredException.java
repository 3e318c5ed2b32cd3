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

/**
 * Thrown by a {@link HandoverManager.ProtocolPort} that delivered nothing, e.g. because a subtask
 * is not running: no subtask acted on the command, so the handover fails without restarting the job
 * and may be retried.
 */
public final class CommandNotDeliveredException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** Creates the exception; {@code message} says which subtask is missing and what to do. */
    public CommandNotDeliveredException(String message) {
        super(message);
    }
}
