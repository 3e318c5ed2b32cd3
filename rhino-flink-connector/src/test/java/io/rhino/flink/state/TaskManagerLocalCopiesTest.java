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

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.flink.api.common.JobID;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.checkpoint.TaskStateSnapshot;
import org.apache.flink.runtime.clusterframework.types.AllocationID;
import org.apache.flink.runtime.jobgraph.JobVertexID;
import org.apache.flink.runtime.jobgraph.OperatorID;
import org.apache.flink.runtime.state.DirectoryStateHandle;
import org.apache.flink.runtime.state.IncrementalLocalKeyedStateHandle;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.LocalRecoveryConfig;
import org.apache.flink.runtime.state.LocalSnapshotDirectoryProvider;
import org.apache.flink.runtime.state.LocalSnapshotDirectoryProviderImpl;
import org.apache.flink.runtime.state.TaskLocalStateStoreImpl;
import org.apache.flink.runtime.state.filesystem.FileStateHandle;
import org.apache.flink.runtime.state.memory.ByteStreamStateHandle;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A restoring subtask finds the task-local copies another subtask of its operator left on its
 * TaskManager for the restored checkpoint, in its slot or another, read from the record Flink's own
 * task-local state store wrote: those of the manifest being restored, not of another checkpoint,
 * another TaskManager or another operator.
 */
class TaskManagerLocalCopiesTest {

    private static final long CHECKPOINT = 5;
    private static final JobID JOB = new JobID();
    private static final JobVertexID VERTEX = new JobVertexID();
    private static final String TASK_MANAGER = "localState_tm-1";

    @TempDir Path root;

    private final AllocationID slot = new AllocationID();

    @Test
    void anotherIndexsCopiesInThisSlotAreOfferedForItsManifest() throws Exception {
        FileStateHandle manifest = manifest("chk-5/manifest-of-subtask-1");
        Path copyOfVnode3 = storeLocalState(TASK_MANAGER, slot, VERTEX, 1, CHECKPOINT, manifest, 3);

        TaskManagerLocalCopies copies = copiesOfSubtask(0, slot, VERTEX, CHECKPOINT);

        // the restored handle names the manifest anew, as after Flink's metadata round trip
        TaskLocalVnodes.Pointer pointer =
                copies.pointerFor(manifest("chk-5/manifest-of-subtask-1")).orElseThrow();
        assertThat(pointer.copyByVnode()).containsExactlyEntriesOf(Map.of(3, copyOfVnode3));
        assertThat(pointer.heldByChain())
                .containsExactlyEntriesOf(
                        Map.of(3, new VnodeReplication.HeldReplica("i-7", Set.of("000010.sst"))));
        assertThat(copies.pointerFor(manifest("chk-5/manifest-of-subtask-2")))
                .as("another subtask's manifest")
                .isEmpty();
    }

    @Test
    void copiesInAnotherSlotOfThisTaskManagerAreOfferedThisSlotsFirst() throws Exception {
        FileStateHandle manifest = manifest("chk-5/manifest-of-subtask-1");
        AllocationID otherSlot = new AllocationID();
        Path inOtherSlot =
                storeLocalState(TASK_MANAGER, otherSlot, VERTEX, 1, CHECKPOINT, manifest, 3);

        assertThat(copiesOfSubtask(0, slot, VERTEX, CHECKPOINT).pointerFor(manifest))
                .as("the copy another slot of this TaskManager keeps")
                .hasValueSatisfying(
                        pointer ->
                                assertThat(pointer.copyByVnode())
                                        .containsExactlyEntriesOf(Map.of(3, inOtherSlot)));

        // the same snapshot's copy in this slot too (a subtask that kept it here and moved on)
        Path inThisSlot = storeLocalState(TASK_MANAGER, slot, VERTEX, 2, CHECKPOINT, manifest, 3);
        assertThat(copiesOfSubtask(0, slot, VERTEX, CHECKPOINT).pointerFor(manifest))
                .as("this slot's copy before another slot's, which may be freed meanwhile")
                .hasValueSatisfying(
                        pointer ->
                                assertThat(pointer.copyByVnode())
                                        .containsExactlyEntriesOf(Map.of(3, inThisSlot)));
    }

