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

package io.rhino.flink.replication;

import io.rhino.replication.store.ReplicaStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.runtime.state.DirectoryStateHandle;
import org.apache.flink.runtime.state.IncrementalKeyedStateHandle.HandleAndLocalPath;
import org.apache.flink.runtime.state.IncrementalLocalKeyedStateHandle;
import org.apache.flink.runtime.state.IncrementalRemoteKeyedStateHandle;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.util.FileUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Restores vnodes from the replicas on this TaskManager instead of the checkpoint storage: the
 * failover of the Rhino design, where a subtask that lands on a member of its old replica chain
 * finds its state on the local disk.
 *
 * <p>A vnode is restored from its replica when this TaskManager holds the replica's listing of the
 * very checkpoint Flink restores, every file it names, and the same SST files (by name and size) as
 * Flink's handle. The replica's files are linked into a RocksDB directory described by a local
 * handle with the remote handle's identity and shared files, so the next incremental checkpoint
 * still reuses the files already in the checkpoint storage. Flink's small metadata file is read
 * from the checkpoint storage as before. Anything else falls back to Flink's handle.
 */
public final class ReplicaRestore implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ReplicaRestore.class);

    private final ReplicaStore store;
    private final String operatorPrefix;
    private final Path workDirectory;
    private final List<Path> assembled = new ArrayList<>();
    private int restoredVnodes;
    private long linkedBytes;

    private ReplicaRestore(ReplicaStore store, String operatorPrefix, Path workDirectory) {
        this.store = store;
        this.operatorPrefix = operatorPrefix;
        this.workDirectory = workDirectory;
    }

    /**
     * Restores from {@code store}, the replicas of {@code operatorPrefix}, assembling RocksDB
     * directories under {@code workDirectory}.
     */
    public static ReplicaRestore from(
            ReplicaStore store, String operatorPrefix, Path workDirectory) {
        return new ReplicaRestore(store, operatorPrefix, workDirectory);
    }

    /**
     * The handles to restore {@code vnode} from: one local handle over its replica, or {@code
     * handles} if no usable replica is here.
     */
    public List<KeyedStateHandle> handlesFor(int vnode, List<KeyedStateHandle> handles) {
        if (handles.size() != 1
                || !(handles.get(0) instanceof IncrementalRemoteKeyedStateHandle remote)) {
            return handles;
        }
        try {
            Optional<Map<String, Path>> replica = replicaOf(vnode, remote);
            if (replica.isEmpty()) {
                return handles;
            }
            Path db =
                    Files.createDirectories(
                            workDirectory.resolve(
                                    "restore-vnode-"
                                            + vnode
                                            + "-chk-"
                                            + remote.getCheckpointId()
                                            + "-"
                                            + System.nanoTime()));
            assembled.add(db);
            long bytes = 0;
            for (Map.Entry<String, Path> file : replica.get().entrySet()) {
                link(file.getValue(), db.resolve(file.getKey()));
                bytes += Files.size(file.getValue());
            }
            restoredVnodes++;
            linkedBytes += bytes;
            LOG.info(
                    "Vnode {} restores checkpoint {} from this TaskManager's replica ({} files,"
                            + " {} bytes linked, none downloaded)",
                    vnode,
                    remote.getCheckpointId(),
                    replica.get().size(),
                    bytes);
            return List.of(
                    new IncrementalLocalKeyedStateHandle(
                            remote.getBackendIdentifier(),
                            remote.getCheckpointId(),
                            DirectoryStateHandle.forPathWithSize(db),
                            remote.getKeyGroupRange(),
                            remote.getMetaDataStateHandle(),
                            remote.getSharedState()));
        } catch (IOException e) {
            LOG.warn(
                    "Vnode {}: the replica of checkpoint {} on this TaskManager is unusable ({});"
                            + " restoring from the checkpoint storage",
                    vnode,
                    remote.getCheckpointId(),
                    e.toString());
            return handles;
        }
    }

    /** The replica's files by RocksDB file name, if it is whole and matches Flink's handle. */
    private Optional<Map<String, Path>> replicaOf(
            int vnode, IncrementalRemoteKeyedStateHandle remote) throws IOException {
        String vnodeDirectory = ReplicaListing.vnodeDirectory(operatorPrefix, vnode);
        Optional<Path> listingFile =
                store.file(ReplicaListing.path(vnodeDirectory, remote.getCheckpointId()));
        if (listingFile.isEmpty()) {
            return Optional.empty();
        }
        ReplicaListing listing = ReplicaListing.read(listingFile.get());
        Map<String, Path> files = new HashMap<>();
        for (String listed : listing.files()) {
            Optional<Path> file = store.file(vnodeDirectory + "/" + listed);
            if (file.isEmpty()) {
                return unusable(vnode, remote, "it lacks " + listed);
            }
            files.put(listed.substring(listed.lastIndexOf('/') + 1), file.get());
        }
        // Flink's snapshot and the replica's capture are two RocksDB checkpoints of the same
        // instance, taken one after the other in the synchronous phase: the same data. Their SST
        // sets differ only if a compaction ended in between, and a file name of one instance
        // always means the same contents; a size that differs means a damaged copy.
        for (HandleAndLocalPath shared : remote.getSharedState()) {
            Path file = files.get(shared.getLocalPath());
            long size = shared.getStateSize();
            if (file != null && size > 0 && Files.size(file) != size) {
                return unusable(
                        vnode,
                        remote,
                        shared.getLocalPath()
                                + " has "
                                + Files.size(file)
                                + " bytes, Flink's copy "
                                + size);
            }
        }
        if (files.keySet().stream().noneMatch(name -> name.startsWith("MANIFEST"))) {
            return unusable(vnode, remote, "it has no RocksDB MANIFEST");
        }
        return Optional.of(files);
    }

    private static Optional<Map<String, Path>> unusable(
            int vnode, IncrementalRemoteKeyedStateHandle remote, String why) {
        LOG.info(
                "Vnode {}: this TaskManager's replica of checkpoint {} is not used: {}",
                vnode,
                remote.getCheckpointId(),
                why);
        return Optional.empty();
    }

    private static void link(Path source, Path target) throws IOException {
        try {
            Files.createLink(target, source);
        } catch (IOException | UnsupportedOperationException e) {
            Files.copy(source, target); // the store is on another filesystem
        }
    }

    /** Vnodes restored from replicas so far. */
    public int restoredVnodes() {
        return restoredVnodes;
    }

    /** Bytes of the replicas those vnodes were restored from. */
    public long linkedBytes() {
        return linkedBytes;
    }

    /** Deletes the assembled directories; restored instances keep their own links. */
    @Override
    public void close() {
        for (Path db : assembled) {
            FileUtils.deleteDirectoryQuietly(db.toFile());
        }
        assembled.clear();
    }
}
