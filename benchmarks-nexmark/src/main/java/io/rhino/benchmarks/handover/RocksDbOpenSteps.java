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

import java.time.LocalTime;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import java.util.function.ToDoubleFunction;

/**
 * Where the last open of a RocksDB instance spent its time, read from the instance's information
 * log (its {@code LOG} file at Flink's default {@code INFO_LEVEL}), whose lines carry microsecond
 * timestamps. Steps, in RocksDB 8.10's order:
 *
 * <ul>
 *   <li>{@code recoverMillis}: reading the MANIFEST, setting up the column families and opening
 *       their table files ("Recovering from manifest" to "Recovered from manifest");
 *   <li>{@code identityMillis}: up to "DB ID": the instance's {@code IDENTITY} file read, or, where
 *       its directory holds none (a RocksDB checkpoint's files, as Flink's checkpoints hold them),
 *       a new one written and synced; a vnode's export carries its file;
 *   <li>{@code newManifestMillis}: from "Creating manifest" to "DB pointer": a new MANIFEST,
 *       CURRENT and OPTIONS file written and synced;
 *   <li>{@code totalMillis}: from the log's first line of the open to "DB pointer".
 * </ul>
 */
public record RocksDbOpenSteps(
        double recoverMillis, double identityMillis, double newManifestMillis, double totalMillis) {

    private static final double DAY_MILLIS = 24 * 3600 * 1000.0;

    /** The steps of the last complete open in {@code logLines}, if the log holds one. */
    public static Optional<RocksDbOpenSteps> lastOpenIn(List<String> logLines) {
        Optional<RocksDbOpenSteps> last = Optional.empty();
        Marks marks = null;
        for (String line : logLines) {
            Optional<Double> at = timestampMillis(line);
            if (at.isEmpty()) {
                continue;
            }
            double t = at.get();
            if (line.contains("RocksDB version:")) {
                marks = new Marks(t);
            } else if (marks == null) {
                continue;
            } else if (line.contains("Recovering from manifest file")) {
                marks.recovering = t;
            } else if (line.contains("Recovered from manifest file")) {
                marks.recovered = t;
            } else if (line.contains("] DB ID: ")) {
                marks.identity = t;
            } else if (line.contains("] Creating manifest ") && marks.identity >= 0) {
                marks.newManifest = t;
            } else if (line.contains("DB pointer ")) {
                last = marks.steps(t);
                marks = null;
            }
        }
        return last;
    }

    /**
     * Milliseconds since midnight of a line such as {@code 2026/11/28-23:56:18.104744 1406...}, or
     * empty for a continuation line.
     */
    static Optional<Double> timestampMillis(String line) {
        int dash = line.indexOf('-');
        int space = line.indexOf(' ');
        if (dash != 10 || space < dash) {
            return Optional.empty();
        }
        try {
            LocalTime time = LocalTime.parse(line.substring(dash + 1, space));
            return Optional.of(ChronoUnit.NANOS.between(LocalTime.MIDNIGHT, time) / 1e6);
        } catch (DateTimeParseException e) {
            return Optional.empty();
        }
    }

    /** Each step's median over {@code opens}; empty for none. */
    public static Optional<RocksDbOpenSteps> medianOf(List<RocksDbOpenSteps> opens) {
        if (opens.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(
                new RocksDbOpenSteps(
                        median(opens, RocksDbOpenSteps::recoverMillis),
                        median(opens, RocksDbOpenSteps::identityMillis),
                        median(opens, RocksDbOpenSteps::newManifestMillis),
                        median(opens, RocksDbOpenSteps::totalMillis)));
    }

    private static double median(
            List<RocksDbOpenSteps> opens, ToDoubleFunction<RocksDbOpenSteps> step) {
        double[] sorted = opens.stream().mapToDouble(step).sorted().toArray();
        int middle = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }

    /** Milliseconds from {@code from} to {@code to}, both of the day, across a midnight. */
    private static double between(double from, double to) {
        double millis = to - from;
        return millis < 0 ? millis + DAY_MILLIS : millis;
    }

    /** The timestamps of one open's lines, -1 where not seen yet. */
    private static final class Marks {
        final double start;
        double recovering = -1;
        double recovered = -1;
        double identity = -1;
        double newManifest = -1;

        Marks(double start) {
            this.start = start;
        }

        Optional<RocksDbOpenSteps> steps(double opened) {
            if (recovering < 0 || recovered < 0 || identity < 0 || newManifest < 0) {
                return Optional.empty(); // a log of another RocksDB version, or level
            }
            return Optional.of(
                    new RocksDbOpenSteps(
                            between(recovering, recovered),
                            between(recovered, identity),
                            between(newManifest, opened),
                            between(start, opened)));
        }
    }
}
