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
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.flink.runtime.state.IncrementalKeyedStateHandle.HandleAndLocalPath;
import org.apache.flink.runtime.state.IncrementalRemoteKeyedStateHandle;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.PhysicalStateHandleID;
import org.apache.flink.runtime.state.PlaceholderStreamStateHandle;
import org.apache.flink.runtime.state.StreamStateHandle;

/**
 * Resolves the placeholders RocksDB writes for files uploaded by an earlier checkpoint into the
 * real handles, so that a {@link VnodeManifest} can restore each vnode on its own, and forgets a
 * file once no retained checkpoint uses it.
 *
 * <p>It deletes nothing: Flink's {@code SharedStateRegistry} owns every vnode file, as the files
 * are reported to it with each snapshot (see {@link SubtaskSnapshotHandle}). Retention here is
 * conservative: with R retained checkpoints, every snapshot taken at or after the R-th most recent
 * checkpoint this backend heard complete is remembered, because notifications can be missed.
 */
final class VnodeFileRegistry {

    private final int retainedCheckpoints;
    private final Map<PhysicalStateHandleID, StreamStateHandle> handleById = new HashMap<>();
    private final TreeMap<Long, List<PhysicalStateHandleID>> filesBySnapshot = new TreeMap<>();
    private final TreeSet<Long> completed = new TreeSet<>();
    private final TreeSet<Long> savepoints = new TreeSet<>();
    private final Set<PhysicalStateHandleID> restored = new HashSet<>();
    // files a moved vnode inherited, until the next checkpoint's snapshot claims them
    private final Set<PhysicalStateHandleID> inherited = new HashSet<>();

    VnodeFileRegistry(int retainedCheckpoints) {
        if (retainedCheckpoints < 1) {
            throw new IllegalArgumentException(
                    "retainedCheckpoints: " + retainedCheckpoints + " (expected: >= 1)");
        }
        this.retainedCheckpoints = retainedCheckpoints;
    }

    /**
     * Registers the files of restored vnode handles: the restored backends refer to them by
     * placeholders until a checkpoint no longer uses them.
     */
    synchronized void registerRestored(Collection<KeyedStateHandle> handles) {
        for (KeyedStateHandle handle : handles) {
            if (handle instanceof IncrementalRemoteKeyedStateHandle incremental) {
                for (HandleAndLocalPath file : incremental.getSharedState()) {
                    handleById.put(file.getHandle().getStreamStateHandleID(), file.getHandle());
                    restored.add(file.getHandle().getStreamStateHandleID());
                }
            }
        }
    }

    /**
     * Registers the files an installed vnode inherited from its previous owner's checkpoint (see
     * {@link UploadedFiles}): its backend refers to them by placeholders. They are kept at least
     * until the next checkpoint's snapshot, which includes the vnode, claims them; a checkpoint
     * that completes before that one does not know them.
     */
    synchronized void registerInherited(UploadedFiles files) {
        for (HandleAndLocalPath file : files.files()) {
            handleById.put(file.getHandle().getStreamStateHandleID(), file.getHandle());
            inherited.add(file.getHandle().getStreamStateHandleID());
        }
    }

    /**
     * A checkpoint's synchronous snapshot ran: it includes every vnode installed so far, so the
     * inherited files are from now on kept as long as that checkpoint may be retained.
     */
    synchronized void snapshotStarted(long checkpointId) {
        if (!inherited.isEmpty()) {
            filesBySnapshot
                    .computeIfAbsent(checkpointId, id -> new ArrayList<>())
                    .addAll(inherited);
            inherited.clear();
        }
    }

    /** Replaces placeholders by the handles they stand for and remembers the new files. */
    synchronized KeyedStateHandle resolve(KeyedStateHandle handle) {
        return resolve(handle, true);
    }

    /** Replaces placeholders, for a snapshot that is not a checkpoint (an export). */
    synchronized KeyedStateHandle resolveWithoutRegistering(KeyedStateHandle handle) {
        return resolve(handle, false);
    }

