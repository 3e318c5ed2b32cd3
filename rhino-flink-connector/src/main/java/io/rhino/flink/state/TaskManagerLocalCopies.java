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

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.checkpoint.TaskStateSnapshot;
import org.apache.flink.runtime.execution.Environment;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.LocalRecoveryConfig;
import org.apache.flink.runtime.state.LocalSnapshotDirectoryProvider;
import org.apache.flink.runtime.state.StreamStateHandle;
import org.apache.flink.runtime.state.TaskLocalStateStoreImpl;
import org.apache.flink.util.InstantiationUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Task-local copies that any subtask of this operator left on this TaskManager for the checkpoint
 * being restored, in any of its slots, not only those of the subtask of this one's index in this
 * slot.
 *
 * <p>Flink keys its task-local state by slot and subtask index, and offers a restoring subtask only
 * what the subtask of its own index kept in its slot. After a restart-based rescale that is rarely
 * the state the subtask restores: Flink's adaptive scheduler puts each new subtask in the slot
 * whose old subtask's key-group range overlaps its own most ({@code StateLocalitySlotAssigner}),
 * and the rescaled routing table follows the same ranges ({@code RescaleAssignment}), so the old
 * subtask in that slot held most of the new subtask's vnodes, under another index; the rest were
 * often held by an old subtask in another slot of the same TaskManager. This reads every subtask
 * directory of the operator in every slot's local state of this TaskManager for the restored
 * checkpoint (Flink's own record of what it stored there, {@link
 * TaskLocalStateStoreImpl#TASK_STATE_SNAPSHOT_FILENAME}), this slot's first, and offers the Rhino
 * local alternative whose manifest is the one being restored. A local disk's copy is linked, not
 * read over the network as a peer's replica would be.
 *
 * <p>Nothing prunes those copies while this subtask links them: one subtask per vertex runs in a
 * slot, a subtask prunes only its own directory, and only once a checkpoint after the restored one
 * completed, which cannot happen before this subtask runs. A slot's local state is deleted when the
 * slot is freed: this subtask holds its own, but another slot may be freed while its copy is linked
 * (after a scale-down, once Flink's idle-slot timeout passed). A copy that lost files then fails to
 * open (RocksDB checks every live file at open) and the vnode restores from the checkpoint storage
 * instead ({@link ParallelVnodeRestore}).
 */
final class TaskManagerLocalCopies {

    private static final Logger LOG = LoggerFactory.getLogger(TaskManagerLocalCopies.class);

    private static final TaskManagerLocalCopies NONE = new TaskManagerLocalCopies(List.of(), null);

    private static final String SUBTASK_DIRECTORY_INDEX_SEPARATOR = "_sti_";

    private final List<Path> snapshotFiles;
    private final ClassLoader classLoader;
    private List<TaskLocalVnodes.Pointer> pointers;

    private TaskManagerLocalCopies(List<Path> snapshotFiles, ClassLoader classLoader) {
        this.snapshotFiles = snapshotFiles;
        this.classLoader = classLoader;
    }

    /** Offers nothing: no task-local recovery, or no checkpoint restored. */
    static TaskManagerLocalCopies none() {
        return NONE;
    }

    /** The copies of the checkpoint {@code env} restores, on its TaskManager. */
    static TaskManagerLocalCopies of(Environment env) {
        LocalRecoveryConfig config = env.getTaskStateManager().createLocalRecoveryConfig();
        Optional<Long> checkpoint = env.getTaskStateManager().getRestoreCheckpointId();
        if (!config.isLocalRecoveryEnabled()
                || config.getLocalStateDirectoryProvider().isEmpty()
                || checkpoint.isEmpty()) {
            return NONE;
        }
        return inDirectoriesOf(
                config.getLocalStateDirectoryProvider().get(),
                checkpoint.get(),
                env.getUserCodeClassLoader().asClassLoader());
    }

    /**
     * The copies of checkpoint {@code checkpointId} on the TaskManager of {@code ownDirectories},
     * the local state directories Flink gives a subtask.
     */
    static TaskManagerLocalCopies inDirectoriesOf(
            LocalSnapshotDirectoryProvider ownDirectories,
            long checkpointId,
            ClassLoader classLoader) {
        // <root>/localState_<tm>/aid_<slot>/jid_<job>/vtx_<vertex>_sti_<index>/chk_<id>: every
        // slot keeps a checkpoint's copies under the same root (chosen by the checkpoint id)
        File own = ownDirectories.subtaskSpecificCheckpointDirectory(checkpointId);
        File subtask = own.getParentFile();
        File job = subtask == null ? null : subtask.getParentFile();
        File slot = job == null ? null : job.getParentFile();
        File taskManager = slot == null ? null : slot.getParentFile();
        String name = subtask == null ? "" : subtask.getName();
        int separator = name.lastIndexOf(SUBTASK_DIRECTORY_INDEX_SEPARATOR);
        if (taskManager == null || separator < 0) {
            return NONE;
        }
        String vertexPrefix =
                name.substring(0, separator + SUBTASK_DIRECTORY_INDEX_SEPARATOR.length());
        List<Path> files = new ArrayList<>(recordsIn(job.toPath(), vertexPrefix, own.getName()));
        try (Stream<Path> slots = Files.list(taskManager.toPath())) {
            for (Path otherSlot : slots.sorted().toList()) {
                if (!otherSlot.equals(slot.toPath())) {
                    files.addAll(
                            recordsIn(
                                    otherSlot.resolve(job.getName()), vertexPrefix, own.getName()));
                }
            }
        } catch (IOException e) {
            // unreadable: this slot's copies are all there is to offer
            LOG.debug("Cannot list the slots' local state in {}", taskManager, e);
        }
        return files.isEmpty() ? NONE : new TaskManagerLocalCopies(files, classLoader);
    }

    /** Flink's records of checkpoint directory {@code checkpoint} of the vertex in one slot. */
    private static List<Path> recordsIn(Path job, String vertexPrefix, String checkpoint) {
        if (!Files.isDirectory(job)) {
            return List.of();
        }
        try (Stream<Path> subtasks = Files.list(job)) {
            return subtasks.filter(dir -> dir.getFileName().toString().startsWith(vertexPrefix))
                    .map(
                            dir ->
                                    dir.resolve(checkpoint)
                                            .resolve(
                                                    TaskLocalStateStoreImpl
                                                            .TASK_STATE_SNAPSHOT_FILENAME))
                    .filter(Files::isRegularFile)
                    .sorted()
                    .toList();
        } catch (IOException e) {
            // deleted with its slot meanwhile, or unreadable: no copies to offer from it
            LOG.debug("No task-local state of {} in {}", checkpoint, job, e);
            return List.of();
        }
    }

    /** The Rhino local alternative in this slot whose manifest is {@code manifest}, if any. */
    Optional<TaskLocalVnodes.Pointer> pointerFor(StreamStateHandle manifest) {
        if (snapshotFiles.isEmpty()) {
            return Optional.empty();
        }
        if (pointers == null) {
            pointers = readPointers();
        }
        return pointers.stream()
                .filter(
                        pointer ->
                                pointer.manifest()
                                        .getStreamStateHandleID()
                                        .equals(manifest.getStreamStateHandleID()))
                .findFirst();
    }

    private List<TaskLocalVnodes.Pointer> readPointers() {
        List<TaskLocalVnodes.Pointer> found = new ArrayList<>();
        for (Path file : snapshotFiles) {
            try (InputStream in = Files.newInputStream(file)) {
                TaskStateSnapshot snapshot = InstantiationUtil.deserializeObject(in, classLoader);
                for (var entry : snapshot.getSubtaskStateMappings()) {
                    OperatorSubtaskState state = entry.getValue();
                    for (KeyedStateHandle handle : state.getManagedKeyedState()) {
                        TaskLocalVnodes.pointerOf(handle, classLoader).ifPresent(found::add);
                    }
                }
            } catch (IOException | ClassNotFoundException | RuntimeException e) {
                // Flink treats an unreadable record as no local state, and so does this
                LOG.info(
                        "Cannot read the task-local state record {}; its copies are not used",
                        file,
                        e);
            }
        }
        return found;
    }
}
