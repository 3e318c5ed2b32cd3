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

package io.rhino.flink.coordination;

import io.rhino.flink.config.RhinoRuntimeSettings;
import io.rhino.flink.reconfiguration.RhinoDirectory;
import java.io.Serializable;

/**
 * Serves the running Rhino operators of a JobManager beyond the Java API of {@link RhinoHandovers},
 * e.g. over REST: told when an operator's coordinator starts, stopped when it closes. The API layer
 * that builds the job hands it to the coordinator's provider, in the job graph, so that
 * coordination does not start the layers above it.
 */
@FunctionalInterface
public interface OperatorServing extends Serializable {

    /**
     * An operator's coordinator started with its job's {@code settings}; {@code directory} lists
     * this process's running operators. Returns what stops serving it when it closes.
     */
    Stop serve(RhinoRuntimeSettings settings, RhinoDirectory directory);

    /** Stops serving one operator; called once, when its coordinator closes. */
    @FunctionalInterface
    interface Stop {
        void stop();
    }
}
