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

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.apache.flink.runtime.state.DirectoryStateHandle;
import org.apache.flink.runtime.state.IncrementalKeyedStateHandle.HandleAndLocalPath;
import org.apache.flink.runtime.state.IncrementalLocalKeyedStateHandle;
import org.apache.flink.runtime.state.IncrementalRemoteKeyedStateHandle;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.filesystem.FileStateHandle;
import org.apache.flink.runtime.state.memory.ByteStreamStateHandle;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The local alternative a subtask reports for its vnodes' task-local copies: it pairs with the
 * remote handle (same key-group range), points at the remote manifest and the copies, carries where
 * the replica chain held each vnode's files, and discarding it never touches the remote manifest.
 */
class TaskLocalVnodesTest {

    private static final KeyGroupRange SUBTASK = KeyGroupRange.of(0, 127);

    @TempDir Path tmp;

    @Test
    void theAlternativePointsAtTheRemoteManifestAndEachVnodesCopy() throws Exception {
        Path chk = Files.createDirectories(tmp.resolve("chk_7"));
        Path manifestFile = Files.writeString(tmp.resolve("manifest"), "remote manifest");
        FileStateHandle manifest =
                new FileStateHandle(
                        new org.apache.flink.core.fs.Path(manifestFile.toUri()),
                        Files.size(manifestFile));
        Map<Integer, IncrementalLocalKeyedStateHandle> copies =
                Map.of(1, copy(chk, "aaaa"), 3, copy(chk, "bbbb"));
        Map<Integer, VnodeReplication.HeldReplica> held =
                Map.of(3, new VnodeReplication.HeldReplica("i-42", Set.of("000010.sst")));

        IncrementalLocalKeyedStateHandle alternative =
                TaskLocalVnodes.alternative(UUID.randomUUID(), SUBTASK, 7, manifest, copies, held)
                        .orElseThrow();

        assertThat(alternative.getKeyGroupRange()).isEqualTo(SUBTASK);
        assertThat(alternative.getCheckpointId()).isEqualTo(7);
        assertThat(alternative.getDirectoryStateHandle().getDirectory()).isEqualTo(chk);
        TaskLocalVnodes.Pointer pointer =
                TaskLocalVnodes.pointerOf(alternative, getClass().getClassLoader()).orElseThrow();
        assertThat(pointer.manifest()).isEqualTo(manifest);
        assertThat(pointer.copyByVnode())
                .containsExactlyInAnyOrderEntriesOf(
                        Map.of(1, chk.resolve("aaaa"), 3, chk.resolve("bbbb")));
        assertThat(pointer.heldByChain()).containsExactlyInAnyOrderEntriesOf(held);

        alternative.discardState();
        assertThat(manifestFile).as("the remote manifest").exists();
        assertThat(chk).as("the local checkpoint directory").doesNotExist();
    }

    @Test
    void copiesInDifferentDirectoriesMakeNoAlternative() throws Exception {
        Map<Integer, IncrementalLocalKeyedStateHandle> copies =
                Map.of(
                        1, copy(Files.createDirectories(tmp.resolve("chk_1")), "aaaa"),
                        2, copy(Files.createDirectories(tmp.resolve("chk_2")), "bbbb"));

        assertThat(
                        TaskLocalVnodes.alternative(
                                UUID.randomUUID(),
                                SUBTASK,
                                1,
                                new ByteStreamStateHandle("m", new byte[0]),
                                copies,
                                Map.of()))
                .isEmpty();
        assertThat(
                        TaskLocalVnodes.alternative(
                                UUID.randomUUID(),
                                SUBTASK,
                                1,
                                new ByteStreamStateHandle("m", new byte[0]),
                                Map.of(),
                                Map.of()))
                .isEmpty();
    }

    @Test
    void otherHandlesHaveNoPointer() throws Exception {
        Path chk = Files.createDirectories(tmp.resolve("chk_3"));
        assertThat(TaskLocalVnodes.pointerOf(copy(chk, "cccc"), getClass().getClassLoader()))
                .isEmpty();
    }

    @Test
    void aVnodeRestoresFromItsCopyWithTheRemoteIdentityOrNotAtAll() throws Exception {
        Path copy = Files.createDirectories(tmp.resolve("chk_5").resolve("dddd"));
        UUID backend = UUID.randomUUID();
        ByteStreamStateHandle sst = new ByteStreamStateHandle("sst", new byte[10]);
        IncrementalRemoteKeyedStateHandle remote =
                new IncrementalRemoteKeyedStateHandle(
                        backend,
                        KeyGroupRange.of(0, 31),
                        5,
                        List.of(HandleAndLocalPath.of(sst, "000010.sst")),
                        List.of(),
                        new ByteStreamStateHandle("meta", new byte[1]));

        assertThat(TaskLocalVnodes.fromCopy(List.of(remote), copy))
                .as("a copy without RocksDB's CURRENT file")
                .isEmpty();
        Files.writeString(copy.resolve("CURRENT"), "MANIFEST-000001\n");
        Optional<KeyedStateHandle> restored = TaskLocalVnodes.fromCopy(List.of(remote), copy);
        assertThat(restored).get().isInstanceOf(IncrementalLocalKeyedStateHandle.class);
        IncrementalLocalKeyedStateHandle local = (IncrementalLocalKeyedStateHandle) restored.get();
        assertThat(local.getBackendIdentifier()).isEqualTo(backend);
        assertThat(local.getCheckpointId()).isEqualTo(5);
        assertThat(local.getKeyGroupRange()).isEqualTo(KeyGroupRange.of(0, 31));
        assertThat(local.getSharedStateHandles()).isEqualTo(remote.getSharedState());
        assertThat(local.getMetaDataStateHandle()).isEqualTo(remote.getMetaDataStateHandle());
        assertThat(local.getDirectoryStateHandle().getDirectory()).isEqualTo(copy);
        assertThat(TaskLocalVnodes.fromCopy(List.of(remote), null)).isEmpty();
    }

    private static IncrementalLocalKeyedStateHandle copy(Path checkpointDirectory, String name)
            throws Exception {
        Path directory = Files.createDirectories(checkpointDirectory.resolve(name));
        Files.writeString(directory.resolve("000010.sst"), "data");
        return new IncrementalLocalKeyedStateHandle(
                UUID.randomUUID(),
                1,
                DirectoryStateHandle.forPathWithSize(directory),
                KeyGroupRange.of(0, 31),
                new ByteStreamStateHandle("meta-" + name, new byte[1]),
                List.of());
    }
}
