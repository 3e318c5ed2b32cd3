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

package io.rhino.flink.handover;

import io.rhino.core.handover.HandoverId;
import io.rhino.flink.state.VnodeInstallTarget;
import io.rhino.flink.state.VnodeKeyedStateBackend;
import java.io.Serializable;

/**
 * How a vnode's state gets from the origin subtask to the target subtask during a handover. The
 * origin calls {@link #ship} once it is aligned; the payload travels to the target through the
 * coordinator, and the target calls {@link #install}. Implementations: {@link
 * LocalDirectoryStateTransfer} (TaskManagers on one machine), {@link DfsStateTransfer} (through a
 * Hadoop file system, the replication mode {@code dfs}) and the replication package's
 * PeerStateTransfer (the target TaskManager's replica store, which already holds most of the
 * state); the gate chooses one from the replication mode.
 *
 * <p>A gate ships (or installs) several vnodes at once, each on its own thread: implementations
 * must allow concurrent calls for different vnodes of one backend.
 */
public interface StateTransfer extends Serializable {

    /**
     * Exports the vnode from the origin's backend; the caller then removes the vnode.
     *
     * @param targetSubtask the subtask that will install it
     */
    Shipment ship(
            VnodeKeyedStateBackend<?> origin, int vnode, int targetSubtask, HandoverId handover)
            throws Exception;

    /**
     * Installs the shipped vnode into the target: the target's backend, or the preparation of its
     * installs that only opens the vnode's instance off the task thread.
     *
     * @return what of the shipment is left on the target's side and no longer needed once the vnode
     *     is installed (it holds its own links to the files); the caller deletes it after the
     *     handover's installs, so that deleting does not delay them
     */
    Leftovers install(VnodeInstallTarget target, int vnode, Serializable payload) throws Exception;

    /** Files of a shipment that an installed vnode no longer needs. */
    @FunctionalInterface
    interface Leftovers {

        /** Deletes them; failures are only logged by the caller. */
        void delete() throws Exception;

        /** Nothing left. */
        static Leftovers none() {
            return () -> {};
        }
    }

    /**
     * What {@link #ship} produced.
     *
     * @param payload what the target needs to install the vnode; must be serializable, it travels
     *     through the JobManager
     * @param copiedBytes bytes copied on the origin's disk to ship it
     * @param sentBytes bytes sent over the network to the target's TaskManager
     */
    record Shipment(Serializable payload, long copiedBytes, long sentBytes) {

        /** A shipment that sent nothing over the network. */
        public Shipment(Serializable payload, long copiedBytes) {
            this(payload, copiedBytes, 0L);
        }
    }
}
