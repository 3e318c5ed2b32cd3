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

package io.rhino.replication.testing;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/** The partial files of a store that transfers change while tests look at it. */
public final class ChangingFileTree {

    private ChangingFileTree() {}

    /** The regular files under {@code root}, none if it does not exist (any more). */
    public static List<Path> regularFiles(Path root) throws IOException {
        return io.rhino.replication.store.ChangingFileTree.regularFiles(root);
    }

    /** The partial files (being received) under {@code root}. */
    public static List<Path> partialFiles(Path root) throws IOException {
        return regularFiles(root).stream()
                .filter(file -> file.getFileName().toString().contains(".part-"))
                .toList();
    }
}
