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

import io.rhino.core.handover.HandoverPhase;
import io.rhino.handover.HandoverResult;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.HdrHistogram.Histogram;

/**
 * The figures of one handover benchmark: per size, Rhino's handover and Flink's stop-with-savepoint
 * rescale of the same state.
 */
public record HandoverReport(List<RhinoHandover> rhino, List<FlinkRescale> flink) {

    /** Latency (ms) of a group of probe records. */
    public record LatencySummary(long count, long p50, long p99, long max) {
        public static LatencySummary of(Histogram histogram) {
            return new LatencySummary(
                    histogram.getTotalCount(),
                    histogram.getValueAtPercentile(50),
                    histogram.getValueAtPercentile(99),
                    histogram.getMaxValue());
        }

        @Override
        public String toString() {
            return count == 0
                    ? "no probes"
                    : String.format(
                            Locale.ROOT, "p50 %d / p99 %d / max %d ms (%d)", p50, p99, max, count);
        }
    }

    /** One Rhino handover of all of a subtask's vnodes to a standby subtask. */
    public record RhinoHandover(
            long sizeBytes,
            long checkpointBytes,
            long fillMillis,
            long checkpointMillis,
            int movedVnodes,
            HandoverResult result,
            long copiedBytes,
            long exportMillis,
            long networkBytes,
            LatencySummary steady,
            LatencySummary during,
            LatencySummary after,
            LatencySummary movedDuring,
            CheckpointCost checkpointAfter,
            int targetOpens,
            Optional<RocksDbOpenSteps> targetOpenSteps) {}

    /**
     * The first checkpoint after the handover: how long it took and what it uploaded (Flink's
     * checkpointed size, the incremental part). The moved vnodes' files that an earlier checkpoint
     * holds need not be uploaded again.
     */
    public record CheckpointCost(long millis, long uploadedBytes) {}

    /**
     * Flink moving the same state: stop with a native savepoint, restart at another parallelism.
     */
    public record FlinkRescale(
            long sizeBytes,
            long checkpointBytes,
            long fillMillis,
            long savepointMillis,
            long restoreMillis,
            long downtimeMillis) {}

    /** Prints one block per size. */
    public void print(PrintStream out) {
        out.println();
        out.println("== Handover time vs moved state ==");
        for (RhinoHandover h : rhino) {
            HandoverResult r = h.result();
            // across TaskManagers the export runs inside the origin's phase, not measured apart
            String export =
                    h.networkBytes() >= 0
                            ? ""
                            : String.format(
                                    Locale.ROOT,
                                    ", vnode exports %d ms summed (several run at once),"
                                            + " copying %s",
                                    h.exportMillis(),
                                    bytes(h.copiedBytes()));
            out.printf(
                    Locale.ROOT,
                    "rhino  %-8s moved %d vnodes (%s on disk after the checkpoint%s) in %d ms: %s%n",
                    bytes(h.sizeBytes()),
                    h.movedVnodes(),
                    bytes(h.checkpointBytes()),
                    export,
                    r.totalMillis(),
                    r.phaseDurationsMillis().entrySet().stream()
                            .map(e -> e.getKey() + " " + e.getValue() + " ms")
                            .collect(Collectors.joining(", ")));
            if (h.networkBytes() >= 0) {
                out.printf(
                        Locale.ROOT,
                        "       to another TaskManager holding the replicas: %s sent over the"
                                + " replication protocol%n",
                        bytes(h.networkBytes()));
            }
            out.printf(
                    Locale.ROOT,
                    "       latency of non-moving vnodes: steady %s | during %s | after %s%n",
                    h.steady(),
                    h.during(),
                    h.after());
            out.printf(
                    Locale.ROOT, "       latency of moved vnodes' records: %s%n", h.movedDuring());
            out.printf(
                    Locale.ROOT,
                    "       first checkpoint after the handover: %d ms, %s uploaded%n",
                    h.checkpointAfter().millis(),
                    bytes(h.checkpointAfter().uploadedBytes()));
            h.targetOpenSteps()
                    .ifPresent(
                            steps ->
                                    out.printf(
                                            Locale.ROOT,
                                            "       RocksDB's opens at the target, median of %d:"
                                                    + " %.1f ms (MANIFEST recovered %.1f, identity"
                                                    + " %.1f, new MANIFEST and OPTIONS synced"
                                                    + " %.1f)%n",
                                            h.targetOpens(),
                                            steps.totalMillis(),
                                            steps.recoverMillis(),
                                            steps.identityMillis(),
                                            steps.newManifestMillis()));
        }
        for (FlinkRescale f : flink) {
            out.printf(
                    Locale.ROOT,
                    "flink  %-8s stop-with-savepoint %d ms + restore at p=3 %d ms = %d ms without"
                            + " processing%n",
                    bytes(f.sizeBytes()),
                    f.savepointMillis(),
                    f.restoreMillis(),
                    f.downtimeMillis());
        }
    }

