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

import java.util.Collection;
import java.util.function.Function;
import javax.annotation.Nullable;
import org.apache.flink.state.rocksdb.RocksDBNativeMetricOptions;
import org.apache.flink.state.rocksdb.RocksDBOptionsFactory;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.ReadOptions;
import org.rocksdb.WriteOptions;

/**
 * The RocksDB options of vnode instances: the configured options factory's, on top of a memtable
 * arena block size that suits many small instances sharing a slot's write buffer memory. A slot
 * holds one instance per owned vnode of each Rhino operator, and a memtable holding any data holds
 * a whole arena block; with RocksDB's default block (1 MB) the blocks alone exceed the slot's write
 * buffer limit, so that every write forces a flush of a memtable of a few KB. An instance also
 * opens its table files on fewer threads and skips reading table properties for compaction
 * statistics: a handover's target opens several instances at once.
 */
final class VnodeRocksDbOptions implements RocksDBOptionsFactory {

    private static final long serialVersionUID = 1L;

    static final int FILE_OPENING_THREADS = 4;

    private final long arenaBlockSize;
    @Nullable private final RocksDBOptionsFactory configured;

    /**
     * @param arenaBlockSize bytes, or 0 for RocksDB's default
     * @param configured the options factory the job configured, if any; it is applied after the
     *     block size, so a block size it sets wins
     */
    VnodeRocksDbOptions(long arenaBlockSize, @Nullable RocksDBOptionsFactory configured) {
        if (arenaBlockSize < 0) {
            throw new IllegalArgumentException(
                    "The arena block size must not be negative, got " + arenaBlockSize);
        }
        this.arenaBlockSize = arenaBlockSize;
        this.configured =
                configured instanceof VnodeRocksDbOptions wrapped ? wrapped.configured : configured;
    }

    @Override
    public DBOptions createDBOptions(
            DBOptions currentOptions, Collection<AutoCloseable> handlesToClose) {
        // A handover's target opens several instances at once, each on its own thread. RocksDB's
        // default starts 15 more threads per column family of each open to open its table files
        // (4 open a lone instance as fast, 1 did not), and reads table properties only to tune
        // compaction.
        currentOptions
                .setMaxFileOpeningThreads(FILE_OPENING_THREADS)
                .setSkipStatsUpdateOnDbOpen(true);
        return configuredOr(currentOptions, f -> f.createDBOptions(currentOptions, handlesToClose));
    }

    @Override
    public ColumnFamilyOptions createColumnOptions(
            ColumnFamilyOptions currentOptions, Collection<AutoCloseable> handlesToClose) {
        if (arenaBlockSize > 0) {
            currentOptions.setArenaBlockSize(arenaBlockSize);
        }
        return configuredOr(
                currentOptions, f -> f.createColumnOptions(currentOptions, handlesToClose));
    }

    @Override
    public RocksDBNativeMetricOptions createNativeMetricsOptions(
            RocksDBNativeMetricOptions nativeMetricOptions) {
        return configuredOr(
                nativeMetricOptions, f -> f.createNativeMetricsOptions(nativeMetricOptions));
    }

    @Override
    public WriteOptions createWriteOptions(
            WriteOptions currentOptions, Collection<AutoCloseable> handlesToClose) {
        return configuredOr(
                currentOptions, f -> f.createWriteOptions(currentOptions, handlesToClose));
    }

    @Override
    public ReadOptions createReadOptions(
            ReadOptions currentOptions, Collection<AutoCloseable> handlesToClose) {
        return configuredOr(
                currentOptions, f -> f.createReadOptions(currentOptions, handlesToClose));
    }

    /** What the configured factory makes of {@code current}, or {@code current} without one. */
    private <T> T configuredOr(T current, Function<RocksDBOptionsFactory, T> apply) {
        return configured == null ? current : apply.apply(configured);
    }
}
