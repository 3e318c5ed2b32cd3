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

package io.rhino.replication.store;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;

/**
 * The regular files under a directory that other threads change while it is walked: transfers
 * rename their partial files and stores delete old checkpoints, so an entry that vanishes between
 * being listed and being read is skipped instead of failing the walk ({@code Files.walk} throws).
 */
public final class ChangingFileTree {

    private ChangingFileTree() {}

    /** Calls {@code visit} with each regular file under {@code root} and its attributes. */
    public static void forEachRegularFile(Path root, BiConsumer<Path, BasicFileAttributes> visit)
            throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        Files.walkFileTree(
                root,
                new SimpleFileVisitor<>() {
                    @Override
                    public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
                        if (attributes.isRegularFile()) {
                            visit.accept(file, attributes);
                        }
                        return FileVisitResult.CONTINUE;
                    }

                    @Override
                    public FileVisitResult visitFileFailed(Path file, IOException failure)
                            throws IOException {
                        if (failure instanceof NoSuchFileException) {
                            return FileVisitResult.CONTINUE;
                        }
                        throw failure;
                    }

                    @Override
                    public FileVisitResult postVisitDirectory(Path directory, IOException failure)
                            throws IOException {
                        if (failure == null || failure instanceof NoSuchFileException) {
                            return FileVisitResult.CONTINUE;
                        }
                        throw failure;
                    }
                });
    }

    /** The regular files under {@code root}, none if it does not exist (any more). */
    public static List<Path> regularFiles(Path root) throws IOException {
        List<Path> files = new ArrayList<>();
        forEachRegularFile(root, (file, attributes) -> files.add(file));
        return files;
    }
}
