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
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.state.IncrementalKeyedStateHandle.HandleAndLocalPath;
import org.apache.flink.runtime.state.IncrementalRemoteKeyedStateHandle;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.StreamStateHandle;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.runtime.state.filesystem.RelativeFileStateHandle;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A savepoint's files are the savepoint's: Rhino never deletes them, a stop-with-savepoint does not
 * make the last checkpoint's files obsolete, and a savepoint moved to another directory restores.
 */
class SavepointFilesTest {

    private static final RhinoOperatorSpec SPEC = new RhinoOperatorSpec("op", 128, 4, 1, 1);
    private static final ValueStateDescriptor<Long> VALUE =
            new ValueStateDescriptor<>("value", Types.LONG);

    @TempDir Path tmp;
    private VnodeBackendHarness harness;

    @AfterEach
    void tearDown() throws Exception {
        harness.close();
    }

    @Test
    void checkpointsAfterASavepointNeverDeleteItsFilesAndItRestoresFromAnotherDirectory()
            throws Exception {
        harness = new VnodeBackendHarness(SPEC, tmp.resolve("checkpoints"));
        VnodeKeyedStateBackend<Long> backend = harness.create(0, List.of());
        put(backend, 0, 200, 1);
        harness.checkpoint(backend, 1);
        put(backend, 0, 200, 2);
        Path savepointDir = tmp.resolve("savepoint");
        KeyedStateHandle savepoint = harness.savepoint(backend, 2, savepointDir, false);
        Set<String> savepointFiles = filesUnder(savepointDir);
        assertThat(savepointFiles).isNotEmpty();

        for (long checkpoint = 3; checkpoint <= 6; checkpoint++) {
            put(backend, 0, 200, checkpoint * 10);
            harness.checkpoint(backend, checkpoint); // retains 1: older files are deleted
        }
        Thread.sleep(200); // deletions run on a background thread
        assertThat(filesUnder(savepointDir)).as("files of the savepoint").isEqualTo(savepointFiles);

        Path moved = tmp.resolve("elsewhere/savepoint");
        Files.createDirectories(moved.getParent());
        Files.move(savepointDir, moved);
        VnodeKeyedStateBackend<Long> restored =
                harness.create(0, List.of(relocated(savepoint, moved)));
        assertThat(get(restored, 0, 200)).as("values as of the savepoint").containsOnly(2L);
    }

    @Test
    void aStopWithSavepointKeepsTheLastCheckpointsFiles() throws Exception {
        harness = new VnodeBackendHarness(SPEC, tmp.resolve("checkpoints"));
        VnodeKeyedStateBackend<Long> backend = harness.create(0, List.of());
        put(backend, 0, 200, 1);
        harness.checkpoint(backend, 1);
        put(backend, 0, 200, 2);
        KeyedStateHandle lastCheckpoint = harness.checkpoint(backend, 2);
        Set<String> checkpointFiles = filesUnder(tmp.resolve("checkpoints/chk-2"));
        assertThat(checkpointFiles).isNotEmpty();

        harness.savepoint(backend, 3, tmp.resolve("savepoint"), true);
        Thread.sleep(200);

        assertThat(filesUnder(tmp.resolve("checkpoints/chk-2")))
                .as("if the stop fails, Flink restores checkpoint 2")
                .isEqualTo(checkpointFiles);
        VnodeKeyedStateBackend<Long> restored = harness.create(0, List.of(lastCheckpoint));
        assertThat(get(restored, 0, 200)).containsOnly(2L);
    }

    /** The savepoint's handle as Flink hands it out after the directory moved. */
    private static KeyedStateHandle relocated(KeyedStateHandle savepoint, Path directory) {
        IncrementalRemoteKeyedStateHandle handle = (IncrementalRemoteKeyedStateHandle) savepoint;
        return new IncrementalRemoteKeyedStateHandle(
                handle.getBackendIdentifier(),
                handle.getKeyGroupRange(),
                handle.getCheckpointId(),
                relocated(handle.getSharedState(), directory),
                relocated(handle.getPrivateState(), directory),
                relocated(handle.getMetaDataStateHandle(), directory),
                handle.getCheckpointedSize());
    }

    private static List<HandleAndLocalPath> relocated(
            List<HandleAndLocalPath> files, Path directory) {
        return files.stream()
                .map(
                        f ->
                                HandleAndLocalPath.of(
                                        relocated(f.getHandle(), directory), f.getLocalPath()))
                .toList();
    }

    /** Flink writes every file of a savepoint relative to its directory, or inline. */
    private static StreamStateHandle relocated(StreamStateHandle file, Path directory) {
        if (!(file instanceof RelativeFileStateHandle relative)) {
            return file;
        }
        return new RelativeFileStateHandle(
                new org.apache.flink.core.fs.Path(
                        directory.resolve(relative.getRelativePath()).toUri()),
                relative.getRelativePath(),
                relative.getStateSize());
    }

    private static void put(VnodeKeyedStateBackend<Long> backend, long from, long to, long value)
            throws Exception {
        ValueState<Long> state =
                backend.getPartitionedState(
                        VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, VALUE);
        for (long key = from; key < to; key++) {
            backend.setCurrentKey(key);
            state.update(value);
        }
    }

    private static Set<Long> get(VnodeKeyedStateBackend<Long> backend, long from, long to)
            throws Exception {
        ValueState<Long> state =
                backend.getPartitionedState(
                        VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, VALUE);
        Set<Long> values = new TreeSet<>();
        for (long key = from; key < to; key++) {
            backend.setCurrentKey(key);
            values.add(state.value());
        }
        return values;
    }

    private static Set<String> filesUnder(Path dir) throws Exception {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile)
                    .map(dir::relativize)
                    .map(Path::toString)
                    .collect(Collectors.toCollection(TreeSet::new));
        }
    }
}
