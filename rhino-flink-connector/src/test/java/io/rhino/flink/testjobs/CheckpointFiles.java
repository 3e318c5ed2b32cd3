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

package io.rhino.flink.testjobs;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.apache.flink.runtime.checkpoint.Checkpoints;
import org.apache.flink.runtime.checkpoint.OperatorState;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata;
import org.apache.flink.runtime.state.IncrementalKeyedStateHandle.HandleAndLocalPath;
import org.apache.flink.runtime.state.IncrementalRemoteKeyedStateHandle;
import org.apache.flink.runtime.state.KeyGroupsStateHandle;
import org.apache.flink.runtime.state.OperatorStateHandle;
import org.apache.flink.runtime.state.StateObject;
import org.apache.flink.runtime.state.StreamStateHandle;
import org.apache.flink.runtime.state.filesystem.FileStateHandle;

/**
 * The files in a job's checkpoint directory (or any directory whose files may be deleted while it
 * is listed), its completed checkpoints, and the files a retained checkpoint references.
 */
public final class CheckpointFiles {

    private CheckpointFiles() {}

    /**
     * Every regular file under {@code directory}. Files and directories that disappear during the
     * walk (Flink discards subsumed checkpoints asynchronously) are left out.
     */
    public static Set<Path> under(Path directory) throws IOException {
        return collect(directory, attributes -> attributes.isRegularFile(), name -> true);
    }

    /** Every regular file under {@code directory} whose name matches, likewise. */
    public static Set<Path> filesNamed(Path directory, Predicate<String> name) throws IOException {
        return collect(directory, attributes -> attributes.isRegularFile(), name);
    }

    /** The completed checkpoints ({@code chk-N} with their metadata) in a job's directory. */
    public static List<Path> completedCheckpoints(Path jobDirectory) throws IOException {
        if (!Files.isDirectory(jobDirectory)) {
            return List.of();
        }
        try (Stream<Path> dirs = Files.list(jobDirectory)) {
            return dirs.filter(dir -> dir.getFileName().toString().startsWith("chk-"))
                    .filter(dir -> Files.exists(dir.resolve("_metadata")))
                    .toList();
        }
    }

    /** The newest completed checkpoint in a job's directory: the one a cancelled job retained. */
    public static Optional<Path> latestCompletedCheckpoint(Path jobDirectory) throws IOException {
        return completedCheckpoints(jobDirectory).stream()
                .max(
                        Comparator.comparingLong(
                                dir -> Long.parseLong(dir.getFileName().toString().substring(4))));
    }

    /** Every directory under {@code directory} whose name starts with {@code prefix}, likewise. */
    public static Set<Path> directoriesUnder(Path directory, String prefix) throws IOException {
        return collect(
                directory, BasicFileAttributes::isDirectory, name -> name.startsWith(prefix));
    }

    private static Set<Path> collect(
            Path directory, Predicate<BasicFileAttributes> kind, Predicate<String> name)
            throws IOException {
        Set<Path> found = new TreeSet<>();
        Files.walkFileTree(
                directory,
                new SimpleFileVisitor<>() {
                    @Override
                    public FileVisitResult preVisitDirectory(
                            Path dir, BasicFileAttributes attributes) {
                        visitFile(dir, attributes);
                        return FileVisitResult.CONTINUE;
                    }

                    @Override
                    public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
                        if (kind.test(attributes) && name.test(file.getFileName().toString())) {
                            found.add(file);
                        }
                        return FileVisitResult.CONTINUE;
                    }

                    @Override
                    public FileVisitResult visitFileFailed(Path file, IOException e)
                            throws IOException {
                        return goneOrThrow(e);
                    }

                    @Override
                    public FileVisitResult postVisitDirectory(Path dir, IOException e)
                            throws IOException {
                        return e == null ? FileVisitResult.CONTINUE : goneOrThrow(e);
                    }
                });
        return found;
    }

    private static FileVisitResult goneOrThrow(IOException e) throws IOException {
        if (e instanceof NoSuchFileException) {
            return FileVisitResult.CONTINUE;
        }
        throw e;
    }

    /** The checkpoint's metadata file and every file its state handles reference. */
    public static Set<Path> referencedBy(Path checkpointDirectory) throws IOException {
        Path metadataFile = checkpointDirectory.resolve("_metadata");
        CheckpointMetadata metadata;
        try (InputStream in = Files.newInputStream(metadataFile)) {
            metadata =
                    Checkpoints.loadCheckpointMetadata(
                            new DataInputStream(in),
                            CheckpointFiles.class.getClassLoader(),
                            checkpointDirectory.toUri().toString());
        }
        Set<Path> files = new TreeSet<>();
        files.add(metadataFile);
        for (OperatorState operator : metadata.getOperatorStates()) {
            for (OperatorSubtaskState subtask : operator.getStates()) {
                subtask.getManagedKeyedState().forEach(handle -> add(handle, files));
                subtask.getRawKeyedState().forEach(handle -> add(handle, files));
                subtask.getManagedOperatorState().forEach(handle -> add(handle, files));
                subtask.getRawOperatorState().forEach(handle -> add(handle, files));
                subtask.getInputChannelState().forEach(handle -> add(handle, files));
                subtask.getResultSubpartitionState().forEach(handle -> add(handle, files));
            }
            if (operator.getCoordinatorState() != null) {
                add(operator.getCoordinatorState(), files);
            }
        }
        return files;
    }

    private static void add(StateObject handle, Set<Path> files) {
        if (handle instanceof IncrementalRemoteKeyedStateHandle incremental) {
            incremental.getSharedState().forEach(file -> add(file, files));
            incremental.getPrivateState().forEach(file -> add(file, files));
            add(incremental.getMetaDataStateHandle(), files);
        } else if (handle instanceof KeyGroupsStateHandle keyGroups) {
            add(keyGroups.getDelegateStateHandle(), files);
        } else if (handle instanceof OperatorStateHandle operatorState) {
            add(operatorState.getDelegateStateHandle(), files);
        } else if (handle instanceof FileStateHandle file) {
            files.add(Paths.get(file.getFilePath().toUri()));
        } else if (handle
                instanceof org.apache.flink.runtime.state.AbstractChannelStateHandle<?> channel) {
            add(channel.getDelegate(), files);
        } else if (handle instanceof StreamStateHandle) {
            // inlined bytes: no file
        } else if (handle != null) {
            throw new IllegalArgumentException("Unknown handle " + handle.getClass());
        }
    }

    private static void add(HandleAndLocalPath file, Set<Path> files) {
        add(file.getHandle(), files);
    }
}
