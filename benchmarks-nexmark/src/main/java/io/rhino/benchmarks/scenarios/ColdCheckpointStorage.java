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

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drops the checkpoint storage's files from the kernel's page cache, so that a restore reads them
 * from the disk. On one machine the storage is a local directory that was just written, so a
 * restore would otherwise copy it from memory; in a cluster it is a remote store, never in the
 * restoring TaskManager's memory. Only those files go: the TaskManagers' own files (RocksDB
 * instances, local copies, replicas) stay cached as they would on their machines.
 *
 * <p>Uses GNU {@code dd}'s {@code iflag=nocache}, which advises the kernel to drop a file's pages
 * ({@code posix_fadvise(DONTNEED)}); dirty pages are written first by the {@code sync}.
 */
final class ColdCheckpointStorage {

    private static final Logger LOG = LoggerFactory.getLogger(ColdCheckpointStorage.class);

    private ColdCheckpointStorage() {}

    /** Evicts every file under {@code directory} from the page cache. */
    static void evict(Path directory) throws IOException, InterruptedException {
        if (!Files.isDirectory(directory)) {
            return;
        }
        long started = System.nanoTime();
        run("dd", "--version");
        run("sync");
        // files of subsumed checkpoints may go meanwhile: find then exits with 1, harmlessly
        start(
                "find",
                directory.toString(),
                "-type",
                "f",
                "-exec",
                "dd",
                "if={}",
                "iflag=nocache",
                "count=0",
                "status=none",
                ";");
        LOG.info(
                "Dropped the checkpoint storage {} from the page cache in {} ms",
                directory,
                (System.nanoTime() - started) / 1_000_000);
    }

    private static void run(String... command) throws IOException, InterruptedException {
        Process process = start(command);
        if (process.exitValue() != 0) {
            throw new IOException(
                    String.join(" ", command)
                            + " failed (needs Linux with GNU coreutils and findutils; pass"
                            + " --cold-checkpoint-storage false to restore from a cached storage): "
                            + new String(process.getInputStream().readAllBytes()));
        }
    }

    /** Runs {@code command} to its end (at most two minutes) and returns it. */
    private static Process start(String... command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        process.getOutputStream().close();
        if (!process.waitFor(2, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            throw new IOException(String.join(" ", command) + " did not end in two minutes");
        }
        return process;
    }
}
