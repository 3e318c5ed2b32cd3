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
import java.util.concurrent.RunnableFuture;
import java.util.stream.Collectors;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.state.IncrementalKeyedStateHandle.HandleAndLocalPath;
import org.apache.flink.runtime.state.IncrementalRemoteKeyedStateHandle;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.PlaceholderStreamStateHandle;
import org.apache.flink.runtime.state.SharedStateRegistryImpl;
import org.apache.flink.runtime.state.SnapshotResult;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.runtime.state.filesystem.FileStateHandle;
import org.apache.flink.util.concurrent.FutureUtils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A moved vnode's next checkpoint at its new owner refers to the files its origin's completed
 * checkpoint uploaded, instead of uploading the whole vnode again; Flink's {@code
 * SharedStateRegistry} (a real one, deleting files as the JobManager does) keeps those files for as
 * long as a retained checkpoint needs them, and the checkpoint restores.
 */
class MovedVnodeCheckpointTest {

    private static final RhinoOperatorSpec SPEC = new RhinoOperatorSpec("op", 128, 8, 2, 2);
    private static final int MOVED = 2;
    private static final ValueStateDescriptor<Long> VALUE =
            new ValueStateDescriptor<>("value", Types.LONG);

    @TempDir Path tmp;
    private VnodeBackendHarness harness;
    private VnodeKeyedStateBackend<Long> origin;
    private VnodeKeyedStateBackend<Long> target;
    // the JobManager's registry: deletes a file once no retained checkpoint uses it
    private final SharedStateRegistryImpl jobManager = new SharedStateRegistryImpl(Runnable::run);

    @BeforeEach
    void setUp() {
        harness = new VnodeBackendHarness(SPEC, tmp.resolve("checkpoints"));
    }

    @AfterEach
    void tearDown() throws Exception {
        jobManager.close();
        harness.close();
    }

    @Test
    void theTargetsNextCheckpointRefersToTheFilesTheOriginUploaded() throws Exception {
        List<Long> moved = checkpointedMovedKeys();
        List<Long> changed = moved.subList(0, 1_000);
        write(origin, changed, 2); // after checkpoint 1: only in the live instance

        VnodeExport export = harness.move(origin, target, MOVED, tmp.resolve("export"));
        IncrementalRemoteKeyedStateHandle targetsFirst =
                complete(2, harness.checkpoint(origin, 2), harness.checkpoint(target, 2)).get(1);

        UploadedFiles handedOn = export.uploaded();
        assertThat(handedOn.checkpointId()).isEqualTo(1);
        assertThat(handedOn.files()).isNotEmpty();
        List<HandleAndLocalPath> movedFiles = sharedFilesOf(targetsFirst, MOVED);
        assertThat(movedFiles)
                .filteredOn(file -> file.getHandle() instanceof PlaceholderStreamStateHandle)
                .as("the files checkpoint 1 holds, referred to, not uploaded again")
                .hasSize(handedOn.files().size());
        assertThat(uploadedBytes(movedFiles))
                .as("only what changed after checkpoint 1 is uploaded")
                .isPositive()
                .isLessThan(handedOn.bytes());

        // checkpoint 1 is subsumed: the JobManager deleted what only it used
        assertThat(sharedDirectoryFiles()).containsAll(fileNames(handedOn));
        VnodeKeyedStateBackend<Long> restored = harness.create(1, List.of(targetsFirst));
        assertValues(restored, moved, changed, 2);
    }

    @Test
    void aVnodeMovedOnBeforeItsNewOwnerCheckpointedHandsTheSameFilesOn() throws Exception {
        List<Long> moved = checkpointedMovedKeys();

        VnodeExport there = harness.move(origin, target, MOVED, tmp.resolve("there"));
        VnodeExport back = harness.move(target, origin, MOVED, tmp.resolve("back"));

        assertThat(fileNames(back.uploaded())).isEqualTo(fileNames(there.uploaded()));
        IncrementalRemoteKeyedStateHandle originsSecond =
                complete(2, harness.checkpoint(origin, 2), harness.checkpoint(target, 2)).get(0);
        assertThat(uploadedBytes(sharedFilesOf(originsSecond, MOVED))).isZero();
        VnodeKeyedStateBackend<Long> restored = harness.create(0, List.of(originsSecond));
        assertValues(restored, moved, List.of(), 1);
    }

    /**
     * Checkpoint 2 started before checkpoint 1's completion was notified, so its base is older than
     * 1 and it uploads 1's files again; once it completes, 1 and its files go. While it runs, and
     * once it has uploaded them again, an export hands none of 1's files on.
     */
    @Test
    void nothingIsHandedOnWhileACheckpointFromAnOlderBaseUploads() throws Exception {
        origin = harness.create(0, List.of());
        write(origin, harness.keysOf(MOVED, 5_000), 1);
        write(origin, harness.keysOf(MOVED + 1, 5_000), 1);
        FutureUtils.runIfNotDoneAndGet(harness.startCheckpoint(origin, 1, 1024));
        RunnableFuture<SnapshotResult<KeyedStateHandle>> second =
                harness.startCheckpoint(origin, 2, 1024);
        origin.notifyCheckpointComplete(1);

        VnodeExport whileRunning = origin.exportVnode(MOVED, tmp.resolve("while-running"));
        origin.removeVnode(MOVED);
        FutureUtils.runIfNotDoneAndGet(second);
        VnodeExport uploadedAgain = origin.exportVnode(MOVED + 1, tmp.resolve("uploaded-again"));
        origin.notifyCheckpointComplete(2);
        VnodeExport afterwards = origin.exportVnode(MOVED + 1, tmp.resolve("afterwards"));

        assertThat(whileRunning.uploaded()).isEqualTo(UploadedFiles.NONE);
        assertThat(uploadedAgain.uploaded())
                .as("checkpoint 2 uploaded every file of checkpoint 1 again")
                .isEqualTo(UploadedFiles.NONE);
        assertThat(afterwards.uploaded().checkpointId()).isEqualTo(2);
        assertThat(afterwards.uploaded().files()).isNotEmpty();
    }

