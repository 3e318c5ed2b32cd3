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

import java.io.File;
import java.util.Collection;
import org.apache.flink.runtime.state.IncrementalLocalKeyedStateHandle;
import org.apache.flink.runtime.state.KeyedStateHandle;

/**
 * Where a vnode's state is installed: a {@link VnodeKeyedStateBackend} itself, on the task thread,
 * or a preparation of its installs ({@link VnodeKeyedStateBackend#prepareInstalls}) that only opens
 * the vnodes' instances, off it.
 */
public interface VnodeInstallTarget {

    /**
     * Adds a vnode, restored from the given handles (empty for a new vnode). An {@code
     * IncrementalLocalKeyedStateHandle} is installed by hard-linking its SST files.
     */
    void installVnode(int vnode, Collection<KeyedStateHandle> restoreFrom) throws Exception;

    /**
     * Adds a vnode moved here from another subtask, installed from its export (see {@link
     * VnodeExport#localHandle}). Its next checkpoint refers to the files the export lists as
     * uploaded by a completed checkpoint instead of uploading them again, and its timer queues
     * start from the first timers the origin shipped in it instead of reading them.
     */
    default void installMovedVnode(int vnode, IncrementalLocalKeyedStateHandle export)
            throws Exception {
        installMovedVnode(vnode, export, null);
    }

    /**
     * As {@link #installMovedVnode(int, IncrementalLocalKeyedStateHandle)}, for a vnode whose SST
     * files {@code heldByChains} the replica holders probably keep already (null: none known): this
     * subtask's replication skips them in its next round (a holder that lacks one refuses the
     * listing, and that round sends everything).
     */
    void installMovedVnode(
            int vnode,
            IncrementalLocalKeyedStateHandle export,
            VnodeReplication.HeldReplica heldByChains)
            throws Exception;

    /**
     * A directory on this TaskManager's local disk for vnodes in transfer, the backend's own
     * (unique per job, operator and execution) and deleted with it.
     */
    File transferDirectory();
}
