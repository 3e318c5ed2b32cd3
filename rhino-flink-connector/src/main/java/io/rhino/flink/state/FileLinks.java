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

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * Hard links of RocksDB files, which never change once written: a link costs no copy, whatever the
 * file's size. Where a link cannot be made (the two paths on different file systems), the file is
 * copied.
 */
public final class FileLinks {

    private FileLinks() {}

    /** Links {@code source} at {@code target}, which must not exist, or copies it there. */
    public static void linkOrCopy(Path source, Path target) throws IOException {
        try {
            Files.createLink(target, source);
        } catch (IOException | UnsupportedOperationException e) {
            Files.copy(source, target); // another file system
        }
    }

    /** Creates {@code target} with every file of the directory {@code source} linked or copied. */
    public static void linkDirectory(Path source, Path target) throws IOException {
        Files.createDirectories(target);
        try (Stream<Path> files = Files.list(source)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                if (Files.isRegularFile(file)) {
                    linkOrCopy(file, target.resolve(file.getFileName().toString()));
                }
            }
        }
    }
}
