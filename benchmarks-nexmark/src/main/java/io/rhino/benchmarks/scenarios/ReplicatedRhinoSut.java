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

package io.rhino.benchmarks.scenarios;

import io.rhino.benchmarks.cluster.PeerReplicationOptions;
import java.nio.file.Path;
import java.util.UUID;
import org.apache.flink.configuration.Configuration;

/**
 * Rhino with every checkpoint replicated to one other TaskManager ({@code rhino.replication.mode:
 * peers}, factor 2, as the paper): each TaskManager of the embedded cluster runs a replication
 * service with its replicas beside the checkpoints. Compared with {@link RhinoSut}, it measures
 * what replication costs in steady state. With local recovery ({@code rhino-replicated-local}), a
 * subtask restarting on its TaskManager restores from its local copies and one landing on a replica
 * holder from its replica, as the paper's Rhino.
 */
final class ReplicatedRhinoSut extends RhinoSut {

    ReplicatedRhinoSut(ClusterShape shape, long seed) {
        this("rhino-replicated", shape, seed, false);
    }

    ReplicatedRhinoSut(String name, ClusterShape shape, long seed, boolean localRecovery) {
        super(name, shape, seed, localRecovery);
    }

    @Override
    void configureJob(Configuration config, Path checkpointDir) {
        super.configureJob(config, checkpointDir);
        PeerReplicationOptions.factorTwo(
                config,
                checkpointDir.resolveSibling(checkpointDir.getFileName() + "-replicas"),
                UUID.randomUUID().toString());
    }
}
