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
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import javax.annotation.Nullable;
import org.apache.flink.runtime.checkpoint.filemerging.FileMergingSnapshotManager;
import org.apache.flink.runtime.state.IncrementalKeyedStateHandle.HandleAndLocalPath;
import org.apache.flink.runtime.state.IncrementalRemoteKeyedStateHandle;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.PlaceholderStreamStateHandle;
import org.apache.flink.runtime.state.StreamStateHandle;
import org.apache.flink.runtime.state.memory.ByteStreamStateHandle;

/**
 * Which vnode snapshot a checkpoint may reuse instead of snapshotting an idle vnode again: the
 * vnode's snapshot of the last checkpoint notified complete that it took part in, if its instance
 * saw no write since ({@link VnodeWriteSequence}).
 *
 * <p>Reusing it refers to the same shared files by placeholder, as Flink's incremental snapshot
 * does for unchanged SST files. They are still in Flink's {@code SharedStateRegistry} when the
 * reusing checkpoint registers: that checkpoint was completed, and every snapshot of the vnode
 * taken since either reused the same snapshot or did not complete. So reuse stops once the vnode's
 * instance snapshots again for any checkpoint, until one such snapshot completes. Private state
 * below Flink's small-file threshold is reused as the same bytes; a private file lies in its
 * checkpoint's exclusive directory, which Flink deletes once that checkpoint is subsumed, so the
 * reusing checkpoint copies it into its own ({@link PrivateFileCopies}) and is reused from then on
 * with the copy. With local backup on, a snapshot is reused with its task-local copy: each reusing
 * checkpoint links that copy into its own local directory ({@link #reused}), since Flink drops an
 * older checkpoint's copies once a later one completes; a snapshot without one is not reused.
 */
final class IdleVnodeSnapshots {

    /**
     * A vnode snapshot that may be reused.
     *
     * @param takenAt the checkpoint whose snapshot of the instance produced it
     * @param sequence the instance's RocksDB sequence number at that snapshot
     * @param resolved the snapshot, its shared files resolved to the handles Flink holds
     * @param localCopy its task-local copy kept by the latest checkpoint that listed it; null
     *     without one
     */
    record Reusable(
            Object instance,
            long takenAt,
            long sequence,
            IncrementalRemoteKeyedStateHandle resolved,
            @Nullable Path localCopy) {

        /** The same snapshot with other private state (copies of its private files). */
        Reusable withPrivateState(
                List<HandleAndLocalPath> privateState, StreamStateHandle metaData) {
            return new Reusable(
                    instance,
                    takenAt,
                    sequence,
                    new IncrementalRemoteKeyedStateHandle(
                            resolved.getBackendIdentifier(),
                            resolved.getKeyGroupRange(),
                            resolved.getCheckpointId(),
                            resolved.getSharedState(),
                            privateState,
                            metaData,
                            resolved.getCheckpointedSize()),
                    localCopy);
        }

        /** The same snapshot with its task-local copy at {@code copy} (null: none). */
        Reusable withLocalCopy(@Nullable Path copy) {
            return new Reusable(instance, takenAt, sequence, resolved, copy);
        }

        /** For checkpoint {@code checkpointId}: the manifest's handle. */
        IncrementalRemoteKeyedStateHandle resolvedFor(long checkpointId) {
            return copy(resolved, checkpointId, resolved.getSharedState());
        }

        /**
         * For checkpoint {@code checkpointId}: as reported to Flink, every shared file a
         * placeholder.
         */
        IncrementalRemoteKeyedStateHandle reportedFor(long checkpointId) {
            List<HandleAndLocalPath> placeholders = new ArrayList<>();
            for (HandleAndLocalPath file : resolved.getSharedState()) {
                StreamStateHandle handle = file.getHandle();
                placeholders.add(
                        HandleAndLocalPath.of(
                                new PlaceholderStreamStateHandle(
                                        handle.getStreamStateHandleID(),
                                        handle.getStateSize(),
                                        FileMergingSnapshotManager.isFileMergingHandle(handle)),
                                file.getLocalPath()));
            }
            return copy(resolved, checkpointId, placeholders);
        }

        private static IncrementalRemoteKeyedStateHandle copy(
                IncrementalRemoteKeyedStateHandle handle,
                long checkpointId,
                List<HandleAndLocalPath> shared) {
            // new in this checkpoint: only copied private files (bytes count with the manifest)
            long privateBytes = fileBytes(handle.getMetaDataStateHandle());
            for (HandleAndLocalPath file : handle.getPrivateState()) {
                privateBytes += fileBytes(file.getHandle());
            }
            return new IncrementalRemoteKeyedStateHandle(
                    handle.getBackendIdentifier(),
                    handle.getKeyGroupRange(),
                    checkpointId,
                    shared,
                    handle.getPrivateState(),
                    handle.getMetaDataStateHandle(),
                    privateBytes);
        }

        private static long fileBytes(StreamStateHandle handle) {
            return handle instanceof ByteStreamStateHandle ? 0 : handle.getStateSize();
        }
    }

