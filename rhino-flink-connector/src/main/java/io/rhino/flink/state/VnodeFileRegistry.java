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
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import org.apache.flink.runtime.state.IncrementalKeyedStateHandle.HandleAndLocalPath;
import org.apache.flink.runtime.state.IncrementalRemoteKeyedStateHandle;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.PhysicalStateHandleID;
import org.apache.flink.runtime.state.PlaceholderStreamStateHandle;
import org.apache.flink.runtime.state.StateObject;
import org.apache.flink.runtime.state.StreamStateHandle;
import org.apache.flink.util.concurrent.ExecutorThreadFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Plays the part of Flink's {@code SharedStateRegistry} for the files inside vnode snapshots, which
 * Flink cannot see: it replaces the placeholders RocksDB writes for files uploaded by an earlier
 * checkpoint with the real handles, and deletes files once no retained checkpoint uses them.
 *
 * <p>Retention is conservative: with R retained checkpoints, every snapshot taken at or after the
 * R-th most recent checkpoint this backend heard complete is kept, including ones that may have
 * been aborted in between, because notifications can be missed. Files of a restored checkpoint are
 * never deleted here: in Flink's NO_CLAIM mode they belong to someone else.
 */
final class VnodeFileRegistry {

    private static final Logger LOG = LoggerFactory.getLogger(VnodeFileRegistry.class);

    /**
     * One thread per TaskManager deletes obsolete files, off the task threads: with large state a
     * completed checkpoint can make GBs of files obsolete, and deleting them in the task's mailbox
     * would hold up its records (and handover markers) meanwhile.
     */
    private static final Executor SHARED_DISCARD_EXECUTOR =
            Executors.newSingleThreadExecutor(
                    new ExecutorThreadFactory("rhino-vnode-file-discard"));

    private final int retainedCheckpoints;
    private final Executor discardExecutor;
    private final Map<PhysicalStateHandleID, StreamStateHandle> handleById = new HashMap<>();
    private final Set<PhysicalStateHandleID> notOwned = new HashSet<>();
    private final TreeMap<Long, List<StateObject>> filesBySnapshot = new TreeMap<>();
    private final TreeSet<Long> completed = new TreeSet<>();
    private final TreeSet<Long> savepoints = new TreeSet<>();

    VnodeFileRegistry(int retainedCheckpoints) {
        this(retainedCheckpoints, SHARED_DISCARD_EXECUTOR);
    }

    /** With the executor that deletes obsolete files (tests pass a direct one). */
    VnodeFileRegistry(int retainedCheckpoints, Executor discardExecutor) {
        if (retainedCheckpoints < 1) {
            throw new IllegalArgumentException(
                    "retainedCheckpoints: " + retainedCheckpoints + " (expected: >= 1)");
        }
        this.retainedCheckpoints = retainedCheckpoints;
        this.discardExecutor = discardExecutor;
    }

    /** Registers the files of restored vnode handles, which this backend must not delete. */
    synchronized void registerRestored(Collection<KeyedStateHandle> handles) {
        for (KeyedStateHandle handle : handles) {
            if (handle instanceof IncrementalRemoteKeyedStateHandle incremental) {
                for (HandleAndLocalPath file : incremental.getSharedState()) {
                    handleById.put(file.getHandle().getStreamStateHandleID(), file.getHandle());
                    notOwned.add(file.getHandle().getStreamStateHandleID());
                }
            }
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

    /** Records which files a snapshot (already resolved) references. */
    synchronized void registerSnapshot(long checkpointId, Collection<KeyedStateHandle> handles) {
        List<StateObject> files = new ArrayList<>();
        for (KeyedStateHandle handle : handles) {
            if (handle instanceof IncrementalRemoteKeyedStateHandle incremental) {
                incremental.getSharedState().forEach(file -> files.add(file.getHandle()));
                incremental.getPrivateState().forEach(file -> files.add(file.getHandle()));
                files.add(incremental.getMetaDataStateHandle());
            } else {
                files.add(handle);
            }
        }
        filesBySnapshot.computeIfAbsent(checkpointId, id -> new ArrayList<>()).addAll(files);
    }

    /**
     * Notes that {@code checkpointId} is a savepoint. Its files belong to the savepoint, never to
     * this registry, and its completion (a stop-with-savepoint is notified like a checkpoint) does
     * not count as a retained checkpoint: should the stop fail, Flink restores the last checkpoint,
     * whose files must still be there.
     */
    synchronized void registerSavepoint(long checkpointId) {
        savepoints.add(checkpointId);
    }

    /** Notes a completed checkpoint and deletes (asynchronously) the files only older ones used. */
    void checkpointCompleted(long checkpointId) {
        List<StateObject> toDiscard = collectObsolete(checkpointId);
        if (toDiscard.isEmpty()) {
            return;
        }
        discardExecutor.execute(
                () -> {
                    for (StateObject file : toDiscard) {
                        try {
                            file.discardState();
                        } catch (Exception e) {
                            LOG.warn("Could not delete obsolete vnode checkpoint file {}", file, e);
                        }
                    }
                });
    }

    private synchronized List<StateObject> collectObsolete(long checkpointId) {
        if (savepoints.contains(checkpointId)) {
            return List.of();
        }
        savepoints.headSet(checkpointId).clear(); // savepoints older than a completed checkpoint
        completed.add(checkpointId);
        while (completed.size() > retainedCheckpoints) {
            completed.pollFirst();
        }
        long oldestKept = completed.first();
        Map<Long, List<StateObject>> obsolete = filesBySnapshot.headMap(oldestKept, false);
        if (obsolete.isEmpty()) {
            return List.of();
        }
        Set<Object> stillUsed = new HashSet<>();
        for (List<StateObject> files : filesBySnapshot.tailMap(oldestKept, true).values()) {
            for (StateObject file : files) {
                stillUsed.add(identity(file));
            }
        }
        List<StateObject> toDiscard = new ArrayList<>();
        Set<Object> seen = new HashSet<>();
        for (List<StateObject> files : obsolete.values()) {
            for (StateObject file : files) {
                Object id = identity(file);
                if (!stillUsed.contains(id) && !notOwned.contains(id) && seen.add(id)) {
                    toDiscard.add(file);
                    if (id instanceof PhysicalStateHandleID physicalId) {
                        handleById.remove(physicalId);
                    }
                }
            }
        }
        obsolete.clear();
        return toDiscard;
    }

    private static Object identity(StateObject file) {
        return file instanceof StreamStateHandle stream ? stream.getStreamStateHandleID() : file;
    }

    synchronized int trackedSnapshots() {
        return filesBySnapshot.size();
    }
}
