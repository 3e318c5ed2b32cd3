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

import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.flink.runtime.state.CheckpointStateOutputStream;
import org.apache.flink.runtime.state.CheckpointStreamFactory;
import org.apache.flink.runtime.state.CheckpointedStateScope;
import org.apache.flink.runtime.state.IncrementalKeyedStateHandle.HandleAndLocalPath;
import org.apache.flink.runtime.state.IncrementalRemoteKeyedStateHandle;
import org.apache.flink.runtime.state.StreamStateHandle;
import org.apache.flink.runtime.state.memory.ByteStreamStateHandle;
import org.apache.flink.util.IOUtils;

/**
 * Copies a reused vnode snapshot's private files (its RocksDB OPTIONS, MANIFEST and metadata when
 * above Flink's small-file threshold) out of the earlier checkpoint's exclusive directory, which
 * Flink deletes once that checkpoint is subsumed. A file of up to {@link #MAX_BYTES_INLINED}
 * becomes bytes in the vnode manifest (an instance's OPTIONS file is about 21 KB, just above
 * Flink's default threshold), so later checkpoints that reuse the snapshot again copy nothing and
 * upload no file for the vnode; a larger one is copied into the reusing checkpoint's exclusive
 * directory. Private state that is bytes stays as it is.
 */
final class PrivateFileCopies {

    /** Bytes of a private file that the manifest holds instead of a copy. */
    static final int MAX_BYTES_INLINED = 64 * 1024;

    private final CheckpointStreamFactory streams;
    // every file written so far, to delete if the checkpoint fails before Flink owns them
    private final List<StreamStateHandle> written = new ArrayList<>();

    PrivateFileCopies(CheckpointStreamFactory streams) {
        this.streams = streams;
    }

    /** The snapshot with its private files copied into this checkpoint. */
    IdleVnodeSnapshots.Reusable copy(IdleVnodeSnapshots.Reusable reusable) throws Exception {
        IncrementalRemoteKeyedStateHandle handle = reusable.resolved();
        List<HandleAndLocalPath> privateState = new ArrayList<>();
        boolean copied = false;
        for (HandleAndLocalPath file : handle.getPrivateState()) {
            StreamStateHandle copy = copyOf(file.getHandle());
            copied |= copy != file.getHandle();
            privateState.add(HandleAndLocalPath.of(copy, file.getLocalPath()));
        }
        StreamStateHandle metaData = copyOf(handle.getMetaDataStateHandle());
        copied |= metaData != handle.getMetaDataStateHandle();
        return copied ? reusable.withPrivateState(privateState, metaData) : reusable;
    }

    /** Deletes the copies written, for a checkpoint that fails before it is reported. */
    void discard() {
        for (StreamStateHandle copy : written) {
            try {
                copy.discardState();
            } catch (Exception ignored) {
                // best effort: the checkpoint fails anyway
            }
        }
        written.clear();
    }

    private StreamStateHandle copyOf(StreamStateHandle original) throws Exception {
        if (original instanceof ByteStreamStateHandle) {
            return original; // bytes in the manifest: nothing to delete with its checkpoint
        }
        if (original.getStateSize() <= MAX_BYTES_INLINED) {
            try (InputStream in = original.openInputStream()) {
                return new ByteStreamStateHandle(
                        "reused-vnode-private-" + UUID.randomUUID(), in.readAllBytes());
            }
        }
        try (InputStream in = original.openInputStream();
                CheckpointStateOutputStream out =
                        streams.createCheckpointStateOutputStream(
                                CheckpointedStateScope.EXCLUSIVE)) {
            IOUtils.copyBytes(in, out, false);
            StreamStateHandle copy = out.closeAndGetHandle();
            written.add(copy);
            return copy;
        }
    }
}
