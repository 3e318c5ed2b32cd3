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

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.runtime.checkpoint.CheckpointOptions;
import org.apache.flink.runtime.state.CheckpointableKeyedStateBackend;
import org.apache.flink.runtime.state.IncrementalKeyedStateHandle.HandleAndLocalPath;
import org.apache.flink.runtime.state.IncrementalLocalKeyedStateHandle;
import org.apache.flink.runtime.state.IncrementalRemoteKeyedStateHandle;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.SnapshotResult;
import org.apache.flink.runtime.state.StreamStateHandle;
import org.apache.flink.runtime.state.filesystem.FileStateHandle;
import org.apache.flink.runtime.state.filesystem.FsCheckpointStreamFactory;
import org.apache.flink.util.FileUtils;
import org.apache.flink.util.concurrent.FutureUtils;

/**
 * Exports one vnode: takes an incremental RocksDB snapshot of its delegate backend whose new files
 * go to a local staging directory, then lays every file of the snapshot (new ones and those of
 * earlier checkpoints) out in one RocksDB directory, by hard link when the file is local.
 */
final class VnodeExporter {

    private static final org.slf4j.Logger LOG =
            org.slf4j.LoggerFactory.getLogger(VnodeExporter.class);

    private static final String DB_DIR = "db";
    private static final String STAGING_DIR = "staging";
    private static final String LIVE_DIR = "live";
    private static final String METADATA_FILE = "metadata";

    private VnodeExporter() {}

    static VnodeExport export(
            CheckpointableKeyedStateBackend<?> vnodeBackend,
            long exportId,
            int vnode,
            KeyGroupRange keyGroupRange,
            VnodeFileRegistry files,
            Path directory)
            throws Exception {
        if (Files.exists(directory)) {
            throw new IOException(
                    "Export directory " + directory + " already exists; choose a new one.");
        }
        Path staging = directory.resolve(STAGING_DIR);
        Path db = directory.resolve(DB_DIR);
        Files.createDirectories(staging);
        Files.createDirectories(db);
        org.apache.flink.core.fs.Path stagingPath =
                new org.apache.flink.core.fs.Path(staging.toUri());
        FsCheckpointStreamFactory stagingFactory =
                new FsCheckpointStreamFactory(
                        FileSystem.getLocalFileSystem(), stagingPath, stagingPath, 0, 64 * 1024);

        // Before the snapshot: it then holds every file the snapshot shares with the last completed
        // checkpoint (see LiveInstanceFiles), so none is read from the checkpoint storage.
        Path live = directory.resolve(LIVE_DIR);
        LiveInstanceFiles.checkpoint(vnodeBackend, live);

        KeyedStateHandle snapshot;
        try {
            SnapshotResult<KeyedStateHandle> result =
                    FutureUtils.runIfNotDoneAndGet(
                            vnodeBackend.snapshot(
                                    exportId,
                                    System.currentTimeMillis(),
                                    stagingFactory,
                                    CheckpointOptions.forCheckpointWithDefaultLocation()));
            LocalSnapshots.discard(result);
            snapshot = result.getJobManagerOwnedSnapshot();
        } finally {
            // Forget the pseudo-checkpoint so that later checkpoints never refer to staging files.
            if (vnodeBackend instanceof CheckpointListener listener) {
                listener.notifyCheckpointAborted(exportId);
            }
        }
        if (!(snapshot instanceof IncrementalRemoteKeyedStateHandle)) {
            throw new IllegalStateException(
                    "Exporting vnode "
                            + vnode
                            + " needs incremental RocksDB snapshots, got "
                            + (snapshot == null ? "none" : snapshot.getClass().getSimpleName())
                            + ". Set 'execution.checkpointing.incremental: true'.");
        }
        IncrementalRemoteKeyedStateHandle resolved =
                (IncrementalRemoteKeyedStateHandle) files.resolveWithoutRegistering(snapshot);

        long copiedBytes = 0;
        List<HandleAndLocalPath> all = new ArrayList<>(resolved.getSharedState());
        all.addAll(resolved.getPrivateState());
        for (HandleAndLocalPath file : all) {
            copiedBytes +=
                    materialize(
                            file.getHandle(),
                            db.resolve(file.getLocalPath()),
                            live.resolve(file.getLocalPath()),
                            staging);
        }
        Path metadata = directory.resolve(METADATA_FILE);
        copiedBytes +=
                materialize(
                        resolved.getMetaDataStateHandle(),
                        metadata,
                        live.resolve(METADATA_FILE),
                        staging);
        FileUtils.deleteDirectory(staging.toFile());
        FileUtils.deleteDirectory(live.toFile());

        IncrementalLocalKeyedStateHandle handle =
                VnodeExport.localHandle(db, metadata, keyGroupRange);
        return new VnodeExport(vnode, directory, handle, copiedBytes);
    }

    /**
     * Puts the handle's bytes at {@code target}: a hard link to the same file of the live instance
     * ({@code liveCopy}; SST files are immutable and uniquely named) or to a local file, else a
     * copy. Returns the bytes written by the snapshot itself (files in the staging directory) or
     * copied.
     */
    private static long materialize(
            StreamStateHandle handle, Path target, Path liveCopy, Path staging) throws IOException {
        if (!(handle instanceof FileStateHandle local && isLocal(local) && isIn(local, staging))
                && Files.isRegularFile(liveCopy)
                && Files.size(liveCopy) == handle.getStateSize()) {
            Files.createLink(target, liveCopy);
            return 0L;
        }
        if (handle instanceof FileStateHandle fileHandle
                && "file".equals(fileHandle.getFilePath().toUri().getScheme())) {
            Path source = Paths.get(fileHandle.getFilePath().toUri());
            try {
                Files.createLink(target, source);
                return source.startsWith(staging) ? Files.size(target) : 0L;
            } catch (IOException | UnsupportedOperationException e) {
                // different filesystem: fall through to a copy
            }
        }
        LOG.warn(
                "Export copies {} ({} bytes) from the checkpoint storage: the live RocksDB instance"
                        + " no longer has it",
                handle,
                handle.getStateSize());
        try (InputStream in = handle.openInputStream()) {
            return Files.copy(in, target);
        }
    }

    private static boolean isLocal(FileStateHandle handle) {
        return "file".equals(handle.getFilePath().toUri().getScheme());
    }

    private static boolean isIn(FileStateHandle handle, Path directory) {
        return Paths.get(handle.getFilePath().toUri()).startsWith(directory);
    }
}
