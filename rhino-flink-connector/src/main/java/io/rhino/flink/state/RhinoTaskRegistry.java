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

package io.rhino.flink.state;

import io.rhino.flink.routing.RhinoOperatorSpec;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.runtime.executiongraph.ExecutionAttemptID;

/**
 * Where a Rhino gate tells the state backend of its task that the task's keyed operator is a Rhino
 * operator. The gate is created before the keyed operator's state is initialised, and Flink hands
 * the backend only the task's {@code Environment}, so the two meet here, by the task attempt's id.
 */
public final class RhinoTaskRegistry {

    private static final Map<ExecutionAttemptID, RhinoOperatorSpec> SPEC_BY_TASK =
            new ConcurrentHashMap<>();

    private RhinoTaskRegistry() {}

    /** Called by the gate when it is created. */
    public static void registerGate(ExecutionAttemptID task, RhinoOperatorSpec spec) {
        SPEC_BY_TASK.put(task, spec);
    }

    /** Called by the gate when it closes. */
    public static void unregisterGate(ExecutionAttemptID task) {
        SPEC_BY_TASK.remove(task);
    }

    /** The Rhino operator of the task, if its chain starts with a Rhino gate. */
    static Optional<RhinoOperatorSpec> specOf(ExecutionAttemptID task) {
        return Optional.ofNullable(SPEC_BY_TASK.get(task));
    }
}
