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

package io.rhino.flink.spec;

import org.apache.flink.runtime.execution.SuppressRestartsException;

/**
 * A job shape Rhino cannot run: its message names the Rhino operator, the cause and the fix. Thrown
 * while the job is built when the API can see the problem, and when the Rhino tasks start for what
 * only the running job reveals.
 */
public final class UnsupportedJobShapeException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    public UnsupportedJobShapeException(String message) {
        super(message);
    }

    /**
     * The refusal of a running task. Wrapped so that Flink fails the job instead of restarting it:
     * every restart would deploy the same job and meet the same refusal.
     */
    public static RuntimeException atTaskStart(String message) {
        return new SuppressRestartsException(new UnsupportedJobShapeException(message));
    }
}
