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
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import org.apache.flink.runtime.state.DirectoryStateHandle;
import org.apache.flink.runtime.state.IncrementalLocalKeyedStateHandle;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.filesystem.FileStateHandle;
import org.apache.flink.util.FileUtils;

/**
 * A vnode's state exported to a local directory: the RocksDB files (hard links where possible) and
 * the metadata, described by a standard {@link IncrementalLocalKeyedStateHandle} that a vnode
 * backend installs with hard links.
 *
 * @param vnode the exported vnode
 * @param directory the directory holding the export; delete it with {@link #delete} once installed
 * @param handle the handle to install from
 * @param copiedBytes bytes that had to be copied because no completed checkpoint held them
 */
public record VnodeExport(
        int vnode, Path directory, IncrementalLocalKeyedStateHandle handle, long copiedBytes) {

    /** The export directory's RocksDB files. */
    public Path dbDirectory() {
        return Path.of(handle.getDirectoryStateHandle().getDirectory().toUri());
    }

    /** The export's metadata file. */
    public Path metadataFile() {
        return Path.of(((FileStateHandle) handle.getMetaDataStateHandle()).getFilePath().toUri());
    }

    /** The files of the export a completed checkpoint already holds. */
    public UploadedFiles uploaded() {
        return UploadedFiles.of(handle);
    }

    /**
     * The handle a vnode backend installs from: RocksDB files in {@code db}, Flink's metadata in
     * {@code metadata}, both local. The uploaded files become the installed RocksDB backend's
     * incremental checkpoint history, as when Flink restores a backend from its own checkpoint: its
     * next checkpoint refers to them (see {@link VnodeKeyedStateBackend#installMovedVnode}).
     */
    public static IncrementalLocalKeyedStateHandle localHandle(
            Path db, Path metadata, KeyGroupRange keyGroupRange, UploadedFiles uploaded)
            throws IOException {
        return new IncrementalLocalKeyedStateHandle(
                UUID.randomUUID(),
                uploaded.checkpointId(),
                DirectoryStateHandle.forPathWithSize(db),
                keyGroupRange,
                new FileStateHandle(
                        new org.apache.flink.core.fs.Path(metadata.toUri()), Files.size(metadata)),
                uploaded.files());
    }

    /** Deletes the export directory; installed vnodes keep their own hard links. */
    public void delete() throws IOException {
        FileUtils.deleteDirectory(directory.toFile());
    }
}
