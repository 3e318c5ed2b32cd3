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

package io.rhino.cli;

/** A command that cannot go on: a message for the user and the process's exit code. */
final class CliException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** The reconfiguration ran and FAILED. */
    static final int FAILED = 1;

    /** The server refused the request (4xx, 5xx). */
    static final int REFUSED = 3;

    /** The server could not be reached. */
    static final int UNREACHABLE = 4;

    private final int exitCode;

    CliException(int exitCode, String message) {
        super(message);
        this.exitCode = exitCode;
    }

    int exitCode() {
        return exitCode;
    }
}
