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

import io.rhino.benchmarks.harness.ScenarioContext;
import io.rhino.benchmarks.harness.SystemUnderTest;
import io.rhino.benchmarks.harness.Workload;
import io.rhino.benchmarks.nexmark.generator.RateSchedule;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.state.rocksdb.RocksDBConfigurableOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the NEXMark systems under test share: each run deploys a fresh embedded cluster and Kafka
 * feed ({@link Deployment}), submits the query (the subclass chooses the state backend and keyed
 * streams), starts the generator, optionally fills state up to the workload's size, and tears it
 * all down in {@link #stop()}. Subclasses add how they reconfigure.
 */
abstract class NexmarkSut implements SystemUnderTest, CheckpointedSut {

    private static final Logger LOG = LoggerFactory.getLogger(NexmarkSut.class);

    /** RocksDB background jobs (flushes and compactions) of every instance, both systems. */
    static final int ROCKSDB_BACKGROUND_JOBS = 4;

    private final String name;
    private final ClusterShape shape;
    private volatile Deployment deployment;
    private NexmarkWorkload workload;
    private final Map<String, Double> figures = new LinkedHashMap<>();

    NexmarkSut(String name, ClusterShape shape) {
        this.name = name;
        this.shape = shape;
    }

    @Override
    public String name() {
        return name;
    }

    ClusterShape shape() {
        return shape;
    }

    /** Whether the cluster runs Flink's adaptive scheduler (the restart-rescale scenario). */
    boolean adaptiveScheduler() {
        return RestartRescaleRun.ADAPTIVE.equalsIgnoreCase(
                shape.flinkOptions().getOrDefault(RestartRescaleRun.SCHEDULER, ""));
    }

    /** Flink's REST API of the deployment's cluster. */
    static JsonHttp flinkRest(Deployment deployment) throws Exception {
        return new JsonHttp(flinkRestAddress(deployment));
    }

    static String flinkRestAddress(Deployment deployment) throws Exception {
        return deployment
                .cluster()
                .miniCluster()
                .getRestAddress()
                .get(1, java.util.concurrent.TimeUnit.MINUTES)
                .toString();
    }

    /**
     * Input records produced and not yet consumed by the job (of the kinds the query reads), given
     * what it consumed so far: what is left of a backlog.
     */
    long unreadInput(long consumedRecords) {
        return deployment().feed().producedRecords(QueryJobs.inputKinds(workload.query()))
                - consumedRecords;
    }

    /** Figures of the current run's reconfiguration (not durations), for the summary table. */
    synchronized Map<String, Double> reconfigurationFigures() {
        return new LinkedHashMap<>(figures);
    }

    synchronized void addFigures(Map<String, Double> more) {
        figures.putAll(more);
    }

    /** Options of the cluster (TaskManagers) on top of the defaults; none by default. */
    Configuration clusterOptions() {
        return new Configuration();
    }

    /**
     * Turns on Flink's task-local recovery: each snapshot also keeps a local copy, restored from
     * where a task comes back to the same TaskManager.
     */
    static Configuration withLocalRecovery(Configuration config) {
        config.set(CheckpointingOptions.LOCAL_BACKUP_ENABLED, true);
        config.set(StateRecoveryOptions.LOCAL_RECOVERY, true);
        return config;
    }

    /** Options of the job: state backend and its settings on top of {@link #jobOptions}. */
    abstract void configureJob(Configuration config, Path checkpointDir);

    /** Adds the workload's job to {@code env} for run {@code runId}. */
    abstract JobGraph jobGraph(
            StreamExecutionEnvironment env,
            NexmarkWorkload workload,
            Deployment deployment,
            String runId);

    /** Called once the job runs, e.g. to wait until its coordinators are up. */
    void onRunning(Deployment deployment, NexmarkWorkload workload) throws Exception {}

    @Override
    public void start(Workload requested, ScenarioContext context) throws Exception {
        if (!(requested instanceof NexmarkWorkload nexmark)) {
            throw new UnsupportedOperationException(name + " runs NEXMark workloads only");
        }
        if (nexmark.maxParallelism() > shape.slots()) {
            throw new IllegalArgumentException(
                    "parallelism "
                            + nexmark.maxParallelism()
                            + " needs more than "
                            + shape.slots()
                            + " slots");
        }
        stop();
        synchronized (this) {
            figures.clear();
        }
        workload = nexmark;
        boolean fill = nexmark.stateSizeBytes() > 0;
        boolean fillInJob = QueryJobs.fillsInJob(nexmark);
        boolean backlog = nexmark.backlogRecords() > 0;
        deployment =
                Deployment.start(
                        name,
                        shape,
                        clusterOptions(),
                        nexmark,
                        (fill && !fillInJob) || backlog ? RateSchedule.max() : nexmark.rate());
        if (backlog) {
            InputBacklog.write(deployment.feed(), nexmark, name);
        }
        deployment.submit(jobGraph(environment(), nexmark, deployment, context.runId()));
        onRunning(deployment, nexmark);
        if (!backlog) {
            deployment.feed().startProducing();
        }
        if (fillInJob) {
            new StateFill(deployment, nexmark.stateSizeBytes(), name).awaitInJobFill();
        } else if (fill) {
            StateFill stateFill = new StateFill(deployment, nexmark.stateSizeBytes(), name);
            stateFill.await();
            deployment.feed().switchRate(nexmark.rate());
            Backlog.awaitCaughtUp(
                    name + ": the fill's backlog",
                    context.latency(),
                    Duration.ofSeconds(2),
                    Duration.ofMinutes(5));
        }
        LOG.info("{} runs {} (job {})", name, nexmark.name(), deployment.jobId());
    }

    /** A fresh environment with the job options. */
    StreamExecutionEnvironment environment() {
        Configuration config = new Configuration();
        config.set(PipelineOptions.GENERIC_TYPES, false);
        config.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, true);
        config.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, workload.checkpointInterval());
        config.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, checkpointDir().toUri().toString());
        config.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        config.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 10);
        config.set(
                RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofSeconds(1));
        // RocksDB's compaction threads are one pool per process, sized by the largest
        // max_background_jobs of any instance: Flink's default (2) gives the whole TaskManager
        // process one compaction thread, which caps the state a fill can build at a few MB/s.
        config.set(RocksDBConfigurableOptions.MAX_BACKGROUND_THREADS, ROCKSDB_BACKGROUND_JOBS);
        configureJob(config, checkpointDir());
        return StreamExecutionEnvironment.getExecutionEnvironment(shape.withFlinkOptions(config));
    }

    Path checkpointDir() {
        return deployment.workDir().resolve("checkpoints");
    }

    Deployment deployment() {
        if (deployment == null) {
            throw new IllegalStateException(name + " runs nothing");
        }
        return deployment;
    }

    NexmarkWorkload workload() {
        return workload;
    }

    @Override
    public long completedCheckpoints() throws Exception {
        return deployment().completedCheckpoints();
    }

    @Override
    public synchronized void stop() throws Exception {
        // synchronized: the runner's shutdown hook may stop a run the main thread also stops
        Deployment running = deployment;
        deployment = null;
        if (running != null) {
            running.close();
        }
    }
}
