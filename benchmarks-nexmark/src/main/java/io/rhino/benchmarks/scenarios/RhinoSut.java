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

import io.rhino.benchmarks.harness.PhaseTimings;
import io.rhino.benchmarks.harness.Reconfiguration;
import io.rhino.benchmarks.harness.ScenarioContext;
import io.rhino.benchmarks.nexmark.queries.Keying;
import io.rhino.benchmarks.nexmark.queries.Variant;
import io.rhino.core.handover.HandoverPhase;
import io.rhino.core.handover.VnodeMove;
import io.rhino.flink.config.RhinoOptions;
import io.rhino.flink.coordination.RhinoHandovers;
import io.rhino.flink.replication.TaskManagerReplication;
import io.rhino.flink.state.RhinoStateBackendFactory;
import io.rhino.handover.HandoverManager;
import io.rhino.handover.HandoverResult;
import io.rhino.replication.ReplicationService;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.IntStream;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rhino: the query's Rhino variant on the Rhino state backend with incremental checkpoints. Its
 * keyed operators are deployed at the workload's maximum parallelism with the workload's active
 * parallelism; a reconfiguration is a handover of vnodes through each keyed operator's handover
 * manager ({@link RhinoHandovers}), chosen by {@link VnodeMovePolicy}, while the job keeps running.
 *
 * <p>Reconfigurations: {@link Reconfiguration#SCALE_OUT} (parameter {@code parallelism}: the new
 * active parallelism) and {@link Reconfiguration#REBALANCE} (parameters {@code subtasks}: how many
 * subtasks give vnodes away, {@code fraction}: which part of their vnodes, default one half), and
 * {@link Reconfiguration#FAILURE} ({@link TaskManagerFailure}): Flink restarts the job, and each
 * vnode restores from a replica where one is reachable ({@code rhino-replicated}), from the
 * checkpoint storage otherwise.
 */
public class RhinoSut extends NexmarkSut {

    private static final Logger LOG = LoggerFactory.getLogger(RhinoSut.class);
    private static final Duration HANDOVER_TIMEOUT = Duration.ofMinutes(10);

    /** One handover of a reconfiguration, for reports. */
    public record Handover(
            String operator,
            List<VnodeMove> moves,
            Map<Integer, String> taskManagers,
            HandoverResult result) {}

    private final long seed;
    private final boolean localRecovery;
    private final List<Handover> handovers = new ArrayList<>();

    public RhinoSut(ClusterShape shape, long seed) {
        this("rhino", shape, seed, false);
    }

    /**
     * @param localRecovery whether Flink's task-local recovery is on, which covers vnode state: a
     *     subtask restarting on its TaskManager restores its vnodes from local copies
     */
    protected RhinoSut(String name, ClusterShape shape, long seed, boolean localRecovery) {
        super(name, shape);
        this.seed = seed;
        this.localRecovery = localRecovery;
    }

    @Override
    Configuration clusterOptions() {
        Configuration config = new Configuration();
        return localRecovery ? withLocalRecovery(config) : config;
    }

    @Override
    void configureJob(Configuration config, Path checkpointDir) {
        config.set(StateBackendOptions.STATE_BACKEND, RhinoStateBackendFactory.class.getName());
        if (localRecovery) {
            withLocalRecovery(config);
        }
        if (adaptiveScheduler()) {
            try {
                config.set(RhinoOptions.RESCALE_FLINK_REST_ADDRESS, flinkRestAddress(deployment()));
            } catch (Exception e) {
                throw new IllegalStateException("Flink's REST address", e);
            }
            // any free port: the machine may run other clusters
            config.set(RhinoOptions.REST_PORT, 0);
        }
    }

    @Override
    JobGraph jobGraph(
            StreamExecutionEnvironment env,
            NexmarkWorkload workload,
            Deployment deployment,
            String runId) {
        Keying keying =
                new Keying(
                        Variant.RHINO,
                        workload.maxParallelism(),
                        workload.vnodes(),
                        workload.activeParallelism());
        return QueryJobs.build(env, workload, keying, deployment.feed(), runId);
    }

    /** Waits until every keyed operator's handover manager and all its gates are up. */
    @Override
    void onRunning(Deployment deployment, NexmarkWorkload workload)
            throws InterruptedException, TimeoutException {
        for (String operator : QueryJobs.keyedOperators(workload.query())) {
            RhinoHandovers.awaitReady(deployment.jobId(), operator, Duration.ofMinutes(2));
        }
    }

    /** The handovers of the reconfigurations of the current run, in order. */
    public synchronized List<Handover> handovers() {
        return List.copyOf(handovers);
    }

    @Override
    public void start(io.rhino.benchmarks.harness.Workload workload, ScenarioContext context)
            throws Exception {
        synchronized (this) {
            handovers.clear();
        }
        super.start(workload, context);
    }

    @Override
    public PhaseTimings reconfigure(Reconfiguration reconfiguration, ScenarioContext context)
            throws Exception {
        if (reconfiguration.kind().equals(Reconfiguration.FAILURE)) {
            return loseTaskManager(reconfiguration, context);
        }
        if (reconfiguration.kind().equals(RestartRescaleRun.KIND)) {
            return rescaleThroughRest(reconfiguration, context);
        }
        JobID jobId = deployment().jobId();
        Map<String, Duration> timings = new LinkedHashMap<>();
        for (String operator : QueryJobs.keyedOperators(workload().query())) {
            HandoverManager manager = RhinoHandovers.manager(jobId, operator);
            Map<Integer, String> taskManagers =
                    TaskManagerPlacement.taskManagerBySubtask(
                            deployment().cluster().miniCluster(), jobId, operator);
            List<VnodeMove> moves =
                    moves(reconfiguration, manager.routingTable().ownerByVnode(), taskManagers);
            for (VnodeMove move : moves) {
                LOG.info(
                        "{}: vnode {} from subtask {} ({}) to subtask {} ({})",
                        operator,
                        move.vnode(),
                        move.fromSubtask(),
                        taskManagers.get(move.fromSubtask()),
                        move.toSubtask(),
                        taskManagers.get(move.toSubtask()));
            }
            HandoverResult result =
                    manager.handover(moves).get(HANDOVER_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            synchronized (this) {
                handovers.add(new Handover(operator, moves, taskManagers, result));
            }
            if (!result.isCompleted()) {
                throw new IllegalStateException(
                        "The handover of "
                                + operator
                                + " failed in "
                                + result.failedIn().map(Enum::name).orElse("?")
                                + ": "
                                + result.failureCause().orElse("no cause given"));
            }
            LOG.info(
                    "{}: handover of {} vnodes completed in {} ms, phases {}",
                    operator,
                    moves.size(),
                    result.totalMillis(),
                    result.phaseDurationsMillis());
            // REQUESTED and COMPLETED are instants, not steps
            result.phaseDurationsMillis().entrySet().stream()
                    .filter(
                            e ->
                                    e.getKey() != HandoverPhase.REQUESTED
                                            && e.getKey() != HandoverPhase.COMPLETED)
                    .forEach(
                            e ->
                                    timings.merge(
                                            phaseName(e.getKey()),
                                            Duration.ofMillis(e.getValue()),
                                            Duration::plus));
            timings.merge(
                    "handover total", Duration.ofMillis(result.totalMillis()), Duration::plus);
        }
        return new PhaseTimings(timings);
    }

    /**
     * Rhino's one rescale command ({@code POST .../operators/{op}/rescale} with {@code
     * "allow-restart": true}): past the deployed parallelism Rhino asks the adaptive scheduler for
     * it and reports the restart's phases and each vnode's restore source, within it the rescale is
     * a live handover. The harness measures either as it measures Flink's.
     */
    private PhaseTimings rescaleThroughRest(Reconfiguration rescale, ScenarioContext context)
            throws Exception {
        int target = Integer.parseInt(rescale.parameters().get(RestartRescaleRun.PARALLELISM));
        boolean cold =
                Boolean.parseBoolean(
                        rescale.parameters().getOrDefault(RestartRescaleRun.COLD, "true"));
        String operator = QueryJobs.keyedOperators(workload().query()).get(0);
        JobID jobId = deployment().jobId();
        RhinoRescaleRequest request = new RhinoRescaleRequest(jobId, operator, target);
        RestartRescaleRun.Outcome outcome =
                new RestartRescaleRun(name(), deployment(), checkpointDir(), operator)
                        .run(target, cold, context.latency(), request::send);
        addFigures(outcome.figures());
        addFigures(request.figures());
        Map<String, Duration> timings = new LinkedHashMap<>(outcome.timings().durations());
        timings.putAll(request.reportedPhases());
        return new PhaseTimings(timings);
    }

    /**
     * Kills the TaskManager of the first keyed operator's subtask 0. In this one process its
     * replication service would outlive it, so it is closed as the process's death would: its peers
     * fail to reach it, and its replicas are lost with it.
     */
    private PhaseTimings loseTaskManager(Reconfiguration failure, ScenarioContext context)
            throws Exception {
        String operator = QueryJobs.keyedOperators(workload().query()).get(0);
        String lost =
                RhinoHandovers.operators(deployment().jobId())
                        .getOrDefault(operator, Map.of())
                        .get(0);
        return new TaskManagerFailure(name(), deployment(), checkpointDir())
                .killAndAwaitRecovery(
                        failure,
                        operator,
                        context.latency(),
                        () -> {
                            if (lost != null) {
                                TaskManagerReplication.serviceOf(lost)
                                        .ifPresent(ReplicationService::close);
                            }
                        });
    }

    private List<VnodeMove> moves(
            Reconfiguration reconfiguration, int[] owners, Map<Integer, String> taskManagers) {
        Map<String, String> p = reconfiguration.parameters();
        return switch (reconfiguration.kind()) {
            case Reconfiguration.SCALE_OUT -> {
                int active = (int) IntStream.of(owners).distinct().count();
                int target =
                        Integer.parseInt(p.getOrDefault("parallelism", "" + taskManagers.size()));
                List<Integer> newSubtasks =
                        IntStream.range(0, taskManagers.size())
                                .filter(s -> IntStream.of(owners).noneMatch(o -> o == s))
                                .limit(Math.max(0, target - active))
                                .boxed()
                                .toList();
                yield VnodeMovePolicy.scaleOut(owners, newSubtasks, seed);
            }
            case Reconfiguration.REBALANCE ->
                    VnodeMovePolicy.rebalance(
                            owners,
                            taskManagers,
                            Integer.parseInt(p.getOrDefault("subtasks", "1")),
                            Double.parseDouble(p.getOrDefault("fraction", "0.5")),
                            seed);
            default ->
                    throw new UnsupportedOperationException(
                            name()
                                    + " does not implement the reconfiguration "
                                    + reconfiguration.kind());
        };
    }

    /** e.g. "state shipped" for {@link HandoverPhase#STATE_SHIPPED}. */
    static String phaseName(HandoverPhase phase) {
        return phase.name().toLowerCase(Locale.ROOT).replace('_', ' ');
    }
}