    /** A savepoint shares no file with checkpoints, inherited ones included. */
    @Test
    void aSavepointAfterTheHandoverHoldsAllOfTheMovedVnodesFiles() throws Exception {
        List<Long> moved = checkpointedMovedKeys();
        VnodeExport export = harness.move(origin, target, MOVED, tmp.resolve("export"));

        Path savepointDirectory = tmp.resolve("savepoint");
        KeyedStateHandle savepoint = harness.savepoint(target, 2, savepointDirectory, false);

        List<HandleAndLocalPath> movedFiles =
                sharedFilesOf((IncrementalRemoteKeyedStateHandle) savepoint, MOVED);
        assertThat(movedFiles).isNotEmpty();
        assertThat(movedFiles)
                .allSatisfy(
                        file ->
                                assertThat(
                                                ((FileStateHandle) file.getHandle())
                                                        .getFilePath()
                                                        .getPath())
                                        .startsWith(savepointDirectory.toString()));
        // and the next checkpoint still refers to checkpoint 1's files
        IncrementalRemoteKeyedStateHandle next =
                complete(3, harness.checkpoint(origin, 3), harness.checkpoint(target, 3)).get(1);
        assertThat(sharedFilesOf(next, MOVED))
                .filteredOn(file -> file.getHandle() instanceof PlaceholderStreamStateHandle)
                .hasSize(export.uploaded().files().size());
    }

    // ------------------------------------------------------------------ helpers

    /**
     * Creates both subtasks, writes the moved vnode's keys at the origin, completes checkpoint 1.
     */
    private List<Long> checkpointedMovedKeys() throws Exception {
        origin = harness.create(0, List.of());
        target = harness.create(1, List.of());
        List<Long> moved = harness.keysOf(MOVED, 20_000);
        write(origin, moved, 1);
        complete(1, harness.checkpoint(origin, 1), harness.checkpoint(target, 1));
        return moved;
    }

    /** The JobManager registers the checkpoint's handles and subsumes the older ones. */
    private List<IncrementalRemoteKeyedStateHandle> complete(
            long checkpointId, KeyedStateHandle... subtasks) {
        List<IncrementalRemoteKeyedStateHandle> handles =
                java.util.Arrays.stream(subtasks)
                        .map(IncrementalRemoteKeyedStateHandle.class::cast)
                        .toList();
        // what the subtasks reported, before the registry replaces placeholders in place
        List<IncrementalRemoteKeyedStateHandle> reported =
                handles.stream().map(MovedVnodeCheckpointTest::copy).toList();
        jobManager.registerAll(handles, checkpointId);
        jobManager.checkpointCompleted(checkpointId);
        jobManager.unregisterUnusedState(checkpointId);
        return reported;
    }

    private static IncrementalRemoteKeyedStateHandle copy(IncrementalRemoteKeyedStateHandle h) {
        return new IncrementalRemoteKeyedStateHandle(
                h.getBackendIdentifier(),
                h.getKeyGroupRange(),
                h.getCheckpointId(),
                h.getSharedState().stream()
                        .map(file -> HandleAndLocalPath.of(file.getHandle(), file.getLocalPath()))
                        .toList(),
                h.getPrivateState(),
                h.getMetaDataStateHandle(),
                h.getCheckpointedSize());
    }

    private static List<HandleAndLocalPath> sharedFilesOf(
            IncrementalRemoteKeyedStateHandle subtask, int vnode) {
        return subtask.getSharedState().stream()
                .filter(file -> file.getLocalPath().startsWith("vnode-" + vnode + "/"))
                .toList();
    }

    private static long uploadedBytes(List<HandleAndLocalPath> files) {
        return files.stream()
                .filter(file -> !(file.getHandle() instanceof PlaceholderStreamStateHandle))
                .mapToLong(HandleAndLocalPath::getStateSize)
                .sum();
    }

    private static Set<String> fileNames(UploadedFiles files) {
        return files.files().stream()
                .map(file -> ((FileStateHandle) file.getHandle()).getFilePath().getName())
                .collect(Collectors.toSet());
    }

    private Set<String> sharedDirectoryFiles() throws Exception {
        try (var files = Files.list(tmp.resolve("checkpoints").resolve("shared"))) {
            return files.map(file -> file.getFileName().toString()).collect(Collectors.toSet());
        }
    }

    /** value = key * factor */
    private static void write(VnodeKeyedStateBackend<Long> backend, List<Long> keys, int factor)
            throws Exception {
        ValueState<Long> values =
                backend.getPartitionedState(
                        VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, VALUE);
        for (long key : keys) {
            backend.setCurrentKey(key);
            values.update(key * factor);
        }
    }

    private static void assertValues(
            VnodeKeyedStateBackend<Long> backend, List<Long> keys, List<Long> changed, int factor)
            throws Exception {
        ValueState<Long> values =
                backend.getPartitionedState(
                        VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, VALUE);
        Set<Long> changedKeys = Set.copyOf(changed);
        for (long key : keys) {
            backend.setCurrentKey(key);
            assertThat(values.value())
                    .as("key %s", key)
                    .isEqualTo(key * (changedKeys.contains(key) ? factor : 1));
        }
    }
}
