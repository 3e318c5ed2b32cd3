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

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The replicas a Rhino task can restore its vnodes from, instead of the checkpoint storage. The
 * task's gate provides them when it registers in {@link RhinoTaskRegistry}, before the keyed
 * operator restores: replication is built on the vnode backend, so the backend does not reach up to
 * it.
 */
@FunctionalInterface
public interface TaskReplicas {

    /**
     * A restore from the replicas this TaskManager keeps or fetches from {@code holders}
     * ("host:port" of replication services, in the order the checkpoint names them), assembling
     * RocksDB directories under {@code workDirectory}; empty if this TaskManager keeps no replicas.
     */
    Optional<RestoreFromReplicas> open(List<String> holders, Path workDirectory);

    /** No replicas: every vnode restores from its checkpoint's handles. */
    TaskReplicas NONE = (holders, workDirectory) -> Optional.empty();
}