    /**
     * Writes one row per measurement: {@code sut,size_bytes,checkpoint_bytes,total_ms} then the
     * phases of each system (empty where they do not apply) and the probe latencies.
     */
    public void writeCsv(Path out) throws IOException {
        Path parent = out.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        List<HandoverPhase> phases =
                List.of(
                        HandoverPhase.MARKERS_PROPAGATED,
                        HandoverPhase.ORIGIN_ALIGNED,
                        HandoverPhase.STATE_SHIPPED,
                        HandoverPhase.TARGET_INSTALLED,
                        HandoverPhase.COMPLETED);
        try (PrintWriter writer =
                new PrintWriter(Files.newBufferedWriter(out, StandardCharsets.UTF_8))) {
            writer.println(
                    "sut,size_bytes,checkpoint_bytes,total_ms,"
                            + phases.stream()
                                    .map(p -> p.name().toLowerCase(Locale.ROOT) + "_ms")
                                    .collect(Collectors.joining(","))
                            + ",copied_bytes,export_ms,network_bytes,savepoint_ms,restore_ms,"
                            + "steady_p99_ms,during_p99_ms,during_max_ms,after_p99_ms,"
                            + "moved_max_ms,checkpoint_after_ms,checkpoint_after_uploaded_bytes,"
                            + "target_opens,rocksdb_open_ms,rocksdb_open_recover_ms,"
                            + "rocksdb_open_identity_ms,rocksdb_open_new_manifest_ms");
            for (RhinoHandover h : rhino) {
                writer.println(
                        String.join(
                                ",",
                                "rhino",
                                String.valueOf(h.sizeBytes()),
                                String.valueOf(h.checkpointBytes()),
                                String.valueOf(h.result().totalMillis()),
                                phases.stream()
                                        .map(
                                                p ->
                                                        String.valueOf(
                                                                h.result()
                                                                        .phaseDurationsMillis()
                                                                        .getOrDefault(p, 0L)))
                                        .collect(Collectors.joining(",")),
                                String.valueOf(h.copiedBytes()),
                                String.valueOf(h.exportMillis()),
                                h.networkBytes() < 0 ? "" : String.valueOf(h.networkBytes()),
                                "",
                                "",
                                String.valueOf(h.steady().p99()),
                                String.valueOf(h.during().p99()),
                                String.valueOf(h.during().max()),
                                String.valueOf(h.after().p99()),
                                String.valueOf(h.movedDuring().max()),
                                String.valueOf(h.checkpointAfter().millis()),
                                String.valueOf(h.checkpointAfter().uploadedBytes()),
                                String.valueOf(h.targetOpens()),
                                h.targetOpenSteps()
                                        .map(
                                                steps ->
                                                        Stream.of(
                                                                        steps.totalMillis(),
                                                                        steps.recoverMillis(),
                                                                        steps.identityMillis(),
                                                                        steps.newManifestMillis())
                                                                .map(HandoverReport::millis)
                                                                .collect(Collectors.joining(",")))
                                        .orElse(",,,")));
            }
            for (FlinkRescale f : flink) {
                writer.println(
                        String.join(
                                ",",
                                "flink-savepoint-rescale",
                                String.valueOf(f.sizeBytes()),
                                String.valueOf(f.checkpointBytes()),
                                String.valueOf(f.downtimeMillis()),
                                ",,,,",
                                ",,",
                                String.valueOf(f.savepointMillis()),
                                String.valueOf(f.restoreMillis()),
                                ",,,,,,,,,,,"));
            }
        }
    }

    private static String millis(double millis) {
        return String.format(Locale.ROOT, "%.1f", millis);
    }

    /** A byte count for people: 1.5 GB, 200 MB, 12 KB. */
    public static String bytes(long bytes) {
        if (bytes >= 1L << 30) {
            return String.format(Locale.ROOT, "%.2f GB", bytes / (double) (1L << 30));
        }
        if (bytes >= 1L << 20) {
            return String.format(Locale.ROOT, "%.0f MB", bytes / (double) (1L << 20));
        }
        return String.format(Locale.ROOT, "%d KB", bytes >> 10);
    }
}
