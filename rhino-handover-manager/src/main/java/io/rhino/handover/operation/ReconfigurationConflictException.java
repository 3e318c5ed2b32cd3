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

package io.rhino.handover.operation;

/**
 * A reconfiguration cannot start now: another one runs on the same operator, or the request id is
 * taken by a different request. Maps to HTTP 409.
 */
public final class ReconfigurationConflictException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public ReconfigurationConflictException(String message) {
        super(message);
    }
}
