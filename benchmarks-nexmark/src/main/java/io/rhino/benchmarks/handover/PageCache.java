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

/**
 * What the kernel's page cache holds that is not on disk yet. Linux only ({@code /proc/meminfo}).
 */
public final class PageCache {

    private static final Path MEMINFO = Path.of("/proc/meminfo");

    private PageCache() {}

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
