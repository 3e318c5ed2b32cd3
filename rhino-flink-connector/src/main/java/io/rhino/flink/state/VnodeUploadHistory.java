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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.flink.runtime.state.IncrementalKeyedStateHandle.HandleAndLocalPath;
import org.apache.flink.runtime.state.IncrementalRemoteKeyedStateHandle;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.PlaceholderStreamStateHandle;
import org.apache.flink.runtime.state.StreamStateHandle;

/**
 * Which SST files of each owned vnode a completed checkpoint holds, so that an export can hand them
 * to the vnode's next owner ({@link UploadedFiles}) instead of that owner uploading the whole vnode
 * again in its next checkpoint.
 *
 * <p>It follows each vnode's RocksDB instance as Flink's incremental snapshot strategy in that
 * instance does: a snapshot's base is the last checkpoint notified complete that the instance took
 * part in, minus the files a later snapshot uploaded again. The files it hands on must outlive the
 * handover in Flink's {@code SharedStateRegistry}, which deletes a file once no retained checkpoint
 * refers to it. They do when every checkpoint that can complete before the new owner's first one
 * refers to them by the same handle. That fails when a later snapshot uploads a file of the base
 * again (its own base was older, because the completion was notified after it started; Flink's
 * FLINK-25395): once that checkpoint completes, it subsumes the base and the old handle is deleted.
 * So files uploaded again by a finished snapshot are left out, and nothing is handed on while a
 * snapshot that started from an older base is still running, or when a snapshot ended without
 * telling what it uploaded.
 */
final class VnodeUploadHistory {

    /** One vnode's RocksDB instance; a vnode removed and added again is a new instance. */
    private static final class Instance {
        /** The completed checkpoint the instance bases its next snapshot on; -1 for none. */
        long base = -1;

        /** Finished snapshots from the base on, by checkpoint. */
        final TreeMap<Long, Snapshot> finished = new TreeMap<>();

        /** Running snapshots: checkpoint -> the base when it started. */
        final Map<Long, Long> running = new HashMap<>();

        /** The latest checkpoint whose snapshot ended without telling what it uploaded. */
        long unknownUploads = -1;
    }

    /**
     * @param files every SST file, by local name, with the handle the checkpoint holds it as
     * @param uploaded the local names of the files this snapshot uploaded (not placeholders)
     */
    private record Snapshot(Map<String, StreamStateHandle> files, Set<String> uploaded) {}

    private final Map<Integer, Instance> byVnode = new HashMap<>();

    /** A new instance of the vnode: created, restored, or installed with inherited files. */
    synchronized void added(int vnode, UploadedFiles inherited) {
        Instance instance = new Instance();
        if (!inherited.isEmpty()) {
            // as Flink's restore sets up the instance: the inherited checkpoint is its base
            Map<String, StreamStateHandle> files = new LinkedHashMap<>();
            inherited.files().forEach(file -> files.put(file.getLocalPath(), file.getHandle()));
            instance.base = inherited.checkpointId();
            instance.finished.put(
                    inherited.checkpointId(), new Snapshot(files, Set.copyOf(files.keySet())));
        }
        byVnode.put(vnode, instance);
    }

    synchronized void removed(int vnode) {
        byVnode.remove(vnode);
    }

    /** A checkpoint (not a savepoint) took the synchronous snapshot of these vnodes. */
    synchronized void started(long checkpointId, Collection<Integer> vnodes) {
        for (int vnode : vnodes) {
            Instance instance = byVnode.get(vnode);
            if (instance != null) {
                instance.running.put(checkpointId, instance.base);
            }
        }
    }

    /**
     * A vnode's snapshot of a checkpoint finished.
     *
     * @param reported the handle as the vnode's backend reported it, with placeholders
     * @param resolved the same handle with placeholders resolved to the real handles
     */
    synchronized void finished(
            long checkpointId, int vnode, KeyedStateHandle reported, KeyedStateHandle resolved) {
        Instance instance = byVnode.get(vnode);
        if (instance == null || instance.running.remove(checkpointId) == null) {
            return; // the vnode left (or left and came back) while it was uploaded
        }
        if (!(reported instanceof IncrementalRemoteKeyedStateHandle asReported)
                || !(resolved instanceof IncrementalRemoteKeyedStateHandle asResolved)) {
            return; // not an incremental snapshot: nothing the instance bases later ones on
        }
        List<HandleAndLocalPath> reportedFiles = asReported.getSharedState();
        List<HandleAndLocalPath> resolvedFiles = asResolved.getSharedState();
        Map<String, StreamStateHandle> files = new LinkedHashMap<>();
        Set<String> uploaded = new HashSet<>();
        for (int i = 0; i < reportedFiles.size(); i++) {
            String name = reportedFiles.get(i).getLocalPath();
            files.put(name, resolvedFiles.get(i).getHandle());
            if (!(reportedFiles.get(i).getHandle() instanceof PlaceholderStreamStateHandle)) {
                uploaded.add(name);
            }
        }
        instance.finished.put(checkpointId, new Snapshot(files, uploaded));
    }

    /**
     * The checkpoint's snapshot ended, successfully or not. A vnode snapshot that did not finish
     * may still have been recorded by its instance, with uploads this history never saw.
     */
    synchronized void ended(long checkpointId) {
        for (Instance instance : byVnode.values()) {
            if (instance.running.remove(checkpointId) != null) {
                instance.unknownUploads = Math.max(instance.unknownUploads, checkpointId);
            }
        }
    }

    /** As the instances do: a completed checkpoint they took part in becomes their base. */
    synchronized void completed(long checkpointId) {
        for (Instance instance : byVnode.values()) {
            if (checkpointId > instance.base && instance.finished.containsKey(checkpointId)) {
                instance.base = checkpointId;
                instance.finished.headMap(checkpointId).clear();
            }
        }
    }

    synchronized void aborted(long checkpointId) {
        for (Instance instance : byVnode.values()) {
            if (checkpointId != instance.base) {
                instance.finished.remove(checkpointId);
            }
        }
    }

    /** The vnode's files that its next owner can refer to instead of uploading them again. */
    synchronized UploadedFiles reusable(int vnode) {
        Instance instance = byVnode.get(vnode);
        if (instance == null || instance.base < 0 || instance.unknownUploads > instance.base) {
            return UploadedFiles.NONE;
        }
        for (long startedFrom : instance.running.values()) {
            if (startedFrom < instance.base) {
                return UploadedFiles.NONE; // it may upload files of the base again
            }
        }
        Map<String, StreamStateHandle> files =
                new LinkedHashMap<>(instance.finished.get(instance.base).files());
        for (Snapshot later : instance.finished.tailMap(instance.base, false).values()) {
            files.keySet().removeAll(later.uploaded());
        }
        List<HandleAndLocalPath> reusable = new ArrayList<>(files.size());
        files.forEach((name, handle) -> reusable.add(HandleAndLocalPath.of(handle, name)));
        return reusable.isEmpty() ? UploadedFiles.NONE : new UploadedFiles(instance.base, reusable);
    }
}
