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

import static io.rhino.flink.state.FlinkMembers.field;

import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Optional;
import org.apache.flink.runtime.state.CheckpointableKeyedStateBackend;
import org.apache.flink.runtime.state.LocalRecoveryConfig;
import org.apache.flink.state.rocksdb.RocksDBKeyedStateBackend;
import org.apache.flink.state.rocksdb.snapshot.RocksDBSnapshotStrategyBase;
import org.rocksdb.Checkpoint;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;

/**
 * The files of a vnode's running RocksDB instance, taken as a RocksDB checkpoint: hard links to the
 * live SST files (and copies of the small manifest files) in a local directory, made in the task
 * thread in milliseconds whatever the state size.
 *
 * <p>An export resolves the files it shares with the last completed checkpoint from here rather
 * than from the checkpoint storage, which may be remote (HDFS, S3): every such file is in this
 * checkpoint if it is taken before the export's snapshot, because an SST file that leaves the live
 * set never returns, and a file in both the earlier checkpoint and the later snapshot was live in
 * between.
 *
 * <p>Flink's RocksDB backend does not expose its {@code RocksDB} handle; this reads its protected
 * {@code db} field (Flink 2.2.1), failing with a message naming the field if it is not there.
 */
public final class LiveInstanceFiles {

    private static final Field DB = dbField();
    private static final String MEMTABLE_BYTES = "rocksdb.cur-size-all-mem-tables";
    private static final String IDENTITY_FILE = "IDENTITY";

    private LiveInstanceFiles() {}

    /** Creates {@code directory} (which must not exist) holding the instance's live files. */
    public static void checkpoint(CheckpointableKeyedStateBackend<?> vnodeBackend, Path directory)
            throws Exception {
        Files.createDirectories(directory.getParent());
        try (Checkpoint checkpoint = Checkpoint.create(dbOf(vnodeBackend))) {
            checkpoint.createCheckpoint(directory.toString());
        }
    }

    /**
     * Copies the instance's {@code IDENTITY} file into {@code directory}, a RocksDB checkpoint of
     * it. A checkpoint holds none, so RocksDB's open of it writes a new one and syncs it and the
     * directory, which waits behind every other write on a busy disk; with the file there, the open
     * reads it. The vnode keeps its RocksDB identity as it moves (its origin's instance is dropped
     * once it has moved). Nothing is copied where the instance has no such file or the checkpoint
     * already holds one.
     */
    static void copyIdentity(CheckpointableKeyedStateBackend<?> vnodeBackend, Path directory)
            throws Exception {
        Path identity = Paths.get(dbOf(vnodeBackend).getName()).resolve(IDENTITY_FILE);
        Path copy = directory.resolve(IDENTITY_FILE);
        if (Files.isRegularFile(identity) && !Files.exists(copy)) {
            Files.copy(identity, copy);
        }
    }

    /** The instance's RocksDB handle, which Flink's backend keeps in a protected field. */
    static RocksDB dbOf(CheckpointableKeyedStateBackend<?> vnodeBackend)
            throws IllegalAccessException {
        if (!(vnodeBackend instanceof RocksDBKeyedStateBackend<?> rocksdb)) {
            throw new IllegalStateException(
                    "A Rhino vnode is served by a "
                            + vnodeBackend.getClass().getName()
                            + ", expected Flink's RocksDBKeyedStateBackend");
        }
        return (RocksDB) DB.get(rocksdb);
    }

    /**
     * Bytes in the instance's memtables, over all its column families: what a RocksDB checkpoint of
     * it flushes first (Flink writes without a write-ahead log). -1 where it cannot be read.
     */
    public static long memtableBytes(CheckpointableKeyedStateBackend<?> vnodeBackend) {
        return sumOf(vnodeBackend, MEMTABLE_BYTES);
    }

    /**
     * The RocksDB checkpoint that Flink's snapshot of this instance took for {@code checkpointId}
     * in its synchronous part, while its asynchronous part has not ended: {@code chk-<id>} beside
     * the instance's {@code db} directory, or with local recovery its task-local copy ({@code
     * <backend id>} in the subtask's local {@code chk_<id>} directory), which stays after the
     * upload (Flink 2.2.1's {@code RocksDBSnapshotStrategyBase}). Empty where Flink took none, as
     * an instance without state snapshots to nothing.
     */
    public static Optional<Path> flinkSnapshotDirectory(
            CheckpointableKeyedStateBackend<?> vnodeBackend, long checkpointId) {
        if (!(vnodeBackend instanceof RocksDBKeyedStateBackend<?> rocksdb)) {
            return Optional.empty();
        }
        try {
            RocksDB db = (RocksDB) DB.get(rocksdb);
            Path beside = Paths.get(db.getName()).getParent().resolve("chk-" + checkpointId);
            if (Files.isRegularFile(beside.resolve("CURRENT"))) {
                return Optional.of(beside);
            }
            return taskLocalSnapshotDirectory(rocksdb, checkpointId)
                    .filter(local -> Files.isRegularFile(local.resolve("CURRENT")));
        } catch (ReflectiveOperationException | RuntimeException e) {
            return Optional.empty();
        }
    }

    private static Optional<Path> taskLocalSnapshotDirectory(
            RocksDBKeyedStateBackend<?> rocksdb, long checkpointId)
            throws ReflectiveOperationException {
        Object strategy =
                field(RocksDBKeyedStateBackend.class, "checkpointSnapshotStrategy").get(rocksdb);
        if (!(strategy instanceof RocksDBSnapshotStrategyBase<?, ?>)) {
            return Optional.empty();
        }
        LocalRecoveryConfig local =
                (LocalRecoveryConfig)
                        field(RocksDBSnapshotStrategyBase.class, "localRecoveryConfig")
                                .get(strategy);
        String name =
                (String)
                        field(RocksDBSnapshotStrategyBase.class, "localDirectoryName")
                                .get(strategy);
        if (!local.isLocalBackupEnabled()) {
            return Optional.empty();
        }
        return local.getLocalStateDirectoryProvider()
                .map(
                        provider ->
                                provider.subtaskSpecificCheckpointDirectory(checkpointId)
                                        .toPath()
                                        .resolve(name));
    }

    /** Live SST bytes plus memtable bytes of the instance, or -1 if RocksDB cannot tell. */
    static long stateBytes(CheckpointableKeyedStateBackend<?> vnodeBackend) {
        return sumOf(vnodeBackend, "rocksdb.live-sst-files-size", MEMTABLE_BYTES);
    }

    /** The sum of RocksDB properties over all column families, or -1 if RocksDB cannot tell. */
    private static long sumOf(
            CheckpointableKeyedStateBackend<?> vnodeBackend, String... properties) {
        if (!(vnodeBackend instanceof RocksDBKeyedStateBackend<?> rocksdb)) {
            return -1;
        }
        try {
            RocksDB db = (RocksDB) DB.get(rocksdb);
            long sum = 0;
            for (String property : properties) {
                sum += db.getAggregatedLongProperty(property);
            }
            return sum;
        } catch (ReflectiveOperationException | RocksDBException | RuntimeException e) {
            return -1;
        }
    }

    private static Field dbField() {
        try {
            return field(RocksDBKeyedStateBackend.class, "db");
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException(
                    "Rhino needs the field RocksDBKeyedStateBackend.db of Flink 2.2 to export"
                            + " vnodes from their live files; this Flink version has none",
                    e);
        }
    }
}
