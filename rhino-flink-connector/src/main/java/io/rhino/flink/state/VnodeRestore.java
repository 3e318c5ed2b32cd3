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

import io.rhino.flink.spec.RhinoOperatorSpec;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.apache.flink.runtime.state.KeyGroupsSavepointStateHandle;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.StreamStateHandle;

/**
 * Reads the vnode manifests (or the canonical savepoint) Flink hands a restoring subtask and checks
 * they fit it.
 */
final class VnodeRestore {

    private VnodeRestore() {}

    /**
     * What a subtask restores.
     *
     * @param handlesByVnode the vnodes the subtask owned, each with the handles to restore it from
     *     (none for a vnode that had no state)
     * @param replicaHolders the replication services ("host:port") that acked the checkpoint's
     *     replicas of these vnodes (none if it was not replicated)
     * @param localCopyByVnode where Flink's task-local recovery kept a vnode's copy on this
     *     TaskManager, when Flink restores the subtask from it ({@link TaskLocalVnodes})
     * @param heldByChain where the replica chain held those vnodes' files
     * @param timerHeadsByVnode the first timers of the vnodes' timer queues as of the checkpoint
     *     (none for a canonical savepoint or a checkpoint of an earlier version)
     */
    record Restored(
            Map<Integer, List<KeyedStateHandle>> handlesByVnode,
            List<String> replicaHolders,
            Map<Integer, Path> localCopyByVnode,
            Map<Integer, VnodeReplication.HeldReplica> heldByChain,
            Map<Integer, TimerQueueHeads> timerHeadsByVnode) {}

    /** What the subtask restores, or null when it starts without state. */
    static Restored read(
            Collection<KeyedStateHandle> handles,
            RhinoOperatorSpec spec,
            int subtaskIndex,
            int parallelism,
            ClassLoader userCodeClassLoader)
            throws IOException {
        if (handles == null || handles.isEmpty()) {
            return null;
        }
        Map<Integer, List<KeyedStateHandle>> handlesByVnode = new TreeMap<>();
        Set<String> holders = new LinkedHashSet<>();
        Map<Integer, Path> localCopies = new TreeMap<>();
        Map<Integer, VnodeReplication.HeldReplica> heldByChain = new TreeMap<>();
        Map<Integer, TimerQueueHeads> timerHeads = new TreeMap<>();
        for (KeyedStateHandle handle : handles) {
            if (CanonicalSavepoints.isCanonical(handle)) {
                handlesByVnode.putAll(
                        CanonicalSavepoints.restoreHandles(
                                (KeyGroupsSavepointStateHandle) handle,
                                spec.layout(),
                                spec.name(),
                                subtaskIndex,
                                userCodeClassLoader));
                continue;
            }
            Optional<TaskLocalVnodes.Pointer> local =
                    TaskLocalVnodes.pointerOf(handle, userCodeClassLoader);
            local.ifPresent(
                    pointer -> {
                        localCopies.putAll(pointer.copyByVnode());
                        heldByChain.putAll(pointer.heldByChain());
                    });
            StreamStateHandle manifestHandle =
                    local.isPresent()
                            ? local.get().manifest()
                            : SubtaskSnapshotHandle.manifestOf(handle);
            if (manifestHandle == null) {
                throw new IOException(
                        "Rhino keyed operator '"
                                + spec.name()
                                + "' cannot restore a "
                                + handle.getClass().getSimpleName()
                                + ": its state was not written by the Rhino state backend.");
            }
            VnodeManifest manifest = VnodeManifest.readFrom(manifestHandle);
            check(manifest, spec, subtaskIndex, parallelism);
            handlesByVnode.putAll(manifest.restoreHandlesByVnode());
            holders.addAll(manifest.replicaHolders());
            timerHeads.putAll(manifest.timerHeadsByVnode());
        }
        return new Restored(
                handlesByVnode, List.copyOf(holders), localCopies, heldByChain, timerHeads);
    }

    private static void check(
            VnodeManifest manifest, RhinoOperatorSpec spec, int subtaskIndex, int parallelism)
            throws IOException {
        if (manifest.parallelism() != parallelism || manifest.subtaskIndex() != subtaskIndex) {
            throw new IOException(
                    "Rhino keyed operator '"
                            + spec.name()
                            + "' was checkpointed by subtask "
                            + manifest.subtaskIndex()
                            + " of "
                            + manifest.parallelism()
                            + " and is restored as subtask "
                            + subtaskIndex
                            + " of "
                            + parallelism
                            + ". Restoring at another parallelism is not supported yet: move "
                            + "vnodes between the deployed subtasks instead.");
        }
        if (manifest.numKeyGroups() != spec.numKeyGroups()
                || manifest.numVnodes() != spec.numVnodes()) {
            throw new IOException(
                    "Rhino keyed operator '"
                            + spec.name()
                            + "' was checkpointed with "
                            + manifest.numKeyGroups()
                            + " key groups in "
                            + manifest.numVnodes()
                            + " vnodes but now has "
                            + spec.numKeyGroups()
                            + " key groups in "
                            + spec.numVnodes()
                            + " vnodes; these cannot change for existing state: build the job"
                            + " with "
                            + RhinoOperatorSpec.settingsOf(
                                    manifest.numKeyGroups(), manifest.numVnodes())
                            + ".");
        }
    }
}
