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

import java.nio.file.Files;
import java.util.List;
import java.util.UUID;
import org.apache.flink.core.fs.Path;
import org.apache.flink.runtime.state.IncrementalKeyedStateHandle.HandleAndLocalPath;
import org.apache.flink.runtime.state.IncrementalRemoteKeyedStateHandle;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.PlaceholderStreamStateHandle;
import org.apache.flink.runtime.state.StreamStateHandle;
import org.apache.flink.runtime.state.filesystem.FileStateHandle;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Placeholders resolve to earlier uploads; files go once no retained checkpoint uses them. */
class VnodeFileRegistryTest {

    @TempDir java.nio.file.Path dir;

    private FileStateHandle file(String name) throws Exception {
        java.nio.file.Path path = dir.resolve(name);
        Files.writeString(path, name);
        return new FileStateHandle(new Path(path.toUri()), Files.size(path));
    }

    private static PlaceholderStreamStateHandle placeholder(StreamStateHandle of) {
        return new PlaceholderStreamStateHandle(
                of.getStreamStateHandleID(), of.getStateSize(), false);
    }

    private static IncrementalRemoteKeyedStateHandle snapshot(
            long id,
            List<HandleAndLocalPath> shared,
            StreamStateHandle privateFile,
            StreamStateHandle meta) {
        return new IncrementalRemoteKeyedStateHandle(
                UUID.randomUUID(),
                new KeyGroupRange(0, 9),
                id,
                shared,
                List.of(HandleAndLocalPath.of(privateFile, "MANIFEST")),
                meta);
    }

    /** The registry's resolution of checkpoint {@code id}'s snapshot sharing {@code shared}. */
    private KeyedStateHandle resolve(
            VnodeFileRegistry registry, long id, HandleAndLocalPath... shared) throws Exception {
        return registry.resolve(snapshot(id, List.of(shared), file("p" + id), file("m" + id)));
    }

    private boolean exists(FileStateHandle handle) {
        return Files.exists(java.nio.file.Path.of(handle.getFilePath().toUri()));
    }

    @Test
    void resolvesPlaceholdersForgetsFilesNoRetainedCheckpointUsesAndDeletesNothing()
            throws Exception {
        VnodeFileRegistry registry = new VnodeFileRegistry(1);
        FileStateHandle a = file("a.sst");
        FileStateHandle b = file("b.sst");

        KeyedStateHandle first = resolve(registry, 1, HandleAndLocalPath.of(a, "1.sst"));
        registry.registerSnapshot(1, List.of(first));
        KeyedStateHandle second =
                resolve(
                        registry,
                        2,
                        HandleAndLocalPath.of(placeholder(a), "1.sst"),
                        HandleAndLocalPath.of(b, "2.sst"));
        registry.registerSnapshot(2, List.of(second));
        assertThat(((IncrementalRemoteKeyedStateHandle) second).getSharedState().get(0).getHandle())
                .as("placeholder replaced by the upload of checkpoint 1")
                .isEqualTo(a);
        registry.checkpointCompleted(1);
        registry.checkpointCompleted(2);

        KeyedStateHandle third =
                resolve(registry, 3, HandleAndLocalPath.of(placeholder(b), "2.sst"));
        registry.registerSnapshot(3, List.of(third));
        registry.checkpointCompleted(3);
        // of the two files, only b.sst is still known: a.sst is only used by subsumed checkpoints
        assertThat(resolve(registry, 4, HandleAndLocalPath.of(placeholder(b), "2.sst")))
                .as("b.sst, used by the retained checkpoint 3")
                .isNotNull();
        assertThat(List.of(a, b))
                .as("Flink deletes vnode files, not the backend")
                .allMatch(this::exists);
        assertThatThrownBy(
                        () -> resolve(registry, 4, HandleAndLocalPath.of(placeholder(a), "1.sst")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("1.sst");
    }

    @Test
    void resolvesRestoredFilesUntilNoSnapshotUsesThemAndRejectsUnknownPlaceholders()
            throws Exception {
        VnodeFileRegistry registry = new VnodeFileRegistry(1);
        FileStateHandle restored = file("restored.sst");
        registry.registerRestored(
                List.of(
                        snapshot(
                                5,
                                List.of(HandleAndLocalPath.of(restored, "9.sst")),
                                file("rp"),
                                file("rm"))));

        KeyedStateHandle sixth =
                resolve(registry, 6, HandleAndLocalPath.of(placeholder(restored), "9.sst"));
        assertThat(((IncrementalRemoteKeyedStateHandle) sixth).getSharedState().get(0).getHandle())
                .isEqualTo(restored);
        registry.registerSnapshot(6, List.of(sixth));
        registry.checkpointCompleted(6);
        KeyedStateHandle seventh = resolve(registry, 7);
        registry.registerSnapshot(7, List.of(seventh));
        registry.checkpointCompleted(7);
        assertThatThrownBy(
                        () ->
                                resolve(
                                        registry,
                                        8,
                                        HandleAndLocalPath.of(placeholder(restored), "9.sst")))
                .as("no retained checkpoint uses the restored file, the only one registered")
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("9.sst");
        assertThat(exists(restored)).isTrue();

        assertThatThrownBy(
                        () ->
                                resolve(
                                        registry,
                                        8,
                                        HandleAndLocalPath.of(placeholder(file("x")), "x.sst")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("x.sst");
    }

    @Test
    void aVnodeThatComesBackKeepsItsInheritedFilesWhenACheckpointWithoutItCompletes()
            throws Exception {
        // Found by RhinoHandoverITCase: a vnode moved 0 -> 1 -> 0 within a second. Its files were
        // known here from before it left; the checkpoint that completed after it came back (its
        // snapshot ran while the vnode was away) made the registry forget them, and the next
        // checkpoint was declined.
        VnodeFileRegistry registry = new VnodeFileRegistry(1);
        FileStateHandle a = file("a.sst");
        KeyedStateHandle first = resolve(registry, 1, HandleAndLocalPath.of(a, "1.sst"));
        registry.registerSnapshot(1, List.of(first));
        registry.checkpointCompleted(1);

        // the vnode moved away: checkpoint 2's snapshot does not include it
        registry.snapshotStarted(2);
        registry.registerSnapshot(2, List.of());
        // it comes back with the same file before checkpoint 2 completes
        registry.registerInherited(
                new UploadedFiles(1, List.of(HandleAndLocalPath.of(a, "1.sst"))));
        // a savepoint (its snapshot uploads every file, so it claims none) completes around it
        registry.registerSavepoint(3);
        registry.checkpointCompleted(2);
        registry.checkpointCompleted(3);

        registry.snapshotStarted(4);
        KeyedStateHandle fourth =
                resolve(registry, 4, HandleAndLocalPath.of(placeholder(a), "1.sst"));
        assertThat(((IncrementalRemoteKeyedStateHandle) fourth).getSharedState().get(0).getHandle())
                .as("the inherited upload, still known")
                .isEqualTo(a);
    }
}
