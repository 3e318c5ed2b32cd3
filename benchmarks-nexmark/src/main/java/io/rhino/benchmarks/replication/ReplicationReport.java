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

package io.rhino.benchmarks.replication;

import io.rhino.benchmarks.handover.HandoverReport;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The disk baseline and one replication run per factor: throughput of source bytes, CPU per GB and
 * the ratio to the disk baseline (the project's goal: at least {@value #GOAL}).
 */
public final class ReplicationReport {

    /** Throughput and sizes are in GB of 2^30 bytes. */
    public static final double GB = 1L << 30;

    public static final double GOAL = 0.8;

    public static final String CSV_HEADER =
            "case,factor,files,bytes,written_bytes,seconds,gb_per_s,cpu_seconds,cpu_s_per_gb,"
                    + "ratio_to_disk,peak_netty_in_use_bytes,peak_netty_reserved_bytes";

    /**
     * One timed case.
     *
     * @param name {@code disk} or {@code replication}
     * @param factor copies of each file when done (1 for the disk baseline)
     * @param bytes source bytes, the basis of the throughput
     * @param writtenBytes bytes written to disk while timed (a chain writes factor - 1 copies)
     * @param peakNettyInUse the most bytes of Netty buffers in use at once, all members together
     *     ({@link MemoryPeaks#NONE} for the disk baseline)
     * @param peakNettyReserved the most bytes Netty's pool held at once, all members together
     */
    public record Row(
            String name,
            int factor,
            int files,
            long bytes,
            long writtenBytes,
            Timing timing,
            long peakNettyInUse,
            long peakNettyReserved) {

        public double gbPerSecond() {
            return bytes / GB / timing.seconds();
        }

        public double cpuSecondsPerGb() {
            return timing.cpuSeconds() / (bytes / GB);
        }
    }

    private final Path dir;
    private final Row disk;
    private final List<Row> replication;

    /** {@code dir} is where the cases wrote, to tell which disk was measured. */
    public ReplicationReport(Path dir, Row disk, List<Row> replication) {
        this.dir = dir;
        this.disk = disk;
        this.replication = List.copyOf(replication);
    }

    public Row disk() {
        return disk;
    }

    public List<Row> replication() {
        return replication;
    }

    public double ratioToDisk(Row row) {
        return row.gbPerSecond() / disk.gbPerSecond();
    }

    private List<Row> rows() {
        List<Row> rows = new ArrayList<>();
        rows.add(disk);
        rows.addAll(replication);
        return rows;
    }

    public void print(PrintStream out) {
        out.println();
        out.printf(
                Locale.ROOT,
                "== Replication throughput: %s in %d files, on the disk of %s ==%n",
                HandoverReport.bytes(disk.bytes()),
                disk.files(),
                dir.toAbsolutePath());
        out.printf(
                Locale.ROOT,
                "%-15s %6s %10s %10s %9s %8s %9s %8s %14s %14s%n",
                "case",
                "factor",
                "source",
                "written",
                "seconds",
                "GB/s",
                "CPU s/GB",
                "vs disk",
                "Netty in use",
                "Netty pool");
        for (Row row : rows()) {
            out.printf(
                    Locale.ROOT,
                    "%-15s %6d %10s %10s %9.2f %8.3f %9.2f %8.2f %14s %14s%n",
                    row.name(),
                    row.factor(),
                    HandoverReport.bytes(row.bytes()),
                    HandoverReport.bytes(row.writtenBytes()),
                    row.timing().seconds(),
                    row.gbPerSecond(),
                    row.cpuSecondsPerGb(),
                    ratioToDisk(row),
                    memory(row.peakNettyInUse()),
                    memory(row.peakNettyReserved()));
        }
        out.printf(
                Locale.ROOT,
                "goal: replication at least %.2f of the fsync'd disk write baseline. Every member"
                        + " shares this machine's disk and cores: factor r writes r - 1 copies"
                        + " of each source byte to it.%n",
                GOAL);
    }

    private static String memory(long bytes) {
        return bytes == MemoryPeaks.NONE ? "-" : HandoverReport.bytes(bytes);
    }

    /** Writes {@link #CSV_HEADER} and one row per case. */
    public void writeCsv(Path out) throws IOException {
        Path parent = out.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        try (PrintWriter writer =
                new PrintWriter(Files.newBufferedWriter(out, StandardCharsets.UTF_8))) {
            writer.println(CSV_HEADER);
            for (Row row : rows()) {
                writer.println(
                        String.format(
                                Locale.ROOT,
                                "%s,%d,%d,%d,%d,%.3f,%.4f,%.3f,%.3f,%.3f,%d,%d",
                                row.name(),
                                row.factor(),
                                row.files(),
                                row.bytes(),
                                row.writtenBytes(),
                                row.timing().seconds(),
                                row.gbPerSecond(),
                                row.timing().cpuSeconds(),
                                row.cpuSecondsPerGb(),
                                ratioToDisk(row),
                                row.peakNettyInUse(),
                                row.peakNettyReserved()));
            }
        }
    }
}
