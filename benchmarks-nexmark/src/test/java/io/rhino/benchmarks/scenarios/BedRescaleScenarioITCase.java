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
 * The paper's vertical scaling (Figure 5.5) on the network bed: for each state size and system, a
 * bed of its own and NBQ8's join grown from two to three TaskManagers ({@link BedRescaleRun}).
 * Writes {@code bed-rescale-<size>.csv}, {@code bed-rescale-<size>-latency.csv} and {@code
 * bed-rescale-<size>.png} under {@code rhino.bed.out} (default {@code target/bed-rescale}).
 *
 * <p>A benchmark: it runs with {@code -Pbed-rescale} on an otherwise idle machine; a system that
 * does not rescale (Rhino: to the asked active subtasks) and catch up fails its run. The properties
 * of {@link BedFailoverScenarioITCase} apply; {@code rhino.bed.systems} defaults to {@code
 * flink,rhino-local}.
 */
class BedRescaleScenarioITCase {

    private static final Logger LOG = LoggerFactory.getLogger(BedRescaleScenarioITCase.class);

    @Test
    @Timeout(value = 12, unit = TimeUnit.HOURS)
    void everySystemGrowsOntoAThirdTaskManager() throws Exception {
        assumeTrue(
                Boolean.getBoolean("rhino.bed.rescale"),
                "the rescale benchmark on the network bed runs with -Pbed-rescale");
        BedCluster.assumeAvailable();
        Path out = Path.of(System.getProperty("rhino.bed.out", "target/bed-rescale"));
        Files.createDirectories(out);
        List<BedSystem> systems = BedSystem.fromProperty("flink,rhino-local");
        for (String size : System.getProperty("rhino.bed.state-sizes", "1g").split(",")) {
            BedNbq8.Settings settings =
                    BedNbq8.Settings.fromSystemProperties(MemorySize.parse(size.trim()).getBytes());
            List<BedRescaleRun.Result> results = new ArrayList<>();
            for (BedSystem system : systems) {
                Path runDirectory = BedNbq8.shortDirectory();
                results.add(new BedRescaleRun(system, settings, runDirectory).run());
                org.apache.flink.util.FileUtils.deleteDirectory(runDirectory.toFile());
                Files.write(out.resolve("bed-rescale-" + size.trim() + ".csv"), table(results));
                BedFigures.write(
                        out,
                        "bed-rescale-" + size.trim(),
                        "NBQ8 from 2 to 3 TaskManagers on the network bed, " + size + " of state",
                        "rescale",
                        results.stream()
                                .map(
                                        r ->
                                                new BedFigures.Series(
                                                        r.system().wireName(),
                                                        r.latency(),
                                                        r.requestSecond()))
                                .toList());
            }
            LOG.info(
                    "Vertical scaling on the network bed ({}), {} of state:\n{}",
                    LinkShape.fromSystemProperties(),
                    size,
                    String.join("\n", table(results)));
        }
    }

    /** The CSV: a header and one row per system. */
    static List<String> table(List<BedRescaleRun.Result> results) {
        List<String> lines = new ArrayList<>();
        lines.add(
                "system,checkpointed_bytes,handover_ms,savepoint_ms,restart_ms,catch_up_ms,"
                        + "total_ms,storage_sent_bytes,storage_received_bytes,"
                        + "taskmanagers_received_bytes,max_latency_after_request_ms");
        for (BedRescaleRun.Result result : results) {
            List<String> cells = new ArrayList<>();
            cells.add(result.system().wireName());
            cells.add(String.valueOf(result.checkpointedBytes()));
            cells.addAll(
                    BedFigures.millisCells(
                            result.phases(),
                            List.of(
                                    BedRescaleRun.HANDOVER,
                                    BedRescaleRun.SAVEPOINT,
                                    BedRescaleRun.RESTART,
                                    BedRescaleRun.CATCH_UP,
                                    BedRescaleRun.TOTAL)));
            LinkCounters storage = result.crossed().get(BedCluster.STORAGE);
            cells.add(storage == null ? "" : String.valueOf(storage.sent()));
            cells.add(storage == null ? "" : String.valueOf(storage.received()));
            cells.add(String.valueOf(BedFigures.receivedByTaskManagers(result.crossed())));
            cells.add(
                    String.valueOf(
                            result.latency()
                                    .phases()
                                    .getOrDefault("rescale", LatencyStats.EMPTY)
                                    .maxMs()));
            lines.add(String.join(",", cells));
        }
        return lines;
    }
}
