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

package io.rhino.benchmarks.scenarios;

import io.rhino.benchmarks.harness.DiskUsage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Refuses a state fill the disk cannot hold, before an hour of filling finds out. A run keeps its
 * state twice on one disk, in the RocksDB instances and in the checkpoint storage, and compaction
 * needs room besides: at 20 GB of NBQ8 state a run's directory peaked at 2.2-2.4 times the
 * checkpointed state. A replicated system keeps one more copy per replica; no scenario fills those
 * to tens of GB. A run stopped by a kill leaves its directory behind; the advice names those.
 */
final class ScenarioDiskSpace {

    /** The prefix of every run's work directory (see {@link Deployment}). */
    static final String WORK_DIR_PREFIX = "rhino-scenario-";

    /** Disk needed per byte of state: instances, checkpoints, compaction headroom. */
    static final int STATE_COPIES = 3;

    /** Kafka's logs, Flink's blobs and logs, whatever the state. */
    private static final long BASE_BYTES = 1L << 30;

    private ScenarioDiskSpace() {}

    static long needed(long stateBytes) {
        return stateBytes * STATE_COPIES + BASE_BYTES;
    }

    /** Throws with advice if {@code dir}'s disk cannot hold a run that fills {@code stateBytes}. */
    static void require(Path dir, long stateBytes) throws IOException {
        long usable = Files.getFileStore(dir).getUsableSpace();
        if (!fits(stateBytes, usable)) {
            throw new IllegalArgumentException(advice(dir, stateBytes, usable, leftovers(dir)));
        }
    }

    static boolean fits(long stateBytes, long usableBytes) {
        return stateBytes == 0 || usableBytes >= needed(stateBytes);
    }

    /** What a run that does not fit needs, what is free, and what takes the space. */
    static String advice(Path dir, long stateBytes, long usableBytes, Map<Path, Long> leftovers) {
        StringBuilder advice =
                new StringBuilder(
                        String.format(
                                "Not enough free space in %s for a %s state fill: a run keeps the"
                                        + " state in its RocksDB instances and in its checkpoints,"
                                        + " with room for compaction, about %d times the state"
                                        + " (%s), but %s is free.",
                                dir.toAbsolutePath(),
                                Scenarios.gigabytes(stateBytes),
                                STATE_COPIES,
                                Scenarios.gigabytes(needed(stateBytes)),
                                Scenarios.gigabytes(usableBytes)));
        if (!leftovers.isEmpty()) {
            advice.append(" Scenario runs' directories take space there (a killed run leaves")
                    .append(" its own behind); delete those of runs no longer running:");
            leftovers.forEach(
                    (path, bytes) ->
                            advice.append(' ')
                                    .append(path)
                                    .append(" (")
                                    .append(Scenarios.gigabytes(bytes))
                                    .append(')'));
            advice.append('.');
        }
        advice.append(" Or run with -Djava.io.tmpdir on a larger disk, or a smaller --state-size.");
        return advice.toString();
    }

    /** Run work directories in {@code dir}, with their sizes. */
    static Map<Path, Long> leftovers(Path dir) throws IOException {
        List<Path> runs = new ArrayList<>();
        try (Stream<Path> entries = Files.list(dir)) {
            entries.filter(Files::isDirectory)
                    .filter(p -> p.getFileName().toString().startsWith(WORK_DIR_PREFIX))
                    .sorted()
                    .forEach(runs::add);
        }
        Map<Path, Long> sizes = new LinkedHashMap<>();
        for (Path run : runs) {
            sizes.put(run, DiskUsage.directorySize(run));
        }
        return sizes;
    }
}
