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
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.rhino.benchmarks.harness.LatencyRecorder;
import io.rhino.benchmarks.harness.LatencyReport;
import io.rhino.benchmarks.nexmark.queries.Nbq8;
import io.rhino.flink.cluster.LinkCounters;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One system's reconfiguration on the network bed, filled to the asked size.
 *
 * <p>Vertical scaling (the paper's Figure 5.5): NBQ8's join runs on two of the three TaskManagers,
 * then grows to the third. Rhino deploys three subtasks of which two own vnodes and hands a third
 * of the vnodes over live ({@code POST .../rescale {"active-subtasks": 3}}); Flink stops the job
 * with a native savepoint to HDFS and submits it again at parallelism 3 from it.
 *
 * <p>Load balancing (Figure 5.6): Rhino's join runs on all three TaskManagers and every subtask
 * hands a fifth of its vnodes to the subtask on the TaskManager that holds their replica ({@link
 * ReplicaHolderMoves}). Flink has no load balancing; as in the paper, its vertical scaling is the
 * comparison.
 *
 * <p>Measured: the reconfiguration (the handover's request until Rhino reports it completed;
 * Flink's stop until the savepoint is written, then the restart until every task runs), the first
 * result and the catch-up, bytes on each link.
 */
final class BedRescaleRun {

    private static final Logger LOG = LoggerFactory.getLogger(BedRescaleRun.class);

    static final String HANDOVER = "handover";
    static final String SAVEPOINT = "savepoint";
    static final String RESTART = "restart";
    static final String CATCH_UP = "catch-up";
    static final String TOTAL = "request until caught up";

    private static final Duration TIMEOUT = Duration.ofMinutes(20);
    // longer than the bed's metrics.fetcher.update-interval
    private static final Duration METRICS_FETCHED_WITHIN = Duration.ofMillis(1_500);

    /** What is asked of the job. */
    enum Reconfiguration {
        VERTICAL_SCALING,
        LOAD_BALANCING;

        /** The name in file names and properties, e.g. {@code load-balancing}. */
        String wireName() {
            return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
        }

        /** The reconfiguration named {@code name} ({@link #wireName}). */
        static Reconfiguration named(String name) {
            return java.util.Arrays.stream(values())
                    .filter(r -> r.wireName().equals(name.trim()))
                    .findFirst()
                    .orElseThrow(
                            () ->
                                    new IllegalArgumentException(
                                            "no reconfiguration '"
                                                    + name
                                                    + "'; they are vertical-scaling and"
                                                    + " load-balancing"));
        }
    }

    /**
     * One run's figures.
     *
     * @param checkpointedBytes the full state size of the last checkpoint before the rescale
     * @param phases the system's phases in order, then the total
     * @param crossed bytes on each host's link from the request until caught up
     * @param movedStateBytes the state of the vnodes Rhino moved, as it last reported them; -1
     *     where not counted
     * @param requestSecond the second of the latency series in which the rescale was asked for
     * @param rhinoBytes what Rhino's counters say its TaskManagers sent in the window; null for
     *     Flink
     */
    record Result(
            BedSystem system,
            long checkpointedBytes,
            long movedStateBytes,
            Map<String, Duration> phases,
            Map<String, LinkCounters> crossed,
            LatencyReport latency,
            long requestSecond,
            RhinoBytes rhinoBytes) {}

    /**
     * The bytes Rhino's gates counted from the request until caught up, to tell the handover's from
     * the checkpoints' on the links: what origins sent as handovers ({@code
     * rhinoHandoverBytesSent}: files a target lacked, none for a target holding the replica) and
     * what the checkpoints replicated down their chains ({@code rhinoReplicatedBytes}, once per
     * file, as the chain's first member received it; the next members receive it again).
     */
    record RhinoBytes(long handoverSent, long replicated) {

        static final String HANDOVER_SENT = "rhinoHandoverBytesSent";
        static final String REPLICATED = "rhinoReplicatedBytes";

        static RhinoBytes read(BedJob job) throws Exception {
            String task = job.taskName(Nbq8.JOIN_OPERATOR);
            return new RhinoBytes(
                    job.operatorMetricSum(task, HANDOVER_SENT),
                    job.operatorMetricSum(task, REPLICATED));
        }

        RhinoBytes minus(RhinoBytes before) {
            return new RhinoBytes(
                    handoverSent - before.handoverSent, replicated - before.replicated);
        }
    }

    private final BedSystem system;
    private final Reconfiguration reconfiguration;
    private final BedNbq8.Settings settings;

    BedRescaleRun(BedSystem system, Reconfiguration reconfiguration, BedNbq8.Settings settings) {
        this.system = system;
        this.reconfiguration = reconfiguration;
        this.settings = settings;
    }

    Result run() throws Exception {
        return BedNbq8.runOnce(system, settings, this::measure);
    }

    private Result measure(BedNbq8 bed) throws Exception {
        int to = settings.parallelism();
        int from = to - 1;
        LatencyRecorder latency = bed.latency();
        boolean balancing = system.rhino() && reconfiguration == Reconfiguration.LOAD_BALANCING;
        BedJob job =
                system.rhino()
                        ? bed.submit(to, balancing ? to : from, new Configuration())
                        : bed.submit(from, from, new Configuration());
        long checkpointed = bed.awaitFilledAndSteady(job);
        RhinoBytes rhinoBefore = system.rhino() ? RhinoBytes.read(job) : null;
        Map<String, LinkCounters> before = bed.hosts().bed().counters();
        long requested = System.currentTimeMillis();
        latency.markPhase("rescale", requested);
        LOG.info(
                "{}: {} of the join ({} to {} subtasks for a rescale), {} of state checkpointed",
                system.wireName(),
                reconfiguration.wireName(),
                from,
                to,
                checkpointed);
        Map<String, Duration> phases = new LinkedHashMap<>();
        BedJob current = job;
        long moved = -1;
        if (balancing) {
            List<ReplicaHolderMoves.Move> moves =
                    ReplicaHolderMoves.pick(
                            bed.rhinoOperator(job.id(), Nbq8.JOIN_OPERATOR),
                            Math.max(1, settings.vnodes() / settings.parallelism() / 5));
            moved = moves.stream().mapToLong(ReplicaHolderMoves.Move::stateBytes).sum();
            long completed = rhinoBalance(bed, job, moves);
            phases.put(HANDOVER, Duration.ofMillis(completed - requested));
        } else if (system.rhino()) {
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
        // Flink's REST serves the metrics it fetched last, at most a second old on the bed
        Thread.sleep(METRICS_FETCHED_WITHIN.toMillis());
        RhinoBytes rhinoBytes = system.rhino() ? RhinoBytes.read(job).minus(rhinoBefore) : null;
        if (rhinoBytes != null) {
            LOG.info("{}: Rhino's counters in the window: {}", system.wireName(), rhinoBytes);
        }
        Thread.sleep(Math.max(0, settings.after().minus(METRICS_FETCHED_WITHIN).toMillis()));
        latency.tick();
        current.cancel(Duration.ofMinutes(2));
        return new Result(
                system,
                checkpointed,
                moved,
                phases,
                crossed,
                latency.report(),
                (requested - latency.startMillis()) / 1000,
                rhinoBytes);
    }

    /** Asks Rhino for {@code active} active subtasks; returns when it reports completion. */
    private long rhinoRescale(BedNbq8 bed, BedJob job, int active) throws Exception {
        String requestId = "bed-rescale-" + UUID.randomUUID();
        bed.rhinoRest()
                .send(
                        "POST",
                        operatorPath(job) + "/rescale",
                        JsonNodeFactory.instance
                                .objectNode()
                                .put("active-subtasks", active)
                                .put("request-id", requestId)
                                .toString());
        long completed = awaitCompleted(bed, job, requestId);
        int owning =
                bed.rhinoOperator(job.id(), Nbq8.JOIN_OPERATOR).path("active-subtasks").asInt();
        if (owning != active) {
            throw new IllegalStateException(
                    "Rhino's rescale completed with "
                            + owning
                            + " of "
                            + active
                            + " subtasks owning vnodes");
        }
        return completed;
    }

    /** Asks Rhino for {@code moves}; returns when it reports completion. */
    private long rhinoBalance(BedNbq8 bed, BedJob job, List<ReplicaHolderMoves.Move> moves)
            throws Exception {
        String requestId = "bed-balance-" + UUID.randomUUID();
        LOG.info("{}: moving {}", system.wireName(), moves);
        bed.rhinoRest()
                .send(
                        "POST",
                        operatorPath(job) + "/handovers",
                        ReplicaHolderMoves.requestBody(requestId, moves));
        long completed = awaitCompleted(bed, job, requestId);
        Map<Integer, Integer> owners = new java.util.HashMap<>();
        for (JsonNode vnode : bed.rhinoOperator(job.id(), Nbq8.JOIN_OPERATOR).path("vnodes")) {
            owners.put(vnode.path("id").asInt(), vnode.path("owner").asInt());
        }
        for (ReplicaHolderMoves.Move move : moves) {
            Integer owner = owners.get(move.vnode());
            if (owner == null || owner != move.to()) {
                throw new IllegalStateException(
                        "Rhino's handover completed with vnode "
                                + move.vnode()
                                + " on subtask "
                                + owner
                                + ", not "
                                + move.to());
            }
        }
        return completed;
    }

    private static String operatorPath(BedJob job) {
        return "/rhino/v1/jobs/" + job.id() + "/operators/" + Nbq8.JOIN_OPERATOR;
    }

    /** Polls the reconfiguration {@code requestId} until it completes; returns when it did. */
    private long awaitCompleted(BedNbq8 bed, BedJob job, String requestId) throws Exception {
        JsonHttp rhino = bed.rhinoRest();
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            JsonNode status =
                    rhino.get("/rhino/v1/jobs/" + job.id() + "/reconfigurations/" + requestId);
            String state = status.at("/status/id").asText();
            if (state.equals("COMPLETED")) {
                LOG.info("{}: Rhino's reconfiguration completed: {}", system.wireName(), status);
                return System.currentTimeMillis();
            }
            if (!state.equals("IN_PROGRESS")) {
                throw new IllegalStateException(
                        "Rhino's reconfiguration ended " + state + ": " + status);
            }
            Thread.sleep(20);
        }
        throw new IllegalStateException(
                "Rhino's reconfiguration did not complete within " + TIMEOUT);
    }
}
