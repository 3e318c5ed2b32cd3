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

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.rhino.benchmarks.harness.LatencyStats;
import io.rhino.flink.BedCluster;
import io.rhino.flink.cluster.LinkCounters;
import io.rhino.flink.cluster.LinkShape;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.MemorySize;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The paper's failover comparison (Table 5.1, Figure 5.4) on the network bed: for each state size
 * and system ({@link BedSystem}), a bed of its own (JobManager, three TaskManagers and HDFS each on
 * a host with a shaped link), NBQ8 filled to the size, one TaskManager killed ({@link
 * BedFailoverRun}). Prints the phases, writes {@code bed-failover-<size>.csv} (one row per system),
 * {@code bed-failover-<size>-latency.csv} (per second around the kill) and {@code
 * bed-failover-<size>.png} under {@code rhino.bed.out} (default {@code target/bed-failover}).
 *
 * <p>A benchmark, not a test of speed: it runs with {@code -Pbed-failover} (see docs/benchmarks.md)
 * on an otherwise idle machine; a system that does not recover and catch up fails its run, and
 * Rhino's report of where each vnode's state came from must cover every vnode. Properties: {@code
 * rhino.bed.state-sizes} (default {@code 1g}), {@code rhino.bed.systems} (default the paper's five;
 * {@code rhino-local-3-copies} too), {@code rhino.bed.events-per-second} (10000), {@code
 * rhino.bed.checkpoint-seconds} (10), {@code rhino.netbed.rate} and {@code rhino.netbed.delay} (the
 * links, default 1 Gbit/s), {@code rhino.bed.rhino-options} ({@code rhino.key=value,...} for the
 * Rhino systems' jobs).
 */
class BedFailoverScenarioITCase {

    private static final Logger LOG = LoggerFactory.getLogger(BedFailoverScenarioITCase.class);

    @Test
    @Timeout(value = 12, unit = TimeUnit.HOURS)
    void everySystemRecoversFromAKilledTaskManager() throws Exception {
        assumeTrue(
                Boolean.getBoolean("rhino.bed.failover"),
                "the failover benchmark on the network bed runs with -Pbed-failover");
        BedCluster.assumeAvailable();
        Path out = Path.of(System.getProperty("rhino.bed.out", "target/bed-failover"));
        Files.createDirectories(out);
        List<BedSystem> systems =
                BedSystem.fromProperty("flink,flink-local,rhino-dfs,rhino,rhino-local");
        for (String size : System.getProperty("rhino.bed.state-sizes", "1g").split(",")) {
            long bytes = MemorySize.parse(size.trim()).getBytes();
            BedNbq8.Settings settings = BedNbq8.Settings.fromSystemProperties(bytes);
            List<BedFailoverRun.Result> results = new ArrayList<>();
            for (BedSystem system : systems) {
                results.add(new BedFailoverRun(system, settings).run());
                write(out, size.trim(), results);
            }
            LOG.info(
                    "Failover on the network bed ({}), {} of state:\n{}",
                    LinkShape.fromSystemProperties(),
                    size,
                    String.join("\n", table(results)));
            // a system that does not recover and catch up fails its run; what Rhino reports of
            // its restore must account for every vnode
            for (BedFailoverRun.Result result : results) {
                if (result.system().rhino()) {
                    assertThat(result.restoreSources())
                            .as(result.system().wireName() + ": where each vnode came from")
                            .doesNotContainKey("none");
                    assertThat(result.restoreSources().values().stream().mapToInt(n -> n).sum())
                            .isEqualTo(settings.vnodes());
                }
            }
        }
    }

    private static void write(Path out, String size, List<BedFailoverRun.Result> results)
            throws Exception {
        Files.write(out.resolve("bed-failover-" + size + ".csv"), table(results));
        BedFigures.write(
                out,
                "bed-failover-" + size,
                "NBQ8 failover on the network bed, " + size + " of state",
                "kill",
                results.stream()
                        .map(
                                r ->
                                        new BedFigures.Series(
                                                r.system().wireName(), r.latency(), r.killSecond()))
                        .toList());
    }

    /** The CSV: a header and one row per system. */
    static List<String> table(List<BedFailoverRun.Result> results) {
        List<String> lines = new ArrayList<>();
        lines.add(
                "system,checkpointed_bytes,detection_ms,scheduling_ms,restore_ms,first_result_ms,"
                        + "catch_up_ms,total_ms,flink_max_download_ms,flink_max_restore_ms,"
                        + "flink_restored_remote_bytes,flink_restored_local_disk_bytes,"
                        + "storage_sent_bytes,taskmanagers_received_bytes,"
                        + "restore_sources,max_latency_after_kill_ms,"
                        + "restored_checkpoint_age_ms,restored_checkpoint_duration_ms,"
                        + "restored_checkpoint_max_async_ms,restored_checkpoint_max_alignment_ms");
        for (BedFailoverRun.Result result : results) {
            List<String> cells = new ArrayList<>();
            cells.add(result.system().wireName());
            cells.add(String.valueOf(result.checkpointedBytes()));
            cells.addAll(
                    BedFigures.millisCells(
                            result.phases(),
                            List.of(
                                    BedFailoverRun.DETECTION,
                                    BedFailoverRun.SCHEDULING,
                                    BedFailoverRun.RESTORE,
                                    BedFailoverRun.FIRST_RESULT,
                                    BedFailoverRun.CATCH_UP,
                                    BedFailoverRun.TOTAL)));
            for (String attribute :
                    List.of(
                            "maxDownloadStateDurationMs",
                            "maxRestoreStateDurationMs",
                            "sumRestoredStateSizeBytes.REMOTE",
                            "sumRestoredStateSizeBytes.LOCAL_DISK")) {
                Double value = result.initialization().get(attribute);
                cells.add(value == null ? "" : String.valueOf(value.longValue()));
            }
            LinkCounters storage = result.crossed().get(BedCluster.STORAGE);
            cells.add(storage == null ? "" : String.valueOf(storage.sent()));
            cells.add(String.valueOf(BedFigures.receivedByTaskManagers(result.crossed())));
            cells.add(
                    result.restoreSources().entrySet().stream()
                            .map(e -> e.getKey() + ":" + e.getValue())
                            .reduce((a, b) -> a + " " + b)
                            .orElse(""));
            cells.add(
                    String.valueOf(
                            result.latency()
                                    .phases()
                                    .getOrDefault("failure", LatencyStats.EMPTY)
                                    .maxMs()));
            BedJob.CheckpointTimings restored = result.restoredCheckpoint();
            cells.add(String.valueOf(result.restoredCheckpointAgeMillis()));
            cells.add(String.valueOf(restored.durationMillis()));
            cells.add(String.valueOf(restored.maxAsyncMillis()));
            cells.add(String.valueOf(restored.maxAlignmentMillis()));
            lines.add(String.join(",", cells));
        }
        return lines;
    }
}
