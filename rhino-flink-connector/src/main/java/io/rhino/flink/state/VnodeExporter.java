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
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.apache.flink.core.memory.DataOutputViewStreamWrapper;
import org.apache.flink.runtime.state.CheckpointableKeyedStateBackend;
import org.apache.flink.runtime.state.FullSnapshotResources;
import org.apache.flink.runtime.state.IncrementalLocalKeyedStateHandle;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyedBackendSerializationProxy;
import org.apache.flink.runtime.state.SavepointResources;
import org.apache.flink.runtime.state.UncompressedStreamCompressionDecorator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Exports one vnode without copying its data: a RocksDB checkpoint of the running instance (hard
 * links to every live SST file, copies of the small MANIFEST, CURRENT and OPTIONS files) is the
 * exported database, and Flink's metadata for it (the instance's state descriptions, as its
 * incremental snapshots write them) goes beside it.
 *
 * <p>The instance first flushes what Flink still buffers for it (its write batch), so the
 * checkpoint holds every write the vnode received; both steps run in the task thread, so no record
 * comes in between. The handle also lists the exported SST files a completed checkpoint already
 * holds ({@link UploadedFiles}), so that the new owner's next checkpoint does not upload them
 * again. Before, an incremental snapshot uploaded (copied) every SST file the instance had written
 * since the last completed checkpoint: 1 GB at 5 GB of state after compaction.
 *
 * <p>The export carries the instance's {@code IDENTITY} file, which a RocksDB checkpoint leaves
 * out: without it, the target's open writes and syncs a new one.
 *
 * <p>The first timer of each key group of the vnode's timer queues, as the origin's queues hold
 * them in memory, goes into the exported RocksDB directory ({@link TimerQueueHeads}): the target
 * then creates its timer queues without a seek per key group into an instance it has not read yet.
 */
final class VnodeExporter {

    private static final Logger LOG = LoggerFactory.getLogger(VnodeExporter.class);
    private static final String DB_DIR = "db";
    private static final String METADATA_FILE = "metadata";

    private VnodeExporter() {}

    static VnodeExport export(
            CheckpointableKeyedStateBackend<?> vnodeBackend,
            int vnode,
            KeyGroupRange keyGroupRange,
            Path directory,
            UploadedFiles uploaded,
            TimerQueueHeads timerHeads)
            throws Exception {
        if (Files.exists(directory)) {
            throw new IOException(
                    "Export directory " + directory + " already exists; choose a new one.");
        }
        Files.createDirectories(directory);
        Path db = directory.resolve(DB_DIR);
        Path metadata = directory.resolve(METADATA_FILE);
        long start = System.nanoTime();
        // flushes Flink's write batch and describes the instance's states
        SavepointResources<?> resources = vnodeBackend.savepoint();
        FullSnapshotResources<?> described = resources.getSnapshotResources();
        long memtableBytes =
                LOG.isDebugEnabled() ? LiveInstanceFiles.memtableBytes(vnodeBackend) : -1;
        long batchFlushed = System.nanoTime();
        long checkpointed;
        try {
            LiveInstanceFiles.checkpoint(vnodeBackend, db);
            checkpointed = System.nanoTime();
            LiveInstanceFiles.copyIdentity(vnodeBackend, db);
            timerHeads.writeInto(db);
            writeMetadata(described, metadata);
        } finally {
            described.release();
        }
        if (LOG.isDebugEnabled()) {
            LOG.debug(
                    "Exported vnode {} in {} ms: write batch and state descriptions {} ms, RocksDB"
                            + " checkpoint {} ms (memtables of {} bytes to flush), timer heads and"
                            + " metadata {} ms",
                    vnode,
                    millisSince(start),
                    (batchFlushed - start) / 1_000_000,
                    (checkpointed - batchFlushed) / 1_000_000,
                    memtableBytes,
                    millisSince(checkpointed));
        }
        IncrementalLocalKeyedStateHandle handle =
                VnodeExport.localHandle(db, metadata, keyGroupRange, uploaded.presentIn(db));
        return new VnodeExport(vnode, directory, handle, copiedBytes(db));
    }

    private static long millisSince(long nanos) {
        return (System.nanoTime() - nanos) / 1_000_000;
    }

    /** Flink's metadata of an incremental RocksDB snapshot: the state descriptions. */
    private static <K> void writeMetadata(FullSnapshotResources<K> described, Path file)
            throws IOException {
        boolean compressed =
                !UncompressedStreamCompressionDecorator.INSTANCE.equals(
                        described.getStreamCompressionDecorator());
        try (OutputStream out = Files.newOutputStream(file)) {
            new KeyedBackendSerializationProxy<>(
                            described.getKeySerializer(),
                            described.getMetaInfoSnapshots(),
                            compressed)
                    .write(new DataOutputViewStreamWrapper(out));
        }
    }

    /** Bytes RocksDB copied into the checkpoint (its small files; SST files are linked). */
    private static long copiedBytes(Path db) throws IOException {
        long copied = 0;
        try (Stream<Path> files = Files.list(db)) {
            for (Path file : files.toList()) {
                if (!file.getFileName().toString().endsWith(".sst")) {
                    copied += Files.size(file);
                }
            }
        }
        return copied;
    }
}
