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

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rhino.flink.config.RhinoRuntimeSettings;
import io.rhino.handover.operation.OperationKind;
import io.rhino.handover.operation.OperationStep;
import io.rhino.handover.operation.Reconfiguration;
import io.rhino.handover.operation.Reconfigurations;
import java.util.List;

/**
 * What one JobManager process holds of a job's reconfigurations: its registry and its request
 * journals. Two of them share only the journal's directory, as two JobManagers of a job share the
 * file system. No operator runs: the job is restarting.
 */
final class JobManager {
    final RequestJournals journals;
    final Reconfigurations registry;
    final RhinoDirectory directory;
    private final String jobId;

    /** A JobManager on which {@code jobId}'s first Rhino operator registered. */
    JobManager(String jobId, RhinoRuntimeSettings settings) throws Exception {
        this.jobId = jobId;
        RhinoDirectory[] self = new RhinoDirectory[1];
        journals = new RequestJournals(() -> self[0]);
        registry = new Reconfigurations(1_000, System::currentTimeMillis, journals);
        directory =
                new RhinoDirectory() {
                    @Override
                    public List<OperatorView> operators() {
                        return List.of();
                    }

                    @Override
                    public Reconfigurations reconfigurations() {
                        return registry;
                    }
                };
        self[0] = directory;
        journals.operatorRegistered(jobId, settings);
        journals.awaitIdle();
    }

    Reconfiguration start(String id, OperationKind kind, String parameters, OperationStep step)
            throws Exception {
        Reconfiguration started =
                registry.start(
                        id, kind, jobId, List.of(step.operator()), parameters, () -> List.of(step));
        journals.awaitIdle();
        journals.awaitIdle(); // an end queued by the first
        return started;
    }

    /** The request's status as the REST API serves it here. */
    ObjectNode served(String id) {
        return ReconfigurationStatusView.of(registry.get(id).orElseThrow(), directory);
    }
}
