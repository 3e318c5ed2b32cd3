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

package io.rhino.deployment;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/** The lines a file sink committed under a directory: its finished part files. */
final class JobOutput {

    private JobOutput() {}

    static List<String> committedLines(Path directory) throws IOException {
        while (true) {
            try {
                return readCommitted(directory);
            } catch (UncheckedIOException | NoSuchFileException renamedWhileRead) {
                // the sink renamed or removed a file meanwhile: read again
            }
        }
    }

    private static List<String> readCommitted(Path directory) throws IOException {
        if (!Files.isDirectory(directory)) {
            return List.of();
        }
        List<String> lines = new ArrayList<>();
        try (Stream<Path> files = Files.walk(directory)) {
            // in-progress and pending part files are hidden: ".part-...inprogress..."
            for (Path file :
                    files.filter(Files::isRegularFile)
                            .filter(f -> !f.getFileName().toString().startsWith("."))
                            .toList()) {
                // a committed part file is never changed again
                lines.addAll(Files.readAllLines(file));
            }
        }
        return lines;
    }

    /**
     * Waits until at least {@code expected} lines are committed, then for one more checkpoint
     * interval (a duplicate would show), and returns them.
     */
    static List<String> awaitCommitted(Path directory, int expected, Duration timeout)
            throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<String> lines = committedLines(directory);
        while (lines.size() < expected && System.nanoTime() < deadline) {
            Thread.sleep(500);
            lines = committedLines(directory);
        }
        Thread.sleep(3_000);
        return committedLines(directory);
    }

    static Map<String, Integer> counts(List<String> lines) {
        Map<String, Integer> counts = new TreeMap<>();
        lines.forEach(line -> counts.merge(line, 1, Integer::sum));
        return counts;
    }
}
