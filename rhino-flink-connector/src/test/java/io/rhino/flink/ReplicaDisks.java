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

import io.rhino.flink.state.PathSegment;
import io.rhino.replication.store.ReplicaStore;
import io.rhino.replication.store.StoreLock;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The replica disks of a process cluster's TaskManagers, read from outside: each holds the stores
 * of the TaskManagers that ran on it, one of them live (its lock held by a running process).
 */
final class ReplicaDisks {

    private static final String CHECKSUM = ".crc32c";

    private final List<Path> disks;

    ReplicaDisks(List<Path> disks) {
        this.disks = List.copyOf(disks);
    }

    /** The files of {@code jobId} in the stores of live TaskManagers. */
    List<Path> liveFilesOf(String jobId) throws IOException {
        String jobSegment = PathSegment.of(jobId);
        List<Path> found = new ArrayList<>();
        for (Path store : liveStores()) {
            if (Files.exists(store.resolve(jobSegment))) {
                found.addAll(regularFiles(store.resolve(jobSegment)));
            }
        }
        return found;
    }

    /**
     * Partial ({@code .part-N}) files in live stores that are still there after {@code linger}: a
     * stream names its partial file once ({@code N} counts the store's streams), so one seen twice
     * belongs to a stream that lasted at least that long. The job's periodic checkpoints keep
     * replicating meanwhile, and their rounds' partial files (a round takes well under a second
     * here) are not left behind.
     */
    List<Path> lingeringPartialFiles(Duration linger) throws IOException, InterruptedException {
        List<Path> before = livePartialFiles();
        if (before.isEmpty()) {
            return before;
        }
        Thread.sleep(linger.toMillis());
        List<Path> after = livePartialFiles();
        return before.stream().filter(after::contains).toList();
    }

    private List<Path> livePartialFiles() throws IOException {
        List<Path> found = new ArrayList<>();
        for (Path store : liveStores()) {
            regularFiles(store).stream()
                    .filter(f -> f.getFileName().toString().contains(".part-"))
                    .forEach(found::add);
        }
        return found;
    }

    /**
     * Stored files of live stores whose contents no longer have the checksum they were stored with
     * (a file that disappears meanwhile, collected, is not counted).
     */
    List<Path> liveCorruptedFiles() throws IOException {
        List<Path> corrupted = new ArrayList<>();
        for (Path store : liveStores()) {
            for (Path file : regularFiles(store)) {
                String name = file.getFileName().toString();
                if (name.endsWith(CHECKSUM) || name.contains(".part-")) {
                    continue;
                }
                try {
                    if (ReplicaStore.crc32c(file) != ReplicaStore.recordedChecksum(file)) {
                        corrupted.add(file);
                    }
                } catch (NoSuchFileException collectedOrIncomplete) {
                    // dropped by the store's garbage collection while read, or not stored whole
                }
            }
        }
        return corrupted;
    }

    /** The stores whose lock a running process holds. */
    List<Path> liveStores() throws IOException {
        List<Path> live = new ArrayList<>();
        for (Path disk : disks) {
            if (!Files.isDirectory(disk)) {
                continue;
            }
            try (Stream<Path> stores = Files.list(disk)) {
                for (Path store : stores.filter(Files::isDirectory).sorted().toList()) {
                    if (isLive(store)) {
                        live.add(store);
                    }
                }
            }
        }
        return live;
    }

    /** Whether a live process holds the store's lock. */
    static boolean isLive(Path store) throws IOException {
        Path lock = store.resolve(StoreLock.NAME);
        if (!Files.isRegularFile(lock)) {
            return false;
        }
        try (FileChannel channel = FileChannel.open(lock, StandardOpenOption.WRITE)) {
            FileLock held = channel.tryLock();
            if (held == null) {
                return true;
            }
            held.release();
            return false;
        }
    }

    private static List<Path> regularFiles(Path directory) throws IOException {
        try (Stream<Path> files = Files.walk(directory)) {
            return files.filter(Files::isRegularFile).toList();
        } catch (UncheckedIOException e) {
            if (e.getCause() instanceof NoSuchFileException) {
                return regularFiles(directory); // a directory collected while walked: again
            }
            throw e;
        } catch (NoSuchFileException gone) {
            return List.of();
        }
    }
}
