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
 * Task-local copies that any subtask of this operator left in this slot for the checkpoint being
 * restored, not only the subtask of this one's index.
 *
 * <p>Flink keys its task-local state by slot and subtask index, and offers a restoring subtask only
 * what the subtask of its own index kept in its slot. After a restart-based rescale that is rarely
 * the state the subtask restores: Flink's adaptive scheduler puts each new subtask in the slot
 * whose old subtask's key-group range overlaps its own most ({@code StateLocalitySlotAssigner}),
 * and the rescaled routing table follows the same ranges ({@code RescaleAssignment}), so the old
 * subtask in that slot held most of the new subtask's vnodes, under another index. This reads every
 * subtask directory of the operator in this slot's local state for the restored checkpoint (Flink's
 * own record of what it stored there, {@link TaskLocalStateStoreImpl#TASK_STATE_SNAPSHOT_FILENAME})
 * and offers the Rhino local alternative whose manifest is the one being restored.
 *
 * <p>Only this slot's directories are read: no other task of this operator runs in the slot (one
 * subtask per vertex and slot), so nothing prunes those copies while this subtask links them, and
 * the slot's local state is deleted only when the slot is freed, which this subtask holds. A
 * checkpoint after the restored one cannot complete before this subtask runs either.
 */
final class SlotLocalCopies {

    private static final Logger LOG = LoggerFactory.getLogger(SlotLocalCopies.class);

    private static final SlotLocalCopies NONE = new SlotLocalCopies(List.of(), null);

    private static final String SUBTASK_DIRECTORY_INDEX_SEPARATOR = "_sti_";

    private final List<Path> snapshotFiles;
    private final ClassLoader classLoader;
    private List<TaskLocalVnodes.Pointer> pointers;

    private SlotLocalCopies(List<Path> snapshotFiles, ClassLoader classLoader) {
        this.snapshotFiles = snapshotFiles;
        this.classLoader = classLoader;
    }

    /** Offers nothing: no task-local recovery, or no checkpoint restored. */
    static SlotLocalCopies none() {
        return NONE;
    }

    /** The copies of the checkpoint {@code env} restores, in its slot. */
    static SlotLocalCopies of(Environment env) {
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
     * The copies of checkpoint {@code checkpointId} in the slot of {@code ownDirectories}, the
     * local state directories Flink gives a subtask.
     */
    static SlotLocalCopies inDirectoriesOf(
            LocalSnapshotDirectoryProvider ownDirectories,
            long checkpointId,
            ClassLoader classLoader) {
        // <root>/aid_<slot>/jid_<job>/vtx_<vertex>_sti_<index>/chk_<id>/_task_state_snapshot
        File own = ownDirectories.subtaskSpecificCheckpointDirectory(checkpointId);
        File subtask = own.getParentFile();
        File job = subtask.getParentFile();
        String name = subtask.getName();
        int separator = name.lastIndexOf(SUBTASK_DIRECTORY_INDEX_SEPARATOR);
        if (job == null || separator < 0) {
            return NONE;
        }
        String vertexPrefix =
                name.substring(0, separator + SUBTASK_DIRECTORY_INDEX_SEPARATOR.length());
        List<Path> files = new ArrayList<>();
        try (Stream<Path> subtasks = Files.list(job.toPath())) {
            subtasks.filter(dir -> dir.getFileName().toString().startsWith(vertexPrefix))
                    .map(
                            dir ->
                                    dir.resolve(own.getName())
                                            .resolve(
                                                    TaskLocalStateStoreImpl
                                                            .TASK_STATE_SNAPSHOT_FILENAME))
                    .filter(Files::isRegularFile)
                    .sorted()
                    .forEach(files::add);
        } catch (IOException e) {
            // no directory of the job in this slot yet, or unreadable: no copies to offer
            LOG.debug("No task-local state of checkpoint {} in {}", checkpointId, job, e);
            return NONE;
        }
        return files.isEmpty() ? NONE : new SlotLocalCopies(files, classLoader);
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
