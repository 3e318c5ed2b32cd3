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

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import javax.annotation.Nullable;
import org.apache.flink.core.fs.Path;
import org.apache.flink.runtime.checkpoint.metadata.MetadataV3Serializer;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.StreamStateHandle;
import org.apache.flink.runtime.state.filesystem.FileStateHandle;

/**
 * What a Rhino keyed backend checkpoints for one subtask: the snapshot handle of each vnode it
 * owned, and which owned vnodes had nothing to snapshot (no state registered yet), so that a
 * restore gives the subtask exactly the vnodes it owned. Flink stores only this manifest's stream
 * (inside a standard {@code KeyGroupsStateHandle}), so Flink's metadata serializer never sees a
 * handle type it does not know; the vnode handles are written with Flink's own handle format.
 */
record VnodeManifest(
        int subtaskIndex,
        int parallelism,
        int numKeyGroups,
        int numVnodes,
        long checkpointId,
        SortedMap<Integer, KeyedStateHandle> handleByVnode,
        SortedSet<Integer> emptyVnodes,
        List<String> replicaHolders,
        SortedMap<Integer, TimerQueueHeads> timerHeadsByVnode) {

    static final int MAGIC = 0x52484E4F; // "RHNO"

    /**
     * Version 4 stores the first timer of each key group of a vnode's timer queues as of the
     * checkpoint ({@link TimerQueueHeads}); version 3 names the replication services that hold
     * every vnode's replica of the checkpoint; version 2 lists the empty vnodes and stores files in
     * the manifest's own directory relative to it; older manifests (version 1: all paths absolute,
     * no empty vnodes) are still read.
     */
    static final int VERSION = 4;

    VnodeManifest {
        handleByVnode = Collections.unmodifiableSortedMap(new TreeMap<>(handleByVnode));
        emptyVnodes = Collections.unmodifiableSortedSet(new TreeSet<>(emptyVnodes));
        replicaHolders = List.copyOf(replicaHolders);
        timerHeadsByVnode = Collections.unmodifiableSortedMap(new TreeMap<>(timerHeadsByVnode));
    }

    /** The cap on one vnode's serialized timer heads: 32,768 key groups of 2 KB heads. */
    private static final int MAX_TIMER_HEADS_BYTES = 64 << 20;

    /** Every vnode the subtask owned, with the handles to restore it from (none if empty). */
    SortedMap<Integer, List<KeyedStateHandle>> restoreHandlesByVnode() {
        SortedMap<Integer, List<KeyedStateHandle>> handles = new TreeMap<>();
        handleByVnode.forEach((vnode, handle) -> handles.put(vnode, List.of(handle)));
        emptyVnodes.forEach(vnode -> handles.put(vnode, List.of()));
        return handles;
    }

    void write(DataOutputStream out) throws IOException {
        // without timer heads, version 3: Rhino versions before 4 still restore such a checkpoint
        int version = timerHeadsByVnode.isEmpty() ? 3 : VERSION;
        out.writeInt(MAGIC);
        out.writeInt(version);
        out.writeInt(subtaskIndex);
        out.writeInt(parallelism);
        out.writeInt(numKeyGroups);
        out.writeInt(numVnodes);
        out.writeLong(checkpointId);
        out.writeInt(handleByVnode.size());
        for (Map.Entry<Integer, KeyedStateHandle> entry : handleByVnode.entrySet()) {
            out.writeInt(entry.getKey());
            MetadataV3Serializer.INSTANCE.serializeKeyedStateHandleUtil(
                    ManifestPaths.forManifest(entry.getValue()), out);
        }
        out.writeInt(emptyVnodes.size());
        for (int vnode : emptyVnodes) {
            out.writeInt(vnode);
        }
        out.writeInt(replicaHolders.size());
        for (String holder : replicaHolders) {
            out.writeUTF(holder);
        }
        if (version < 4) {
            out.flush();
            return;
        }
        out.writeInt(timerHeadsByVnode.size());
        for (Map.Entry<Integer, TimerQueueHeads> entry : timerHeadsByVnode.entrySet()) {
            byte[] heads = entry.getValue().toBytes();
            out.writeInt(entry.getKey());
            out.writeInt(heads.length);
            out.write(heads);
        }
        out.flush();
    }

    /**
     * Reads the manifest stored in {@code stream}, resolving relative files against its directory.
     */
    /**
     * Whether {@code stream} holds a vnode manifest, not the metadata of Flink's own RocksDB
     * backend (a native snapshot of a job on Flink's {@code keyBy}), which begins with a version.
     */
    static boolean isManifest(StreamStateHandle stream) throws IOException {
        try (DataInputStream in = new DataInputStream(stream.openInputStream())) {
            return in.readInt() == MAGIC;
        } catch (java.io.EOFException e) {
            return false;
        }
    }

    static VnodeManifest readFrom(StreamStateHandle stream) throws IOException {
        // a savepoint may have been moved since it was written: resolve against where it is now
        Path directory =
                stream instanceof FileStateHandle file ? file.getFilePath().getParent() : null;
        try (DataInputStream in = new DataInputStream(stream.openInputStream())) {
            return read(in, directory);
        }
    }

    /**
     * Reads a manifest; files stored relative to its directory are resolved against {@code
     * manifestDirectory}, null if the manifest was not read from a file.
     */
    static VnodeManifest read(DataInputStream in, @Nullable Path manifestDirectory)
            throws IOException {
        int magic = in.readInt();
        if (magic != MAGIC) {
            throw new IOException(
                    "Not a Rhino vnode manifest (magic 0x"
                            + Integer.toHexString(magic)
                            + "). The keyed state of this operator was not written by the Rhino "
                            + "state backend; restore it with the backend that wrote it.");
        }
        int version = in.readInt();
        if (version < 1 || version > VERSION) {
            throw new IOException(
                    "Rhino vnode manifest version "
                            + version
                            + " is not supported (expected: 1 to "
                            + VERSION
                            + "). It was written by a newer Rhino; restore it with that version.");
        }
        int subtaskIndex = in.readInt();
        int parallelism = in.readInt();
        int numKeyGroups = in.readInt();
        int numVnodes = in.readInt();
        long checkpointId = in.readLong();
        int count = in.readInt();
        SortedMap<Integer, KeyedStateHandle> handles = new TreeMap<>();
        for (int i = 0; i < count; i++) {
            int vnode = in.readInt();
            handles.put(
                    vnode,
                    ManifestPaths.resolve(
                            MetadataV3Serializer.INSTANCE.deserializeKeyedStateHandleUtil(in),
                            manifestDirectory));
        }
        SortedSet<Integer> emptyVnodes = new TreeSet<>();
        if (version >= 2) {
            int emptyCount = in.readInt();
            for (int i = 0; i < emptyCount; i++) {
                emptyVnodes.add(in.readInt());
            }
        }
        List<String> replicaHolders = new ArrayList<>();
        if (version >= 3) {
            int holders = in.readInt();
            if (holders < 0 || holders > 64) {
                throw new IOException("Corrupt Rhino vnode manifest: " + holders + " holders");
            }
            for (int i = 0; i < holders; i++) {
                replicaHolders.add(in.readUTF());
            }
        }
        SortedMap<Integer, TimerQueueHeads> timerHeads = new TreeMap<>();
        if (version >= 4) {
            int vnodes = in.readInt();
            if (vnodes < 0 || vnodes > numVnodes) {
                throw new IOException(
                        "Corrupt Rhino vnode manifest: timer heads of " + vnodes + " vnodes");
            }
            for (int i = 0; i < vnodes; i++) {
                int vnode = in.readInt();
                int length = in.readInt();
                if (length < 0 || length > MAX_TIMER_HEADS_BYTES) {
                    throw new IOException(
                            "Corrupt Rhino vnode manifest: timer heads of " + length + " bytes");
                }
                byte[] heads = new byte[length];
                in.readFully(heads);
                timerHeads.put(
                        vnode,
                        TimerQueueHeads.fromBytes(
                                heads, "vnode " + vnode + " in checkpoint " + checkpointId));
            }
        }
        return new VnodeManifest(
                subtaskIndex,
                parallelism,
                numKeyGroups,
                numVnodes,
                checkpointId,
                handles,
                emptyVnodes,
                replicaHolders,
                timerHeads);
    }
}
