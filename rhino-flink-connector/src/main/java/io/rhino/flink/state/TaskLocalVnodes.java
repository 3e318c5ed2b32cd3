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

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.flink.runtime.state.DirectoryStateHandle;
import org.apache.flink.runtime.state.IncrementalLocalKeyedStateHandle;
import org.apache.flink.runtime.state.IncrementalRemoteKeyedStateHandle;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.StreamStateHandle;
import org.apache.flink.runtime.state.memory.ByteStreamStateHandle;
import org.apache.flink.util.InstantiationUtil;

/**
 * Flink's task-local recovery ({@code execution.checkpointing.local-backup.enabled}, {@code
 * execution.state-recovery.from-local}) for vnode state: a subtask that restarts on the TaskManager
 * it ran on restores its vnodes from the local copies their RocksDB snapshots kept there, instead
 * of downloading them from the checkpoint storage or fetching them from replica holders.
 *
 * <p>Each vnode's RocksDB snapshot already writes its local copy into the subtask's local
 * checkpoint directory ({@code <backend id>} under {@code chk_<id>}). The subtask reports them to
 * Flink as one local alternative of its snapshot, with its key-group range so that Flink pairs it
 * with the remote handle: an {@link IncrementalLocalKeyedStateHandle} of that directory whose
 * metadata is a pointer (in memory, never a file) to the remote {@link VnodeManifest} and the name
 * of each vnode's copy. Flink's task-local state store keeps it, deletes it once a later checkpoint
 * completes or the job leaves the TaskManager, and offers it first when the subtask restores in the
 * same slot. Restoring reads the manifest from the checkpoint storage (a small file) and opens each
 * vnode from its local copy, which hard-links the files; a vnode without a copy restores as before.
 * With replication, the pointer also says where the chain held each vnode's files, so that the
 * restored vnode's first replicated checkpoint sends only what is new (as after a restore from a
 * replica). Discarding the pointer discards nothing: the manifest is the remote handle's.
 */
final class TaskLocalVnodes {

    private static final String POINTER_PREFIX = "rhino-task-local-vnodes-";
    private static final int FORMAT = 1;

    /**
     * The remote manifest, where each vnode's local copy lies, and where the replica chain held
     * each vnode's files when the snapshot was taken (to seed its replication after the restore).
     */
    record Pointer(
            StreamStateHandle manifest,
            Map<Integer, Path> copyByVnode,
            Map<Integer, VnodeReplication.HeldReplica> heldByChain) {}

    private TaskLocalVnodes() {}

