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
import java.util.Random;
import java.util.UUID;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.runtime.state.IncrementalKeyedStateHandle.HandleAndLocalPath;
import org.apache.flink.runtime.state.IncrementalRemoteKeyedStateHandle;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.StreamStateHandle;
import org.apache.flink.runtime.state.filesystem.FileStateHandle;
import org.apache.flink.runtime.state.filesystem.FsCheckpointStreamFactory;
import org.apache.flink.runtime.state.memory.ByteStreamStateHandle;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A reused snapshot refers to no file of the checkpoint it was taken in. */
class PrivateFileCopiesTest {

    @TempDir Path tmp;

    @Test
    void smallFilesBecomeBytesLargeOnesAreCopiedIntoTheReusingCheckpoint() throws Exception {
        Path earlier = Files.createDirectories(tmp.resolve("chk-1"));
        Path reusing = Files.createDirectories(tmp.resolve("chk-2"));
        byte[] options = bytes(21_232);
        byte[] large = bytes(PrivateFileCopies.MAX_BYTES_INLINED + 1);
        byte[] current = bytes(16);
        IncrementalRemoteKeyedStateHandle snapshot =
                new IncrementalRemoteKeyedStateHandle(
                        UUID.randomUUID(),
                        new KeyGroupRange(0, 7),
                        1,
                        List.of(),
                        List.of(
                                HandleAndLocalPath.of(file(earlier, "OPTIONS", options), "OPTIONS"),
                                HandleAndLocalPath.of(
                                        file(earlier, "MANIFEST", large), "MANIFEST-000005"),
                                HandleAndLocalPath.of(
                                        new ByteStreamStateHandle("current", current), "CURRENT")),
                        file(earlier, "metadata", bytes(300)),
                        0);
        FsCheckpointStreamFactory streams =
                new FsCheckpointStreamFactory(
                        FileSystem.getLocalFileSystem(),
                        new org.apache.flink.core.fs.Path(reusing.toUri()),
                        new org.apache.flink.core.fs.Path(tmp.resolve("shared").toUri()),
                        1024,
                        4096);

        IncrementalRemoteKeyedStateHandle copied =
                new PrivateFileCopies(streams)
                        .copy(new IdleVnodeSnapshots.Reusable(new Object(), 1, 7, snapshot, null))
                        .resolved();

        List<HandleAndLocalPath> files = copied.getPrivateState();
        assertThat(files.get(0).getHandle()).isInstanceOf(ByteStreamStateHandle.class);
        assertThat(contents(files.get(0).getHandle())).isEqualTo(options);
        assertThat(((FileStateHandle) files.get(1).getHandle()).getFilePath().getPath())
                .startsWith(reusing.toString());
        assertThat(contents(files.get(1).getHandle())).isEqualTo(large);
        assertThat(files.get(2).getHandle())
                .isSameAs(snapshot.getPrivateState().get(2).getHandle());
        assertThat(copied.getMetaDataStateHandle()).isInstanceOf(ByteStreamStateHandle.class);

        // nothing refers to the earlier checkpoint's directory any more
        org.apache.flink.util.FileUtils.deleteDirectory(earlier.toFile());
        assertThat(contents(files.get(1).getHandle())).isEqualTo(large);
        assertThat(contents(copied.getMetaDataStateHandle())).hasSize(300);
    }

    private static FileStateHandle file(Path directory, String name, byte[] contents)
            throws Exception {
        Path file = Files.write(directory.resolve(name), contents);
        return new FileStateHandle(
                new org.apache.flink.core.fs.Path(file.toUri()), contents.length);
    }

    private static byte[] contents(StreamStateHandle handle) throws Exception {
        try (var in = handle.openInputStream()) {
            return in.readAllBytes();
        }
    }

    private static byte[] bytes(int length) {
        byte[] bytes = new byte[length];
        new Random(length).nextBytes(bytes);
        return bytes;
    }
}
