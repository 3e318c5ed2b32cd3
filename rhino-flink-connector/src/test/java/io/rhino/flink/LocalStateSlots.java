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

package io.rhino.flink;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobID;

/**
 * Which slot and TaskManager each subtask of a job kept task-local state in, read from the layout
 * of Flink's task-local state root ({@code
 * localState_<TaskManager>/aid_<slot>/jid_<job>/vtx_<vertex>_sti_<index>/chk_<checkpoint>}), the
 * only place a test sees slots: Flink's REST API names TaskManagers, not slots.
 */
final class LocalStateSlots {

    private static final Pattern SUBTASK = Pattern.compile("vtx_([0-9a-f]+)_sti_(\\d+)");
    private static final Pattern CHECKPOINT = Pattern.compile("chk_(\\d+)");

    /**
     * One subtask directory: the slot, vertex and index, the checkpoints it holds, and whether a
     * checkpoint of it holds a RocksDB instance's copy (other state is files).
     */
    record SubtaskDirectory(
            String taskManager,
            String slot,
            String vertex,
            int subtask,
            List<Long> checkpoints,
            boolean holdsCopies) {

        long latestCheckpoint() {
            return checkpoints.stream().mapToLong(Long::longValue).max().orElse(-1);
        }
    }

    private LocalStateSlots() {}

    /** Every subtask directory of {@code job} under {@code root}. */
    static List<SubtaskDirectory> of(Path root, JobID job) {
        List<SubtaskDirectory> found = new ArrayList<>();
        // a TaskManager keeps its slots under <root>/localState_<its resource id>
        try (Stream<Path> slots = Files.find(root, 2, LocalStateSlots::isSlot)) {
            for (Path slot : slots.toList()) {
                Path jobDirectory = slot.resolve("jid_" + job);
                if (!Files.isDirectory(jobDirectory)) {
                    continue;
                }
                try (Stream<Path> subtasks = Files.list(jobDirectory)) {
                    for (Path subtask : subtasks.toList()) {
                        Matcher name = SUBTASK.matcher(subtask.getFileName().toString());
                        if (name.matches()) {
                            found.add(
                                    new SubtaskDirectory(
                                            slot.getParent().getFileName().toString(),
                                            slot.getFileName().toString(),
                                            name.group(1),
                                            Integer.parseInt(name.group(2)),
                                            checkpointsIn(subtask),
                                            holdsCopies(subtask)));
                        }
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return found;
    }

    private static boolean holdsCopies(Path subtask) throws IOException {
        // chk_<id>/<instance>/CURRENT
        try (Stream<Path> entries =
                Files.find(
                        subtask,
                        3,
                        (path, attributes) ->
                                attributes.isRegularFile()
                                        && path.getFileName().toString().equals("CURRENT")
                                        && subtask.relativize(path).getNameCount() == 3)) {
            return entries.findAny().isPresent();
        } catch (java.nio.file.NoSuchFileException | UncheckedIOException pruned) {
            return false;
        }
    }

    private static boolean isSlot(
            Path path, java.nio.file.attribute.BasicFileAttributes attributes) {
        return attributes.isDirectory() && path.getFileName().toString().startsWith("aid_");
    }

    private static List<Long> checkpointsIn(Path subtask) throws IOException {
        List<Long> checkpoints = new ArrayList<>();
        try (Stream<Path> entries = Files.list(subtask)) {
            entries.forEach(
                    entry -> {
                        Matcher name = CHECKPOINT.matcher(entry.getFileName().toString());
                        if (name.matches()) {
                            checkpoints.add(Long.parseLong(name.group(1)));
                        }
                    });
        } catch (java.nio.file.NoSuchFileException pruned) {
            // Flink deleted the directory while it was listed
        }
        return checkpoints;
    }
}
