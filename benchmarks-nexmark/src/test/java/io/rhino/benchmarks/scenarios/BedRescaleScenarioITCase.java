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
 * The paper's vertical scaling (Figure 5.5) and load balancing (Figure 5.6) on the network bed: for
 * each state size and system, a bed of its own and NBQ8's join grown from two to three
 * TaskManagers, or (Rhino, {@code -Drhino.bed.reconfiguration=load-balancing}) a fifth of each
 * subtask's vnodes handed to where their replicas are ({@link BedRescaleRun}). Writes {@code
 * bed-<reconfiguration>-<size>.csv}, {@code ...-latency.csv} and {@code .png} under {@code
 * rhino.bed.out} (default {@code target/bed-rescale}); the vertical scaling's files are named
 * {@code bed-rescale-<size>}.
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
        BedRescaleRun.Reconfiguration reconfiguration =
                BedRescaleRun.Reconfiguration.named(
                        System.getProperty("rhino.bed.reconfiguration", "vertical-scaling"));
        boolean balancing = reconfiguration == BedRescaleRun.Reconfiguration.LOAD_BALANCING;
        for (String size : System.getProperty("rhino.bed.state-sizes", "1g").split(",")) {
            BedNbq8.Settings settings =
                    BedNbq8.Settings.fromSystemProperties(MemorySize.parse(size.trim()).getBytes());
            if (balancing) {
                // five vnodes a subtask: one of each moves, a fifth of the state
                settings = settings.withVnodes(5 * settings.parallelism());
            }
            String name = (balancing ? "bed-load-balancing-" : "bed-rescale-") + size.trim();
            String title =
                    balancing
                            ? "NBQ8 load balancing (Rhino) against 2 to 3 TaskManagers (Flink) on"
                                    + " the network bed, "
                            : "NBQ8 from 2 to 3 TaskManagers on the network bed, ";
            List<BedRescaleRun.Result> results = new ArrayList<>();
            for (BedSystem system : systems) {
                results.add(new BedRescaleRun(system, reconfiguration, settings).run());
                Files.write(out.resolve(name + ".csv"), table(results));
                BedFigures.write(
                        out,
                        name,
                        title + size + " of state",
                        balancing ? "reconfiguration" : "rescale",
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
                    "{} on the network bed ({}), {} of state:\n{}",
                    reconfiguration.wireName(),
                    LinkShape.fromSystemProperties(),
                    size,
                    String.join("\n", table(results)));
        }
    }

    /** The CSV: a header and one row per system. */
    static List<String> table(List<BedRescaleRun.Result> results) {
        List<String> lines = new ArrayList<>();
        lines.add(
                "system,checkpointed_bytes,moved_state_bytes,handover_ms,savepoint_ms,restart_ms,catch_up_ms,"
                        + "total_ms,storage_sent_bytes,storage_received_bytes,"
                        + "taskmanagers_received_bytes,max_latency_after_request_ms,"
                        + "rhino_handover_sent_bytes,rhino_replicated_bytes");
        for (BedRescaleRun.Result result : results) {
            List<String> cells = new ArrayList<>();
            cells.add(result.system().wireName());
            cells.add(String.valueOf(result.checkpointedBytes()));
            cells.add(result.movedStateBytes() < 0 ? "" : String.valueOf(result.movedStateBytes()));
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
            BedRescaleRun.RhinoBytes rhino = result.rhinoBytes();
            cells.add(rhino == null ? "" : String.valueOf(rhino.handoverSent()));
            cells.add(rhino == null ? "" : String.valueOf(rhino.replicated()));
            lines.add(String.join(",", cells));
        }
        return lines;
    }
}
