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
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rhino.flink.config.RhinoOptions;
import io.rhino.flink.routing.RhinoOperatorSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.IllegalConfigurationException;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A restoring subtask opens its vnodes several at once ({@code rhino.handover.threads}) and ends
 * with the same state as one that opens them one after the other; a restore that fails on one vnode
 * leaves no RocksDB instance behind.
 */
class ParallelVnodeRestoreTest {

    private static final RhinoOperatorSpec SPEC = new RhinoOperatorSpec("op", 128, 8, 1, 1);
    private static final ValueStateDescriptor<Long> VALUE =
            new ValueStateDescriptor<>("value", Types.LONG);
    private static final int KEYS_PER_VNODE = 300;

    @TempDir Path tmp;
    private VnodeBackendHarness harness;

    @AfterEach
    void tearDown() throws Exception {
        if (harness != null) {
            harness.close();
        }
    }

    @ParameterizedTest(name = "{0} at a time")
    @ValueSource(ints = {1, 3, 8})
    void everyVnodeRestoresItsOwnState(int threads) throws Exception {
        harness = harnessWithThreads(threads);
        VnodeKeyedStateBackend<Long> original = harness.create(0, List.of());
        Map<Long, Long> written = fill(original);
        KeyedStateHandle checkpoint = harness.checkpoint(original, 1);

        VnodeKeyedStateBackend<Long> restored = harness.create(0, List.of(checkpoint));

        assertThat(restored.ownedVnodes()).containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
        assertThat(read(restored, written.keySet())).isEqualTo(written);
    }

    @Test
    void aRestoreThatFailsOnOneVnodeLeavesNoInstanceOpen() throws Exception {
        harness = harnessWithThreads(4);
        VnodeKeyedStateBackend<Long> original = harness.create(0, List.of());
        fill(original);
        KeyedStateHandle checkpoint = harness.checkpoint(original, 1);
        assertThat(rocksDbInstancesIn(harness.workingDirectory(0).toPath()))
                .as("the original's instances, where a restore's would be")
                .isEqualTo(SPEC.numVnodes());
        Path lost = largestSharedFile();
        Files.delete(lost);

        assertThatThrownBy(() -> harness.create(0, List.of(checkpoint)))
                .hasStackTraceContaining(lost.getFileName().toString());
        // the failed backend's working directory: neither adopted nor opened instances remain
        assertThat(rocksDbInstancesIn(harness.workingDirectory(0).toPath())).isZero();
    }

    @Test
    void threadsBelowOneAreRefusedWithTheOptionsName() {
        Configuration config = new Configuration();
        config.set(RhinoOptions.HANDOVER_THREADS, 0);
        assertThatThrownBy(
                        () ->
                                new RhinoStateBackendFactory()
                                        .createFromConfig(config, getClass().getClassLoader()))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessage("rhino.handover.threads: 0 (expected: 1 or more)");
    }

    private VnodeBackendHarness harnessWithThreads(int threads) {
        Configuration config = new Configuration();
        config.set(RhinoOptions.HANDOVER_THREADS, threads);
        return new VnodeBackendHarness(SPEC, tmp.resolve("checkpoints")).withConfiguration(config);
    }

    /** Distinct values for keys of every vnode. */
    private Map<Long, Long> fill(VnodeKeyedStateBackend<Long> backend) throws Exception {
        Map<Long, Long> written = new HashMap<>();
        ValueState<Long> values = values(backend);
        for (int vnode = 0; vnode < SPEC.numVnodes(); vnode++) {
            for (long key : harness.keysOf(vnode, KEYS_PER_VNODE)) {
                backend.setCurrentKey(key);
                values.update(key * 31 + vnode);
                written.put(key, key * 31 + vnode);
            }
        }
        return written;
    }

    private static Map<Long, Long> read(
            VnodeKeyedStateBackend<Long> backend, java.util.Set<Long> keys) throws Exception {
        Map<Long, Long> read = new HashMap<>();
        ValueState<Long> values = values(backend);
        for (long key : keys) {
            backend.setCurrentKey(key);
            read.put(key, values.value());
        }
        return read;
    }

    private static ValueState<Long> values(VnodeKeyedStateBackend<Long> backend) throws Exception {
        return backend.getPartitionedState(
                VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, VALUE);
    }

    /** An SST file of one of the vnodes, in the checkpoint's shared directory. */
    private Path largestSharedFile() throws Exception {
        try (Stream<Path> files = Files.list(tmp.resolve("checkpoints").resolve("shared"))) {
            return files.max(Comparator.comparingLong(ParallelVnodeRestoreTest::size))
                    .orElseThrow();
        }
    }

    private static long size(Path file) {
        try {
            return Files.size(file);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** RocksDB instances (each directory holds a CURRENT file) of vnodes under {@code dir}. */
    private static long rocksDbInstancesIn(Path dir) throws Exception {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(f -> f.getFileName().toString().equals("CURRENT"))
                    .filter(f -> f.toString().contains("_vnode_"))
                    .count();
        }
    }
}