    private KeyedStateHandle resolve(KeyedStateHandle handle, boolean rememberNewFiles) {
        if (!(handle instanceof IncrementalRemoteKeyedStateHandle incremental)) {
            return handle;
        }
        List<HandleAndLocalPath> shared = new ArrayList<>(incremental.getSharedState().size());
        for (HandleAndLocalPath file : incremental.getSharedState()) {
            StreamStateHandle stream = file.getHandle();
            if (stream instanceof PlaceholderStreamStateHandle) {
                StreamStateHandle real = handleById.get(stream.getStreamStateHandleID());
                if (real == null) {
                    throw new IllegalStateException(
                            "Vnode snapshot refers to file "
                                    + file.getLocalPath()
                                    + " ("
                                    + stream.getStreamStateHandleID()
                                    + ") of an earlier checkpoint that this backend does not "
                                    + "know. This is a bug; the checkpoint is declined.");
                }
                stream = real;
            } else if (rememberNewFiles) {
                handleById.put(stream.getStreamStateHandleID(), stream);
            }
            shared.add(HandleAndLocalPath.of(stream, file.getLocalPath()));
        }
        return new IncrementalRemoteKeyedStateHandle(
                incremental.getBackendIdentifier(),
                incremental.getKeyGroupRange(),
                incremental.getCheckpointId(),
                shared,
                incremental.getPrivateState(),
                incremental.getMetaDataStateHandle(),
                incremental.getCheckpointedSize());
    }

    /** Records which shared files a snapshot (already resolved) references. */
    synchronized void registerSnapshot(long checkpointId, Collection<KeyedStateHandle> handles) {
        List<PhysicalStateHandleID> files = new ArrayList<>();
        for (KeyedStateHandle handle : handles) {
            if (handle instanceof IncrementalRemoteKeyedStateHandle incremental) {
                incremental
                        .getSharedState()
                        .forEach(file -> files.add(file.getHandle().getStreamStateHandleID()));
            }
        }
        filesBySnapshot.computeIfAbsent(checkpointId, id -> new ArrayList<>()).addAll(files);
    }

    /**
     * Notes that {@code checkpointId} is a savepoint. Its completion (a stop-with-savepoint is
     * notified like a checkpoint) does not count as a retained checkpoint: should the stop fail,
     * Flink restores the last checkpoint, whose files the backends still refer to.
     */
    synchronized void registerSavepoint(long checkpointId) {
        savepoints.add(checkpointId);
    }

    /**
     * Notes a completed checkpoint and forgets the files only older ones used. Inherited files not
     * yet claimed by a snapshot stay: a vnode that comes back brings files this backend knew from
     * before it left, and the checkpoint completing now may have snapshotted without it.
     */
    synchronized void checkpointCompleted(long checkpointId) {
        if (savepoints.contains(checkpointId)) {
            return;
        }
        savepoints.headSet(checkpointId).clear(); // savepoints older than a completed checkpoint
        completed.add(checkpointId);
        while (completed.size() > retainedCheckpoints) {
            completed.pollFirst();
        }
        long oldestKept = completed.first();
        Map<Long, List<PhysicalStateHandleID>> obsolete =
                filesBySnapshot.headMap(oldestKept, false);
        if (obsolete.isEmpty()) {
            return;
        }
        Set<PhysicalStateHandleID> stillUsed = new HashSet<>(inherited);
        filesBySnapshot.tailMap(oldestKept, true).values().forEach(stillUsed::addAll);
        // restored files are only known as long as no snapshot of this backend replaced them
        restored.removeIf(id -> !stillUsed.contains(id) && handleById.remove(id) != null);
        for (List<PhysicalStateHandleID> files : obsolete.values()) {
            for (PhysicalStateHandleID id : files) {
                if (!stillUsed.contains(id)) {
                    handleById.remove(id);
                }
            }
        }
        obsolete.clear();
    }
}
