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
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Sums the samples of window profiles ({@link WindowProfile}) by thread group: the keyed tasks,
 * RocksDB's background threads, Rhino's replication threads, Flink's asynchronous checkpoint part,
 * its uploads, GC and the VM, the JIT, the input side (Kafka and the generator), the rest. Prints a
 * table and writes {@code thread-groups.csv} (profile, group, samples) into the directory.
 *
 * <pre>java ... io.rhino.benchmarks.harness.ProfileThreadGroups DIR</pre>
 */
public final class ProfileThreadGroups {

    static final List<String> GROUPS =
            List.of(
                    "keyed tasks",
                    "rocksdb background",
                    "replication",
                    "async checkpoint",
                    "uploads",
                    "gc and vm",
                    "jit",
                    "input side",
                    "other");

    private ProfileThreadGroups() {}

    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            System.err.println("usage: ProfileThreadGroups DIRECTORY_OF_.collapsed_FILES");
            System.exit(2);
        }
        Path directory = Path.of(args[0]);
        List<Path> profiles;
        try (Stream<Path> files = Files.list(directory)) {
            profiles = files.filter(f -> f.toString().endsWith(".collapsed")).sorted().toList();
        }
        Path csv = directory.resolve("thread-groups.csv");
        try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(csv))) {
            out.println("profile,group,samples");
            System.out.printf(Locale.ROOT, "%-50s %s%n", "profile", String.join(" | ", GROUPS));
            for (Path profile : profiles) {
                Map<String, Long> byGroup = samplesByGroup(profile);
                String name = profile.getFileName().toString().replace(".collapsed", "");
                List<String> row = new ArrayList<>();
                for (String group : GROUPS) {
                    long samples = byGroup.getOrDefault(group, 0L);
                    out.printf(Locale.ROOT, "%s,%s,%d%n", name, group, samples);
                    row.add(Long.toString(samples));
                }
                System.out.printf(Locale.ROOT, "%-50s %s%n", name, String.join(" | ", row));
            }
        }
        System.out.println("Wrote " + csv);
    }

    /** Samples of one collapsed profile (each stack led by its thread's frame) by group. */
    static Map<String, Long> samplesByGroup(Path profile) throws IOException {
        Map<String, Long> byGroup = new TreeMap<>();
        try (Stream<String> lines = Files.lines(profile)) {
            lines.forEach(
                    line -> {
                        int count = line.lastIndexOf(' ');
                        int firstFrame = line.indexOf(';');
                        if (count < 0 || firstFrame < 0 || firstFrame > count) {
                            return;
                        }
                        String thread = line.substring(0, firstFrame);
                        long samples = Long.parseLong(line.substring(count + 1).trim());
                        byGroup.merge(groupOf(thread), samples, Long::sum);
                    });
        }
        return byGroup;
    }

    /** The group of a thread frame such as {@code [rocksdb:low tid=123]}. */
    static String groupOf(String threadFrame) {
        String thread = threadFrame.toLowerCase(Locale.ROOT);
        if (thread.contains("(rhino gate) ->") && !thread.startsWith("[outputflusher")) {
            return "keyed tasks";
        }
        if (thread.startsWith("[rocksdb:")) {
            return "rocksdb background";
        }
        if (thread.startsWith("[rhino-replication")) {
            return "replication";
        }
        if (thread.startsWith("[asyncoperations")) {
            return "async checkpoint";
        }
        if (thread.startsWith("[flink-rocksdbstatedatatransferhelper")) {
            return "uploads";
        }
        if (thread.startsWith("[gc thread")
                || thread.startsWith("[g1 ")
                || thread.startsWith("[vm ")) {
            return "gc and vm";
        }
        if (thread.contains("compilerthre")) {
            return "jit";
        }
        if (thread.contains("kafka")
                || thread.startsWith("[nexmark-producer")
                || thread.startsWith("[data-plane")
                || thread.startsWith("[broker-")
                || thread.startsWith("[quorum-controller")) {
            return "input side";
        }
        // Flink's keyed tasks without a Rhino gate (plain Flink's job) are named after the
        // operator and keep their subtask suffix
        if (thread.matches("\\[nbq[0-9x][^\\]]*\\(\\d+/\\d+\\)#\\d+.*")
                || thread.matches("\\[.*window.*\\(\\d+/\\d+\\)#\\d+.*")) {
            return thread.startsWith("[outputflusher") ? "other" : "keyed tasks";
        }
        return "other";
    }
}
