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

import io.rhino.flink.config.RhinoRuntimeSettings;
import io.rhino.flink.state.RestoreSource;
import io.rhino.handover.HandoverManager;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/** What reconfigurations and the REST API see of one running Rhino operator. */
public interface OperatorView {

    /** The job's id, as Flink prints it. */
    String jobId();

    /** The Rhino keyed stream's name. */
    String name();

    /** The deployed parallelism: the most subtasks vnodes can be spread over. */
    int parallelism();

    /** The operator's handover manager, once its coordinator started. */
    Optional<HandoverManager> manager();

    /** The TaskManager each running gate subtask is on. */
    Map<Integer, String> taskManagerBySubtask();

    /** Records per second routed to each vnode over the load window. */
    double[] recordsPerSecond();

    /** The last reported state size of a vnode, -1 if none yet. */
    long stateBytes(int vnode);

    /** The TaskManagers holding a replica of each vnode's state (empty without replication). */
    default Map<Integer, Set<String>> replicaHolders() {
        return Map.of();
    }

    /**
     * Each running gate subtask's task busy time (Flink's busyTimeMsPerSecond, 0–1000), as last
     * reported.
     */
    default Map<Integer, Double> busyTimeMsPerSecond() {
        return Map.of();
    }

    /** Whether the operator's job serves it over REST ({@code rhino.rest.enabled}). */
    default boolean servedOverRest() {
        return true;
    }

    /** The bearer token REST requests about the operator's job must carry, if its job set one. */
    default Optional<String> restToken() {
        return Optional.empty();
    }

    /**
     * Where the gates' restores took each vnode from: the restore of the job's current run, or of a
     * later failover of the subtask that owned it (empty if the job started without state).
     */
    default Map<Integer, RestoreSource> restoreSourceByVnode() {
        return Map.of();
    }

    /** The checkpoint the operator's coordinators last restored, if they restored one. */
    default OptionalLong restoredCheckpointId() {
        return OptionalLong.empty();
    }

    /** The id of the job vertex the operator's gates run in, once its coordinator started. */
    default Optional<String> gateVertexId() {
        return Optional.empty();
    }

    /** How a rescale past the deployed parallelism restarts the job, once the operator runs. */
    default Optional<RhinoRuntimeSettings.Rescale> rescaleSettings() {
        return Optional.empty();
    }

    /** How the operator's checkpoints are replicated, and how far each subtask got. */
    default ReplicationView replication() {
        return ReplicationView.NONE;
    }
}
