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

import io.rhino.benchmarks.harness.LatencyRecorder;
import io.rhino.benchmarks.harness.PhaseTimings;
import io.rhino.benchmarks.harness.Reconfiguration;
import io.rhino.benchmarks.harness.ScenarioContext;
import io.rhino.benchmarks.nexmark.queries.Keying;
import io.rhino.benchmarks.nexmark.queries.Variant;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.core.execution.RecoveryClaimMode;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobgraph.SavepointRestoreSettings;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Plain Flink: the query's plain variant on RocksDB with incremental checkpoints, keyed operators
 * at the workload's active parallelism.
 *
 * <p>{@link Reconfiguration#SCALE_OUT} and {@link Reconfiguration#REBALANCE} are Flink's rescale:
 * stop with a native savepoint, then restart from it at the parameter {@code parallelism} (default:
 * unchanged; Flink cannot move part of a subtask's state, so load balancing is a restart that
 * redistributes all key groups, as the paper compares it). Timings: {@code savepoint} (stop request
 * until the savepoint is written), {@code scheduling} (submission until the job runs), {@code
 * restore until processing} (until the first result arrives).
 *
 * <p>{@link Reconfiguration#FAILURE} kills the TaskManager running subtask 0 of the first keyed
 * operator ({@link TaskManagerFailure}); Flink restarts the job from its last checkpoint, every
 * subtask downloading its state from the checkpoint storage. With {@code localRecovery}, task-local
 * recovery is on (state is kept in a local copy too and restored from it where the task comes back
 * to the same TaskManager).
 */
public class FlinkSut extends NexmarkSut {

    private static final Logger LOG = LoggerFactory.getLogger(FlinkSut.class);
    private static final Duration RESTART_TIMEOUT = Duration.ofMinutes(15);

    private final boolean localRecovery;
    private int parallelism;

    public FlinkSut(ClusterShape shape) {
        this("flink", shape, false);
    }

    public FlinkSut(String name, ClusterShape shape, boolean localRecovery) {
        super(name, shape);
        this.localRecovery = localRecovery;
    }

    @Override
    Configuration clusterOptions() {
        Configuration config = new Configuration();
        return localRecovery ? withLocalRecovery(config) : config;
    }

    @Override
    void configureJob(Configuration config, Path checkpointDir) {
        config.set(StateBackendOptions.STATE_BACKEND, "rocksdb");
        if (localRecovery) {
            withLocalRecovery(config);
        }
    }

    @Override
    public void start(io.rhino.benchmarks.harness.Workload workload, ScenarioContext context)
            throws Exception {
        if (workload instanceof NexmarkWorkload nexmark) {
            parallelism = nexmark.activeParallelism();
        }
        super.start(workload, context);
    }

    @Override
    JobGraph jobGraph(
            StreamExecutionEnvironment env,
            NexmarkWorkload workload,
            Deployment deployment,
            String runId) {
        Keying keying = new Keying(Variant.PLAIN, parallelism, workload.vnodes());
        return QueryJobs.build(env, workload, keying, deployment.feed(), runId);
    }

    @Override
    public PhaseTimings reconfigure(Reconfiguration reconfiguration, ScenarioContext context)
            throws Exception {
        return switch (reconfiguration.kind()) {
            case Reconfiguration.SCALE_OUT, Reconfiguration.REBALANCE ->
                    rescale(
                            Integer.parseInt(
                                    reconfiguration
                                            .parameters()
                                            .getOrDefault("parallelism", "" + parallelism)),
                            context);
            case RestartRescaleRun.KIND -> adaptiveRescale(reconfiguration, context);
            case Reconfiguration.FAILURE ->
                    new TaskManagerFailure(name(), deployment(), checkpointDir())
                            .killAndAwaitRecovery(
                                    reconfiguration,
                                    QueryJobs.keyedOperators(workload().query()).get(0),
                                    context.latency(),
                                    () -> {});
            default ->
                    throw new UnsupportedOperationException(
                            name()
                                    + " does not implement the reconfiguration "
                                    + reconfiguration.kind());
        };
    }

    /**
     * Flink's own restart-based rescale: the adaptive scheduler gets the keyed vertex's new upper
     * bound ({@code PUT /jobs/:jobid/resource-requirements}, FLIP-291) and restarts the job from
     * its next checkpoint at that parallelism.
     */
    private PhaseTimings adaptiveRescale(Reconfiguration rescale, ScenarioContext context)
            throws Exception {
        if (!adaptiveScheduler()) {
            throw new IllegalStateException(
                    name() + ": a restart rescale needs the adaptive scheduler");
        }
        int target = Integer.parseInt(rescale.parameters().get(RestartRescaleRun.PARALLELISM));
        boolean cold =
                Boolean.parseBoolean(
                        rescale.parameters().getOrDefault(RestartRescaleRun.COLD, "true"));
        String operator = QueryJobs.keyedOperators(workload().query()).get(0);
        Deployment deployment = deployment();
        JsonHttp flink = flinkRest(deployment);
        RestartRescaleRun.Outcome outcome =
                new RestartRescaleRun(name(), deployment, checkpointDir(), operator)
                        .run(
                                target,
                                cold,
                                context.latency(),
                                () -> {
                                    FlinkRequirements.require(flink, deployment, operator, target);
                                    return -1;
                                });
        parallelism = target;
        addFigures(outcome.figures());
        return outcome.timings();
    }

    private PhaseTimings rescale(int newParallelism, ScenarioContext context) throws Exception {
        Deployment deployment = deployment();
        MiniCluster cluster = deployment.cluster().miniCluster();
        long stopStart = System.currentTimeMillis();
        String savepoint =
                cluster.stopWithSavepoint(
                                deployment.jobId(),
                                deployment.workDir().resolve("savepoints").toUri().toString(),
                                false,
                                SavepointFormatType.NATIVE)
                        .get(RESTART_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        long stopped = System.currentTimeMillis();
        LOG.info(
                "{}: savepoint {} in {} ms; restarting at parallelism {}",
                name(),
                savepoint,
                stopped - stopStart,
                newParallelism);
        parallelism = newParallelism;
        JobGraph graph = jobGraph(environment(), workload(), deployment, context.runId());
        graph.setSavepointRestoreSettings(
                SavepointRestoreSettings.forPath(savepoint, false, RecoveryClaimMode.NO_CLAIM));
        LatencyRecorder results = context.latency();
        long baseline = results.resultsSoFar();
        long submitted = System.currentTimeMillis();
        deployment.submit(graph);
        long running = System.currentTimeMillis();
        long processing = Deployment.awaitResultsBeyond(results, baseline, RESTART_TIMEOUT);
        Map<String, Duration> timings = new LinkedHashMap<>();
        timings.put("savepoint", Duration.ofMillis(stopped - stopStart));
        timings.put(PhaseTimings.SCHEDULING, Duration.ofMillis(running - submitted));
        timings.put(
                TaskManagerFailure.RESTORE_UNTIL_PROCESSING,
                Duration.ofMillis(processing - running));
        return new PhaseTimings(timings);
    }
}