    private static final class Vnode {
        final Object instance;

        /** The latest checkpoint for which the instance snapshotted itself. */
        long lastTaken = -1;

        final TreeMap<Long, Long> sequenceAt = new TreeMap<>();

        /** Snapshots of checkpoints not yet complete, each reusable once its checkpoint is. */
        final TreeMap<Long, Reusable> pending = new TreeMap<>();

        Reusable confirmed;

        Vnode(Object instance) {
            this.instance = instance;
        }
    }

    private final Map<Integer, Vnode> byVnode = new HashMap<>();
    // a stop-with-savepoint is notified complete too, but it makes nothing reusable
    private final TreeSet<Long> savepoints = new TreeSet<>();

    synchronized void savepoint(long checkpointId) {
        savepoints.add(checkpointId);
    }

    /** The snapshot a checkpoint can use for the vnode, if its instance is unchanged since. */
    synchronized Optional<Reusable> reusable(int vnode, Object instance, long sequence) {
        Vnode state = byVnode.get(vnode);
        if (state == null || state.instance != instance || state.confirmed == null) {
            return Optional.empty();
        }
        Reusable confirmed = state.confirmed;
        if (sequence == VnodeWriteSequence.UNKNOWN
                || sequence != confirmed.sequence()
                || state.lastTaken != confirmed.takenAt()) {
            return Optional.empty();
        }
        return Optional.of(confirmed);
    }

    /**
     * Checkpoint {@code checkpointId} reused {@code reusable} for the vnode (with copies of its
     * private files in this checkpoint's directory, reused from now on).
     */
    synchronized void reused(long checkpointId, int vnode, Reusable reusable) {
        Vnode state = byVnode.get(vnode);
        if (state != null && state.instance == reusable.instance()) {
            state.pending.put(checkpointId, reusable);
        }
    }

    /** The synchronous part of the instance's own snapshot for a checkpoint (not a savepoint). */
    synchronized void taken(long checkpointId, int vnode, Object instance, long sequence) {
        Vnode state = byVnode.get(vnode);
        if (state == null || state.instance != instance) {
            state = new Vnode(instance);
            byVnode.put(vnode, state);
        }
        state.lastTaken = Math.max(state.lastTaken, checkpointId);
        state.sequenceAt.put(checkpointId, sequence);
    }

    /**
     * The instance's snapshot for the checkpoint finished, with its task-local copy in {@code
     * localCopy} (null: none); reusable once the checkpoint completes.
     */
    synchronized void finished(
            long checkpointId, int vnode, KeyedStateHandle resolved, @Nullable Path localCopy) {
        Vnode state = byVnode.get(vnode);
        Long sequence = state == null ? null : state.sequenceAt.remove(checkpointId);
        if (sequence == null
                || sequence == VnodeWriteSequence.UNKNOWN
                || !(resolved instanceof IncrementalRemoteKeyedStateHandle incremental)) {
            return;
        }
        state.pending.put(
                checkpointId,
                new Reusable(state.instance, checkpointId, sequence, incremental, localCopy));
    }

    synchronized void completed(long checkpointId) {
        if (savepoints.remove(checkpointId)) {
            return;
        }
        savepoints.headSet(checkpointId).clear();
        for (Vnode state : byVnode.values()) {
            Reusable reusable = state.pending.get(checkpointId);
            if (reusable != null) {
                state.confirmed = reusable;
            } else if (state.lastTaken == checkpointId) {
                state.confirmed = null; // its own snapshot cannot be reused
            }
            state.pending.headMap(checkpointId, true).clear();
            state.sequenceAt.headMap(checkpointId, true).clear();
        }
    }

    synchronized void aborted(long checkpointId) {
        savepoints.remove(checkpointId);
        for (Vnode state : byVnode.values()) {
            state.pending.remove(checkpointId);
            state.sequenceAt.remove(checkpointId);
        }
    }

    /** Forgets the vnodes no longer owned. */
    synchronized void retainOnly(Set<Integer> owned) {
        byVnode.keySet().retainAll(owned);
    }
}
