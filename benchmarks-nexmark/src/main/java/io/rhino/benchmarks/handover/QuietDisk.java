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

package io.rhino.benchmarks.handover;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Waits until the kernel has written back what the fill left in the page cache, so that a
 * handover's own cost can be told from the writeback of gigabytes written just before it: every
 * sync a RocksDB open or checkpoint makes waits behind that writeback. Linux only ({@code
 * /proc/meminfo}).
 */
public final class QuietDisk {

    private static final Path MEMINFO = Path.of("/proc/meminfo");

    private QuietDisk() {}

    /**
     * Waits until dirty and writeback pages stay under {@code bytes} for a second, or {@code
     * limit}.
     *
     * @return how long it waited
     */
    public static Duration await(long bytes, Duration limit)
            throws IOException, InterruptedException {
        long start = System.nanoTime();
        long deadline = start + limit.toNanos();
        int quietSeconds = 0;
        while (quietSeconds < 2 && System.nanoTime() < deadline) {
            quietSeconds = unwrittenBytes() < bytes ? quietSeconds + 1 : 0;
            Thread.sleep(500);
        }
        return Duration.ofNanos(System.nanoTime() - start);
    }

    /** Dirty plus writeback bytes of the page cache. */
    public static long unwrittenBytes() throws IOException {
        long kilobytes = 0;
        for (String line : Files.readAllLines(MEMINFO)) {
            if (line.startsWith("Dirty:") || line.startsWith("Writeback:")) {
                kilobytes += Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        }
        return kilobytes * 1024;
    }
}