    @Test
    void copiesOfAnotherCheckpointTaskManagerOrVertexAreNotOffered() throws Exception {
        FileStateHandle manifest = manifest("chk-5/manifest-of-subtask-1");
        storeLocalState(TASK_MANAGER, slot, VERTEX, 1, CHECKPOINT, manifest, 3);
        storeLocalState(TASK_MANAGER, new AllocationID(), VERTEX, 2, CHECKPOINT, manifest, 4);

        assertThat(copiesOfSubtask(0, slot, VERTEX, CHECKPOINT + 1).pointerFor(manifest))
                .as("a later checkpoint")
                .isEmpty();
        assertThat(
                        TaskManagerLocalCopies.inDirectoriesOf(
                                        provider("localState_other", new AllocationID(), VERTEX, 0),
                                        CHECKPOINT,
                                        getClass().getClassLoader())
                                .pointerFor(manifest))
                .as("another TaskManager")
                .isEmpty();
        assertThat(copiesOfSubtask(0, slot, new JobVertexID(), CHECKPOINT).pointerFor(manifest))
                .as("another vertex")
                .isEmpty();
    }

    @Test
    void anUnreadableRecordOffersNothing() throws Exception {
        FileStateHandle manifest = manifest("chk-5/manifest-of-subtask-1");
        storeLocalState(TASK_MANAGER, slot, VERTEX, 1, CHECKPOINT, manifest, 3);
        File record =
                new File(
                        provider(slot, VERTEX, 1).subtaskSpecificCheckpointDirectory(CHECKPOINT),
                        TaskLocalStateStoreImpl.TASK_STATE_SNAPSHOT_FILENAME);
        Files.writeString(record.toPath(), "not a snapshot");

        assertThat(copiesOfSubtask(0, slot, VERTEX, CHECKPOINT).pointerFor(manifest)).isEmpty();
        assertThat(TaskManagerLocalCopies.none().pointerFor(manifest)).isEmpty();
    }

    private TaskManagerLocalCopies copiesOfSubtask(
            int subtask, AllocationID allocation, JobVertexID vertex, long checkpoint) {
        return TaskManagerLocalCopies.inDirectoriesOf(
                provider(allocation, vertex, subtask), checkpoint, getClass().getClassLoader());
    }

    /**
     * Stores, through Flink's task-local state store of {@code subtask} in {@code allocation} of
     * {@code taskManager}, a Rhino local alternative with a copy of {@code vnode}; returns the
     * copy's directory.
     */
    private Path storeLocalState(
            String taskManager,
            AllocationID allocation,
            JobVertexID vertex,
            int subtask,
            long checkpoint,
            FileStateHandle manifest,
            int vnode)
            throws Exception {
        LocalSnapshotDirectoryProvider directories =
                provider(taskManager, allocation, vertex, subtask);
        Path checkpointDirectory =
                Files.createDirectories(
                        directories.subtaskSpecificCheckpointDirectory(checkpoint).toPath());
        Path copy = Files.createDirectories(checkpointDirectory.resolve("vnode-copy-" + vnode));
        Files.writeString(copy.resolve("CURRENT"), "MANIFEST-000001\n");
        IncrementalLocalKeyedStateHandle alternative =
                TaskLocalVnodes.alternative(
                                UUID.randomUUID(),
                                KeyGroupRange.of(subtask, 127),
                                checkpoint,
                                manifest,
                                Map.of(
                                        vnode,
                                        new IncrementalLocalKeyedStateHandle(
                                                UUID.randomUUID(),
                                                checkpoint,
                                                DirectoryStateHandle.forPathWithSize(copy),
                                                KeyGroupRange.of(0, 31),
                                                new ByteStreamStateHandle("meta", new byte[1]),
                                                List.of())),
                                Map.of(
                                        vnode,
                                        new VnodeReplication.HeldReplica(
                                                "i-7", Set.of("000010.sst"))))
                        .orElseThrow();
        TaskStateSnapshot snapshot = new TaskStateSnapshot();
        snapshot.putSubtaskStateByOperatorID(
                new OperatorID(),
                OperatorSubtaskState.builder().setManagedKeyedState(alternative).build());
        new TaskLocalStateStoreImpl(
                        JOB,
                        allocation,
                        vertex,
                        subtask,
                        new LocalRecoveryConfig(true, true, directories),
                        Runnable::run)
                .storeLocalState(checkpoint, snapshot);
        return copy;
    }

    private LocalSnapshotDirectoryProvider provider(
            AllocationID allocation, JobVertexID vertex, int subtask) {
        return provider(TASK_MANAGER, allocation, vertex, subtask);
    }

    /** Flink's layout: {@code <root>/localState_<TaskManager>/aid_<slot>/...}. */
    private LocalSnapshotDirectoryProvider provider(
            String taskManager, AllocationID allocation, JobVertexID vertex, int subtask) {
        return new LocalSnapshotDirectoryProviderImpl(
                root.resolve(taskManager).resolve("aid_" + allocation.toHexString()).toFile(),
                JOB,
                vertex,
                subtask);
    }

    private static FileStateHandle manifest(String path) {
        return new FileStateHandle(
                new org.apache.flink.core.fs.Path("file:/checkpoints/" + path), 100);
    }
}
