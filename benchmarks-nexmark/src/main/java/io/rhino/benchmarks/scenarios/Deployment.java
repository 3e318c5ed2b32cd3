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

import io.rhino.benchmarks.cluster.EmbeddedCluster;
import io.rhino.benchmarks.harness.LatencyRecorder;
import io.rhino.benchmarks.nexmark.generator.RateSchedule;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.HeartbeatManagerOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.runtime.checkpoint.CheckpointStatsSnapshot;
import org.apache.flink.runtime.checkpoint.CompletedCheckpointStats;
import org.apache.flink.runtime.execution.ExecutionState;
import org.apache.flink.runtime.executiongraph.AccessExecutionJobVertex;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one run of a system under test deployed: a temporary directory, an embedded cluster, the
 * Kafka feed and the current job. {@link #close()} cancels the job, stops everything and deletes
 * the directory.
 */
final class Deployment implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Deployment.class);

    private final Path workDir;
    private final EmbeddedCluster cluster;
    private final KafkaFeed feed;
    private volatile JobID jobId;

    private Deployment(Path workDir, EmbeddedCluster cluster, KafkaFeed feed) {
        this.workDir = workDir;
        this.cluster = cluster;
        this.feed = feed;
    }

    /**
     * Starts a cluster of {@code shape} (slots spread evenly over the TaskManagers, so that keyed
     * subtasks land on different TaskManagers, as on the paper's VMs) with {@code clusterOptions}
     * and the shape's Flink options on top, and a Kafka feed producing at {@code initialRate} once
     * started.
     */
    static Deployment start(
            String sut,
            ClusterShape shape,
            Configuration clusterOptions,
            NexmarkWorkload workload,
            RateSchedule initialRate)
            throws Exception {
        Path workDir = Files.createTempDirectory(ScenarioDiskSpace.WORK_DIR_PREFIX + sut + "-");
        Configuration config = new Configuration(clusterOptions);
        config.set(
                TaskManagerOptions.TASK_MANAGER_LOAD_BALANCE_MODE,
                TaskManagerOptions.TaskManagerLoadBalanceMode.SLOTS);
        // A dead TaskManager is noticed within seconds, not the default 50 s.
        config.set(HeartbeatManagerOptions.HEARTBEAT_INTERVAL, Duration.ofSeconds(1));
        config.set(HeartbeatManagerOptions.HEARTBEAT_TIMEOUT, Duration.ofSeconds(5));
        config = shape.withFlinkOptions(config);
        EmbeddedCluster cluster = null;
        try {
            cluster =
                    EmbeddedCluster.start(
                            shape.taskManagers(),
                            shape.slotsPerTaskManager(),
                            workDir.resolve("flink"),
                            shape.managedMemory(),
                            config);
            KafkaFeed feed = KafkaFeed.start(workDir.resolve("kafka"), workload, initialRate);
            return new Deployment(workDir, cluster, feed);
        } catch (Exception e) {
            if (cluster != null) {
                cluster.close();
            }
            EmbeddedCluster.deleteRecursively(workDir);
            throw e;
        }
    }

    Path workDir() {
        return workDir;
    }

    EmbeddedCluster cluster() {
        return cluster;
    }

    KafkaFeed feed() {
        return feed;
    }

    JobID jobId() {
        return jobId;
    }

    /** Submits {@code graph} as the current job and waits until it runs. */
    JobID submit(JobGraph graph) throws Exception {
        JobID id = cluster.submit(graph);
        jobId = id;
        cluster.awaitRunning(id, Duration.ofMinutes(2));
        return id;
    }

    /** Completed checkpoints of the current job. */
    long completedCheckpoints() throws Exception {
        return checkpointStats().getCounts().getNumberOfCompletedCheckpoints();
    }

    /** Full state size of the current job's latest completed checkpoint; 0 before the first. */
    long latestCheckpointStateSize() throws Exception {
        return cluster.latestCompletedCheckpoint(jobId)
                .map(CompletedCheckpointStats::getStateSize)
                .orElse(0L);
    }

    /** When the latest completed checkpoint was triggered (epoch ms), or 0 if none completed. */
    long latestCheckpointTriggeredMillis() throws Exception {
        return cluster.latestCompletedCheckpoint(jobId)
                .map(CompletedCheckpointStats::getTriggerTimestamp)
                .orElse(0L);
    }

    /** Whether every source whose name starts with {@code prefix} has finished. */
    boolean sourcesFinished(String prefix) throws Exception {
        boolean found = false;
        for (AccessExecutionJobVertex vertex :
                cluster.miniCluster()
                        .getExecutionGraph(jobId)
                        .get(1, TimeUnit.MINUTES)
                        .getAllVertices()
                        .values()) {
            if (vertex.getName().contains(prefix)) {
                found = true;
                if (vertex.getAggregateState() != ExecutionState.FINISHED) {
                    return false;
                }
            }
        }
        if (!found) {
            throw new IllegalStateException("The job has no source named " + prefix + "...");
        }
        return true;
    }

    private CheckpointStatsSnapshot checkpointStats() throws Exception {
        return cluster.checkpointStats(jobId);
    }

    /**
     * Waits until {@code latency} has more than {@code baseline} results: the moment the query
     * produces again after a restart (its sources may read before the keyed state is restored).
     *
     * @return the wall-clock time of that moment
     */
    static long awaitResultsBeyond(LatencyRecorder latency, long baseline, Duration timeout)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (latency.resultsSoFar() <= baseline) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("No results within " + timeout);
            }
            Thread.sleep(10);
        }
        return System.currentTimeMillis();
    }

    /** Cancels the current job, if any, and waits for its end. */
    void cancelJob() {
        JobID id = jobId;
        if (id == null) {
            return;
        }
        try {
            if (!cluster.miniCluster()
                    .getJobStatus(id)
                    .get(30, TimeUnit.SECONDS)
                    .isTerminalState()) {
                cluster.miniCluster().cancelJob(id).get(1, TimeUnit.MINUTES);
                cluster.awaitResult(id, Duration.ofMinutes(1));
            }
        } catch (Exception e) {
            LOG.warn("Cancelling job {}: {}", id, e.toString());
        }
    }

    @Override
    public void close() throws Exception {
        try {
            cancelJob();
            feed.close();
            cluster.close();
        } finally {
            EmbeddedCluster.deleteRecursively(workDir);
        }
    }
}