    /**
     * The subtask's local alternative: the vnodes' local copies, which must share one parent
     * directory (Flink's local checkpoint directory of the subtask); empty if there are none or
     * they do not.
     */
    static Optional<IncrementalLocalKeyedStateHandle> alternative(
            UUID backendIdentifier,
            KeyGroupRange subtaskKeyGroups,
            long checkpointId,
            StreamStateHandle manifest,
            Map<Integer, IncrementalLocalKeyedStateHandle> copyByVnode,
            Map<Integer, VnodeReplication.HeldReplica> heldByChain)
            throws IOException {
        if (copyByVnode.isEmpty()) {
            return Optional.empty();
        }
        Path parent = null;
        long bytes = 0;
        Map<Integer, String> names = new TreeMap<>();
        for (Map.Entry<Integer, IncrementalLocalKeyedStateHandle> copy : copyByVnode.entrySet()) {
            DirectoryStateHandle directory = copy.getValue().getDirectoryStateHandle();
            Path path = directory.getDirectory();
            if (path.getParent() == null || (parent != null && !parent.equals(path.getParent()))) {
                return Optional.empty();
            }
            parent = path.getParent();
            names.put(copy.getKey(), path.getFileName().toString());
            bytes += directory.getStateSize();
        }
        ByteArrayOutputStream pointer = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(pointer)) {
            out.writeInt(FORMAT);
            byte[] manifestHandle = InstantiationUtil.serializeObject(manifest);
            out.writeInt(manifestHandle.length);
            out.write(manifestHandle);
            out.writeInt(names.size());
            for (Map.Entry<Integer, String> name : names.entrySet()) {
                out.writeInt(name.getKey());
                out.writeUTF(name.getValue());
                VnodeReplication.HeldReplica held = heldByChain.get(name.getKey());
                out.writeBoolean(held != null);
                if (held != null) {
                    out.writeUTF(held.directory());
                    out.writeInt(held.sstFiles().size());
                    for (String sst : held.sstFiles()) {
                        out.writeUTF(sst);
                    }
                }
            }
        }
        return Optional.of(
                new IncrementalLocalKeyedStateHandle(
                        backendIdentifier,
                        checkpointId,
                        new DirectoryStateHandle(parent, bytes),
                        subtaskKeyGroups,
                        new ByteStreamStateHandle(
                                POINTER_PREFIX + checkpointId, pointer.toByteArray()),
                        List.of()));
    }

    /** The pointer inside a local alternative this class wrote; empty for any other handle. */
    static Optional<Pointer> pointerOf(KeyedStateHandle handle, ClassLoader classLoader)
            throws IOException {
        if (!(handle instanceof IncrementalLocalKeyedStateHandle local)
                || !(local.getMetaDataStateHandle() instanceof ByteStreamStateHandle bytes)
                || !bytes.getHandleName().startsWith(POINTER_PREFIX)) {
            return Optional.empty();
        }
        Path parent = local.getDirectoryStateHandle().getDirectory();
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes.getData()))) {
            int format = in.readInt();
            if (format != FORMAT) {
                throw new IOException(
                        "Unknown format " + format + " of a task-local Rhino snapshot " + bytes);
            }
            byte[] manifestHandle = new byte[in.readInt()];
            in.readFully(manifestHandle);
            StreamStateHandle manifest =
                    InstantiationUtil.deserializeObject(manifestHandle, classLoader);
            int vnodes = in.readInt();
            Map<Integer, Path> copyByVnode = new TreeMap<>();
            Map<Integer, VnodeReplication.HeldReplica> heldByChain = new TreeMap<>();
            for (int i = 0; i < vnodes; i++) {
                int vnode = in.readInt();
                copyByVnode.put(vnode, parent.resolve(in.readUTF()));
                if (in.readBoolean()) {
                    String directory = in.readUTF();
                    Set<String> sstFiles = new HashSet<>();
                    for (int n = in.readInt(); n > 0; n--) {
                        sstFiles.add(in.readUTF());
                    }
                    heldByChain.put(vnode, new VnodeReplication.HeldReplica(directory, sstFiles));
                }
            }
            return Optional.of(new Pointer(manifest, copyByVnode, heldByChain));
        } catch (ClassNotFoundException e) {
            throw new IOException("Cannot read a task-local Rhino snapshot " + bytes, e);
        }
    }

    /**
     * The handle that restores {@code vnode} from its local copy {@code copy}, with the remote
     * handle's identity and shared files (so the vnode's next checkpoint uploads only new files);
     * empty if the copy is gone or the vnode's snapshot is not an incremental one.
     */
    static Optional<KeyedStateHandle> fromCopy(List<KeyedStateHandle> remoteHandles, Path copy) {
        if (copy == null
                || remoteHandles.size() != 1
                || !(remoteHandles.get(0) instanceof IncrementalRemoteKeyedStateHandle remote)
                || !Files.isRegularFile(copy.resolve("CURRENT"))) {
            return Optional.empty();
        }
        return Optional.of(
                new IncrementalLocalKeyedStateHandle(
                        remote.getBackendIdentifier(),
                        remote.getCheckpointId(),
                        DirectoryStateHandle.forPathWithSize(copy),
                        remote.getKeyGroupRange(),
                        remote.getMetaDataStateHandle(),
                        remote.getSharedState()));
    }
}
