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

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.StateBackendLoader;
import org.apache.flink.streaming.api.graph.StreamConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fails a Rhino task at start, with the option to set, when the job does not run on the Rhino state
 * backend: the alternative is an obscure "key group is not in range" error on the first record.
 */
public final class RhinoStateBackendCheck {

    private static final Logger LOG = LoggerFactory.getLogger(RhinoStateBackendCheck.class);

    private RhinoStateBackendCheck() {}

    /** Resolves the task's state backend exactly as Flink's StreamTask does and checks it. */
    public static void requireRhinoStateBackend(
            String operatorName,
            StreamConfig taskConfig,
            Configuration jobConfiguration,
            Configuration clusterConfiguration,
            ClassLoader classLoader) {
        StateBackend backend;
        try {
            backend =
                    StateBackendLoader.fromApplicationOrConfigOrDefault(
                            taskConfig.getStateBackend(classLoader),
                            jobConfiguration,
                            clusterConfiguration,
                            classLoader,
                            LOG);
        } catch (Exception e) {
            throw new IllegalStateException(
                    "Could not load the state backend of Rhino keyed operator '"
                            + operatorName
                            + "': "
                            + e.getMessage(),
                    e);
        }
        if (!(backend instanceof RhinoStateBackend)) {
            throw new IllegalStateException(
                    "Rhino keyed operator '"
                            + operatorName
                            + "' needs the Rhino state backend, but the job runs on "
                            + backend.getName()
                            + ". Set '"
                            + StateBackendOptions.STATE_BACKEND.key()
                            + ": "
                            + RhinoStateBackendFactory.class.getName()
                            + "' in the job or cluster configuration"
                            + " (and leave state.changelog.enabled off).");
        }
    }
}
