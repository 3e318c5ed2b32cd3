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

import com.fasterxml.jackson.databind.JsonNode;
import io.rhino.benchmarks.harness.LatencyRecorder;
import io.rhino.benchmarks.harness.LatencyReport;
import io.rhino.benchmarks.nexmark.queries.Nbq8;
import io.rhino.flink.cluster.LinkCounters;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One system's vertical scaling on the network bed (the paper's Figure 5.5): NBQ8's join runs on
 * two of the three TaskManagers, filled to the asked size, then grows to the third. Rhino deploys
 * three subtasks of which two own vnodes and hands a third of the vnodes over live ({@code POST
 * .../rescale {"active-subtasks": 3}}); Flink stops the job with a native savepoint to HDFS and
 * submits it again at parallelism 3 from it. Measured: the reconfiguration (the handover's request
 * until Rhino reports it completed; Flink's stop until the savepoint is written, then the restart
 * until every task runs), the first result and the catch-up, bytes on each link.
 */
final class BedRescaleRun {

    private static final Logger LOG = LoggerFactory.getLogger(BedRescaleRun.class);

    static final String HANDOVER = "handover";
    static final String SAVEPOINT = "savepoint";
    static final String RESTART = "restart";
    static final String CATCH_UP = "catch-up";
    static final String TOTAL = "request until caught up";

    private static final Duration TIMEOUT = Duration.ofMinutes(20);

    /**
     * One run's figures.
     *
     * @param checkpointedBytes the full state size of the last checkpoint before the rescale
     * @param phases the system's phases in order, then the total
     * @param crossed bytes on each host's link from the request until caught up
     * @param requestSecond the second of the latency series in which the rescale was asked for
     */
    record Result(
            BedSystem system,
            long checkpointedBytes,
            Map<String, Duration> phases,
            Map<String, LinkCounters> crossed,
            LatencyReport latency,
            long requestSecond) {}

    private final BedSystem system;
    private final BedNbq8.Settings settings;
    private final Path directory;

    BedRescaleRun(BedSystem system, BedNbq8.Settings settings, Path directory) {
        this.system = system;
        this.settings = settings;
        this.directory = directory;
    }

    Result run() throws Exception {
        try (BedNbq8 bed = BedNbq8.start(system, settings, directory)) {
            return measure(bed);
        }
    }

    private Result measure(BedNbq8 bed) throws Exception {
        int to = settings.parallelism();
        int from = to - 1;
        LatencyRecorder latency = bed.latency();
        BedJob job =
                system.rhino()
                        ? bed.submit(to, from, new Configuration())
                        : bed.submit(from, from, new Configuration());
        long checkpointed = bed.awaitFilledAndSteady(job);
        Map<String, LinkCounters> before = bed.hosts().bed().counters();
        long requested = System.currentTimeMillis();
        latency.markPhase("rescale", requested);
        LOG.info(
                "{}: rescaling the join from {} to {} subtasks, {} of state checkpointed",
                system.wireName(),
                from,
                to,
                checkpointed);
        Map<String, Duration> phases = new LinkedHashMap<>();
        BedJob current = job;
        if (system.rhino()) {
            long completed = rhinoRescale(bed, job, to);
            phases.put(HANDOVER, Duration.ofMillis(completed - requested));
        } else {
            String savepoint = job.stopWithSavepoint(bed.storagePath("savepoints"), TIMEOUT);
            long stopped = System.currentTimeMillis();
            Configuration restore = new Configuration();
            restore.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
            current = bed.submit(to, to, restore);
            current.awaitAllTasksRunning(TIMEOUT);
            long running = System.currentTimeMillis();
            phases.put(SAVEPOINT, Duration.ofMillis(stopped - requested));
            phases.put(RESTART, Duration.ofMillis(running - stopped));
        }
        long reconfigured = System.currentTimeMillis();
        long caughtUp = bed.awaitCaughtUp("the rescale", TIMEOUT);
        phases.put(CATCH_UP, Duration.ofMillis(Math.max(0, caughtUp - reconfigured)));
        phases.put(TOTAL, Duration.ofMillis(caughtUp - requested));
        Map<String, LinkCounters> crossed = bed.crossedSince(before);
        LOG.info("{}: rescaled: {}; bytes across the links {}", system.wireName(), phases, crossed);
        Thread.sleep(settings.after().toMillis());
        latency.tick();
        current.cancel(Duration.ofMinutes(2));
        return new Result(
                system,
                checkpointed,
                phases,
                crossed,
                latency.report(),
                (requested - latency.startMillis()) / 1000);
    }

    /** Asks Rhino for {@code active} active subtasks; returns when it reports completion. */
    private long rhinoRescale(BedNbq8 bed, BedJob job, int active) throws Exception {
        JsonHttp rhino = bed.rhinoRest();
        String requestId = "bed-rescale-" + UUID.randomUUID();
        rhino.send(
                "POST",
                "/rhino/v1/jobs/" + job.id() + "/operators/" + Nbq8.JOIN_OPERATOR + "/rescale",
                "{\"active-subtasks\": " + active + ", \"request-id\": \"" + requestId + "\"}");
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            JsonNode status =
                    rhino.get("/rhino/v1/jobs/" + job.id() + "/reconfigurations/" + requestId);
            String state = status.at("/status/id").asText();
            if (state.equals("COMPLETED")) {
                long completed = System.currentTimeMillis();
                LOG.info("{}: Rhino's rescale completed: {}", system.wireName(), status);
                int owning =
                        bed.rhinoOperator(job.id(), Nbq8.JOIN_OPERATOR)
                                .path("active-subtasks")
                                .asInt();
                if (owning != active) {
                    throw new IllegalStateException(
                            "Rhino's rescale completed with "
                                    + owning
                                    + " of "
                                    + active
                                    + " subtasks owning vnodes: "
                                    + status);
                }
                return completed;
            }
            if (!state.equals("IN_PROGRESS")) {
                throw new IllegalStateException("Rhino's rescale ended " + state + ": " + status);
            }
            Thread.sleep(20);
        }
        throw new IllegalStateException("Rhino's rescale did not complete within " + TIMEOUT);
    }
}
