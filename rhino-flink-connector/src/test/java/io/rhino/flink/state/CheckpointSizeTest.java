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

import io.rhino.flink.spec.RhinoOperatorSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.runtime.state.IncrementalRemoteKeyedStateHandle;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.runtime.state.memory.ByteStreamStateHandle;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A checkpoint's handle reports the size of the state it stands for (every vnode snapshot), not
 * just its manifest: Flink's checkpoint statistics and web UI read sizes from the handles.
 */
class CheckpointSizeTest {

    private static final RhinoOperatorSpec SPEC = new RhinoOperatorSpec("op", 128, 8, 1, 1);
    private static final ValueStateDescriptor<byte[]> VALUE =
            new ValueStateDescriptor<>(
                    "value", PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO);

    @TempDir Path tmp;
    private VnodeBackendHarness harness;

    @AfterEach
    void tearDown() throws Exception {
        harness.close();
    }

    @Test
    void firstCheckpointReportsAtLeastTheBytesItWrote() throws Exception {
        Path checkpoints = tmp.resolve("checkpoints");
        harness = new VnodeBackendHarness(SPEC, checkpoints);
        VnodeKeyedStateBackend<Long> backend = harness.create(0, List.of());
        putRandomValues(backend, 2_000, 512);

        KeyedStateHandle handle = harness.checkpoint(backend, 1);

        long onDisk = bytesUnder(checkpoints);
        assertThat(onDisk).as("the snapshot's files").isGreaterThan(2_000L * 512);
        // every file of the first checkpoint is referenced once; small ones may be inlined
        assertThat(handle.getStateSize()).isGreaterThanOrEqualTo(onDisk);
    }

    /**
     * A manifest under Flink's inline threshold ({@code state.storage.fs.memory-threshold}, 20 KB
     * by default) would come back as an in-memory handle, which Flink sizes by its own bytes: a
     * subtask with few vnodes and files reported a few KB for GBs. The manifest is written to a
     * file even then.
     */
    @Test
    void aManifestUnderTheInlineThresholdIsStillSizedAsItsVnodes() throws Exception {
        Path checkpoints = tmp.resolve("checkpoints");
        harness = new VnodeBackendHarness(new RhinoOperatorSpec("op", 128, 1, 1, 1), checkpoints);
        VnodeKeyedStateBackend<Long> backend = harness.create(0, List.of());
        putRandomValues(backend, 2_000, 4096);

        // one vnode: its manifest is a few KB, its SST file 8 MB
        KeyedStateHandle handle = harness.checkpoint(backend, 1, 16 * 1024);

        assertThat(((IncrementalRemoteKeyedStateHandle) handle).getMetaDataStateHandle())
                .as("the manifest")
                .isNotInstanceOf(ByteStreamStateHandle.class);
        assertThat(handle.getStateSize()).isGreaterThan(2_000L * 4096);
    }

    /** Random values: RocksDB cannot compress them away. */
    private static void putRandomValues(
            VnodeKeyedStateBackend<Long> backend, int keys, int valueBytes) throws Exception {
        ValueState<byte[]> values =
                backend.getPartitionedState(
                        VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, VALUE);
        Random random = new Random(42);
        for (long key = 0; key < keys; key++) {
            byte[] value = new byte[valueBytes];
            random.nextBytes(value);
            backend.setCurrentKey(key);
            values.update(value);
        }
    }

    private static long bytesUnder(Path dir) throws Exception {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).mapToLong(CheckpointSizeTest::size).sum();
        }
    }

    private static long size(Path file) {
        try {
            return Files.size(file);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
