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

import java.lang.reflect.Field;
import org.apache.flink.runtime.state.CheckpointableKeyedStateBackend;
import org.apache.flink.state.rocksdb.RocksDBKeyedStateBackend;
import org.apache.flink.state.rocksdb.RocksDBWriteBatchWrapper;

/**
 * The RocksDB sequence number of a vnode's instance: it grows with every write of any kind (puts,
 * deletes, merges, timer additions and removals, which Flink's RocksDB timers are), and with
 * nothing else (flushes and compactions keep it). Equal numbers at two snapshots mean nothing was
 * written in between.
 *
 * <p>Flink buffers its timer writes in the instance's write batch; reading the number first writes
 * that batch, as Flink's own snapshot of the instance does. Flink's RocksDB backend exposes
 * neither, so this reads its {@code db} and {@code writeBatchWrapper} fields (Flink 2.2.1).
 */
final class VnodeWriteSequence {

    /** The sequence number is unknown: the instance is never taken as unchanged. */
    static final long UNKNOWN = -1;

    private static final Field WRITE_BATCH = writeBatchField();

    private VnodeWriteSequence() {}

    /**
     * On the task thread: writes the instance's buffered writes, then reads its sequence number.
     */
    static long of(CheckpointableKeyedStateBackend<?> vnodeBackend) {
        if (WRITE_BATCH == null || !(vnodeBackend instanceof RocksDBKeyedStateBackend<?> rocksdb)) {
            return UNKNOWN;
        }
        try {
            ((RocksDBWriteBatchWrapper) WRITE_BATCH.get(rocksdb)).flush();
            return LiveInstanceFiles.dbOf(rocksdb).getLatestSequenceNumber();
        } catch (Exception e) {
            return UNKNOWN;
        }
    }

    private static Field writeBatchField() {
        try {
            return FlinkMembers.field(RocksDBKeyedStateBackend.class, "writeBatchWrapper");
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null; // another Flink version: every vnode is snapshotted
        }
    }
}
