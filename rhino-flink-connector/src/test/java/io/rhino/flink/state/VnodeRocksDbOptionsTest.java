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

import static org.assertj.core.api.Assertions.assertThat;

import io.rhino.flink.config.RhinoOptions;
import io.rhino.flink.spec.RhinoOperatorSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.stream.Stream;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.state.rocksdb.RocksDBOptions;
import org.apache.flink.state.rocksdb.RocksDBOptionsFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;

/**
 * The vnode instances' memtable arena block size, read back from the OPTIONS file each real RocksDB
 * instance writes: Rhino's default, switched off, and overridden by a job's options factory.
 */
class VnodeRocksDbOptionsTest {

    private static final RhinoOperatorSpec SPEC = new RhinoOperatorSpec("op", 128, 4, 1, 1);

    @TempDir Path tmp;
    private VnodeBackendHarness harness;

    @AfterEach
    void tearDown() throws Exception {
        if (harness != null) {
            harness.close();
        }
    }

    @Test
    void vnodeInstancesUseSmallArenaBlocksByDefault() throws Exception {
        assertThat(arenaBlockSizesOfEveryInstance(new Configuration()))
                .as("64 KB in every column family of every vnode instance")
                .isNotEmpty()
                .containsOnly(64L * 1024);
    }

    /**
     * A handover opens several instances at once: each opens its table files on 4 threads instead
     * of RocksDB's 16, and skips the table-properties reads.
     */
    @Test
    void vnodeInstancesOpenWithoutExtraThreadsOrStatisticsReads() throws Exception {
        List<Path> options = optionsFilesOfEveryInstance(new Configuration());
        assertThat(options.stream().flatMap(f -> values(f, "max_file_opening_threads")))
                .hasSize(options.size())
                .containsOnly("" + VnodeRocksDbOptions.FILE_OPENING_THREADS)
                .doesNotContain("16");
        assertThat(options.stream().flatMap(f -> values(f, "skip_stats_update_on_db_open")))
                .hasSize(options.size())
                .containsOnly("true");
    }

    @Test
    void zeroKeepsRocksDbsDefault() throws Exception {
        Configuration config = new Configuration();
        config.set(RhinoOptions.STATE_ARENA_BLOCK_SIZE, MemorySize.ZERO);

        assertThat(arenaBlockSizesOfEveryInstance(config))
                .as("RocksDB's own default: 1 MB for Flink's 64 MB write buffers")
                .isNotEmpty()
                .containsOnly(1024L * 1024);
    }

    @Test
    void aJobsOptionsFactoryWins() throws Exception {
        Configuration config = new Configuration();
        config.set(RocksDBOptions.OPTIONS_FACTORY, ArenaOf32Kb.class.getName());

        assertThat(arenaBlockSizesOfEveryInstance(config)).isNotEmpty().containsOnly(32L * 1024);
    }

    /** A job's options factory that sets its own arena block size. */
    public static final class ArenaOf32Kb implements RocksDBOptionsFactory {
        private static final long serialVersionUID = 1L;

        @Override
        public DBOptions createDBOptions(
                DBOptions currentOptions, Collection<AutoCloseable> handlesToClose) {
            return currentOptions;
        }

        @Override
        public ColumnFamilyOptions createColumnOptions(
                ColumnFamilyOptions currentOptions, Collection<AutoCloseable> handlesToClose) {
            return currentOptions.setArenaBlockSize(32 * 1024);
        }
    }

    private List<Long> arenaBlockSizesOfEveryInstance(Configuration config) throws Exception {
        return optionsFilesOfEveryInstance(config).stream()
                .flatMap(f -> values(f, "arena_block_size"))
                .map(Long::parseLong)
                .toList();
    }

    /** Writes a value into every vnode, then lists the OPTIONS files of every instance. */
    private List<Path> optionsFilesOfEveryInstance(Configuration config) throws Exception {
        harness =
                new VnodeBackendHarness(SPEC, tmp.resolve("checkpoints")).withConfiguration(config);
        VnodeKeyedStateBackend<Long> backend = harness.create(0, List.of());
        ValueState<Long> values =
                backend.getPartitionedState(
                        VoidNamespace.INSTANCE,
                        VoidNamespaceSerializer.INSTANCE,
                        new ValueStateDescriptor<>("value", Types.LONG));
        for (long key = 0; key < 100; key++) {
            backend.setCurrentKey(key);
            values.update(key);
        }
        assertThat(backend.ownedVnodes()).hasSize(4);
        try (Stream<Path> files = Files.walk(harness.workingDirectory(0).toPath())) {
            List<Path> options =
                    files.filter(f -> f.getFileName().toString().startsWith("OPTIONS-")).toList();
            assertThat(options).as("one OPTIONS file or more per instance").hasSizeGreaterThan(3);
            return options;
        }
    }

    /** The values of option {@code name} in an OPTIONS file, one per section that sets it. */
    private static Stream<String> values(Path optionsFile, String name) {
        try {
            return Files.readAllLines(optionsFile).stream()
                    .map(String::trim)
                    .filter(line -> line.startsWith(name + "="))
                    .map(line -> line.substring(name.length() + 1));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
