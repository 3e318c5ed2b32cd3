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

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.flink.runtime.state.IncrementalKeyedStateHandle.HandleAndLocalPath;
import org.apache.flink.runtime.state.IncrementalRemoteKeyedStateHandle;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupsStateHandle;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.StreamStateHandle;
import org.apache.flink.runtime.state.memory.ByteStreamStateHandle;

/**
 * The handle Flink stores for a Rhino subtask's snapshot: one {@link
 * IncrementalRemoteKeyedStateHandle} whose metadata is the {@link VnodeManifest} and whose shared
 * and private files are those of every vnode snapshot, exactly as the vnodes' RocksDB backends
 * reported them (placeholders included).
 *
 * <p>So Flink's own {@code SharedStateRegistry} owns every vnode file as it owns the files of its
 * RocksDB backend: it replaces placeholders, deletes a file once no retained checkpoint uses it,
 * keeps the files of a checkpoint restored in NO_CLAIM mode, takes over those restored in CLAIM
 * mode, follows JobManager failovers, deletes an aborted checkpoint's new files, and never deletes
 * a savepoint's. The manifest keeps what restoring needs (vnode by vnode, placeholders resolved);
 * the file lists here are for Flink's bookkeeping only, named {@code vnode-<id>/<file>}.
 */
final class SubtaskSnapshotHandle {

    private SubtaskSnapshotHandle() {}

    /**
     * @param backendIdentifier identifies the subtask's backend across its checkpoints
     * @param vnodeSnapshots each owned vnode's snapshot as its backend returned it
     */
    static IncrementalRemoteKeyedStateHandle of(
            UUID backendIdentifier,
            KeyGroupRange subtaskKeyGroups,
            long checkpointId,
            StreamStateHandle manifest,
            Map<Integer, KeyedStateHandle> vnodeSnapshots) {
        List<HandleAndLocalPath> shared = new ArrayList<>();
        List<HandleAndLocalPath> exclusive = new ArrayList<>();
        long checkpointedSize = manifest.getStateSize();
        for (Map.Entry<Integer, KeyedStateHandle> entry : vnodeSnapshots.entrySet()) {
            String prefix = "vnode-" + entry.getKey() + "/";
            KeyedStateHandle snapshot = entry.getValue();
            if (snapshot instanceof IncrementalRemoteKeyedStateHandle incremental) {
                incremental.getSharedState().forEach(file -> shared.add(prefixed(prefix, file)));
                incremental.getPrivateState().stream()
                        .filter(file -> isFile(file.getHandle()))
                        .forEach(file -> exclusive.add(prefixed(prefix, file)));
                if (isFile(incremental.getMetaDataStateHandle())) {
                    exclusive.add(
                            HandleAndLocalPath.of(
                                    incremental.getMetaDataStateHandle(), prefix + "_metadata"));
                }
            } else if (snapshot instanceof KeyGroupsStateHandle full) {
                exclusive.add(
                        HandleAndLocalPath.of(full.getDelegateStateHandle(), prefix + "_full"));
            } else {
                throw new IllegalStateException(
                        "Vnode "
                                + entry.getKey()
                                + " snapshot is a "
                                + snapshot.getClass().getName()
                                + ", which the Rhino state backend does not know how to store.");
            }
            checkpointedSize += snapshot.getCheckpointedSize();
        }
        return new IncrementalRemoteKeyedStateHandle(
                backendIdentifier,
                subtaskKeyGroups,
                checkpointId,
                shared,
                exclusive,
                manifest,
                checkpointedSize);
    }

    /** The manifest inside a handle Flink restores, of this form or of the earlier one. */
    static StreamStateHandle manifestOf(KeyedStateHandle handle) {
        if (handle instanceof IncrementalRemoteKeyedStateHandle incremental) {
            return incremental.getMetaDataStateHandle();
        }
        if (handle instanceof KeyGroupsStateHandle keyGroups) {
            // written before Flink owned the vnode files
            return keyGroups.getDelegateStateHandle();
        }
        return null;
    }

    /**
     * Whether Flink must own {@code privateHandle} as a file. A vnode's private state below the
     * small-file threshold (its RocksDB MANIFEST, CURRENT, OPTIONS and metadata, usually) is bytes
     * inside the manifest already, with nothing to delete: listed here too, Flink would copy every
     * vnode's bytes into the checkpoint metadata a second time, which the subtask sends the
     * JobManager and the JobManager writes on every checkpoint.
     */
    private static boolean isFile(StreamStateHandle privateHandle) {
        return !(privateHandle instanceof ByteStreamStateHandle);
    }

    private static HandleAndLocalPath prefixed(String prefix, HandleAndLocalPath file) {
        return HandleAndLocalPath.of(file.getHandle(), prefix + file.getLocalPath());
    }
}
