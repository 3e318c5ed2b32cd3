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

package io.rhino.benchmarks.harness;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;

/**
 * Reads the Linux {@code /proc} files of the resource sampler. Every reader answers empty when its
 * file is missing, unreadable or not in the expected format, so the sampler degrades instead of
 * failing.
 */
final class ProcFs {

    /**
     * Clock ticks per second of {@code /proc/<pid>/stat}'s CPU times. Java cannot ask sysconf; 100
     * is the value of every mainstream Linux build.
     */
    static final long CLOCK_TICKS_PER_SECOND = 100;

    private final Path root;

    ProcFs(Path root) {
        this.root = root;
    }

    /** User plus system CPU time of {@code pid} in ms, from {@code stat}'s utime and stime. */
    OptionalLong cpuMillis(long pid) {
        String stat = read(root.resolve(Long.toString(pid)).resolve("stat"));
        if (stat == null) {
            return OptionalLong.empty();
        }
        return parseStatCpuMillis(stat);
    }

    /** Resident memory of {@code pid} in bytes, from {@code status}' VmRSS. */
    OptionalLong rssBytes(long pid) {
        String status = read(root.resolve(Long.toString(pid)).resolve("status"));
        return status == null ? OptionalLong.empty() : parseKbField(status, "VmRSS:");
    }

    /** {@code read_bytes} or {@code write_bytes} of {@code pid}'s {@code io}. */
    OptionalLong ioBytes(long pid, String field) {
        String io = read(root.resolve(Long.toString(pid)).resolve("io"));
        return io == null ? OptionalLong.empty() : parseField(io, field + ":");
    }

    /** Bytes received and sent over all interfaces, from {@code net/dev}: {rx, tx}. */
    long[] netBytes() {
        String dev = read(root.resolve("net").resolve("dev"));
        return dev == null ? null : parseNetDev(dev);
    }

    static OptionalLong parseStatCpuMillis(String stat) {
        // The command name (field 2) may hold spaces and parentheses: count fields after its ')'.
        int close = stat.lastIndexOf(')');
        if (close < 0) {
            return OptionalLong.empty();
        }
        String[] fields = stat.substring(close + 1).trim().split("\\s+");
        // fields[0] is field 3 (state); utime and stime are fields 14 and 15.
        if (fields.length < 13) {
            return OptionalLong.empty();
        }
        try {
            long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
            return OptionalLong.of(ticks * 1000 / CLOCK_TICKS_PER_SECOND);
        } catch (NumberFormatException e) {
            return OptionalLong.empty();
        }
    }

    static OptionalLong parseKbField(String text, String name) {
        OptionalLong kb = parseField(text, name);
        return kb.isPresent() ? OptionalLong.of(kb.getAsLong() * 1024) : kb;
    }

    static OptionalLong parseField(String text, String name) {
        for (String line : text.split("\n")) {
            if (line.startsWith(name)) {
                String[] parts = line.substring(name.length()).trim().split("\\s+");
                try {
                    return OptionalLong.of(Long.parseLong(parts[0]));
                } catch (NumberFormatException e) {
                    return OptionalLong.empty();
                }
            }
        }
        return OptionalLong.empty();
    }

    static long[] parseNetDev(String text) {
        long rx = 0;
        long tx = 0;
        boolean any = false;
        List<String> lines = text.lines().toList();
        for (String line : lines) {
            int colon = line.indexOf(':');
            // Header lines have '|' and no "iface:" prefix.
            if (colon < 0 || line.contains("|")) {
                continue;
            }
            String[] cols = line.substring(colon + 1).trim().split("\\s+");
            if (cols.length < 9) {
                continue;
            }
            try {
                rx += Long.parseLong(cols[0]);
                tx += Long.parseLong(cols[8]);
                any = true;
            } catch (NumberFormatException e) {
                return null;
            }
        }
        return any ? new long[] {rx, tx} : null;
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.ISO_8859_1);
        } catch (IOException | SecurityException e) {
            return null;
        }
    }
}
