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

package io.rhino.benchmarks.cluster;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.runtime.OperatorIDPair;
import org.apache.flink.runtime.checkpoint.CheckpointStatsSnapshot;
import org.apache.flink.runtime.checkpoint.CompletedCheckpointStats;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobgraph.JobVertex;
import org.apache.flink.runtime.jobmaster.JobResult;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** An embedded Flink cluster (JobManager and TaskManagers in this JVM) for the benchmark mains. */
public final class EmbeddedCluster implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedCluster.class);

    private final MiniCluster miniCluster;

    private EmbeddedCluster(MiniCluster miniCluster) {
        this.miniCluster = miniCluster;
    }

    /**
     * Starts a cluster of {@code taskManagers} TaskManagers with {@code slotsPerTaskManager} slots
     * each and 256 MB of managed memory (RocksDB's memory) per TaskManager, with its working files
     * (RocksDB instances among them) under {@code workDir}.
     */
    public static EmbeddedCluster start(int taskManagers, int slotsPerTaskManager, Path workDir)
            throws Exception {
        return start(taskManagers, slotsPerTaskManager, workDir, MemorySize.parse("256m"));
    }

    /** As {@link #start(int, int, Path)}, with the managed memory of each TaskManager. */
    public static EmbeddedCluster start(
            int taskManagers, int slotsPerTaskManager, Path workDir, MemorySize managedMemory)
            throws Exception {
        return start(
                taskManagers, slotsPerTaskManager, workDir, managedMemory, new Configuration());
    }

    /**
     * As {@link #start(int, int, Path, MemorySize)}, with {@code extra} cluster options on top
     * (e.g. slot spreading, heartbeat timeouts, local recovery).
     */
    public static EmbeddedCluster start(
            int taskManagers,
            int slotsPerTaskManager,
            Path workDir,
            MemorySize managedMemory,
            Configuration extra)
            throws Exception {
        Files.createDirectories(workDir);
        Configuration config = new Configuration(extra);
        config.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, managedMemory);
        config.set(CoreOptions.TMP_DIRS, workDir.toString());
        config.set(RestOptions.BIND_PORT, "0"); // any free port: never clashes
        MiniCluster miniCluster =
                new MiniCluster(
                        new MiniClusterConfiguration.Builder()
                                .setNumTaskManagers(taskManagers)
                                .setNumSlotsPerTaskManager(slotsPerTaskManager)
                                .setConfiguration(config)
                                .build());
        miniCluster.start();
        return new EmbeddedCluster(miniCluster);
    }

    public MiniCluster miniCluster() {
        return miniCluster;
    }

    /** Flink's checkpoint statistics of a job. */
    public CheckpointStatsSnapshot checkpointStats(JobID jobId) throws Exception {
        return miniCluster
                .getExecutionGraph(jobId)
                .get(1, TimeUnit.MINUTES)
                .getCheckpointStatsSnapshot();
    }

    /** The statistics of a job's latest completed checkpoint; empty before the first. */
    public Optional<CompletedCheckpointStats> latestCompletedCheckpoint(JobID jobId)
            throws Exception {
        return Optional.ofNullable(
                checkpointStats(jobId).getHistory().getLatestCompletedCheckpoint());
    }

    /** The job graph of everything added to {@code env} (and clears {@code env}). */
    public static JobGraph jobGraph(StreamExecutionEnvironment env) {
        return env.getStreamGraph().getJobGraph();
    }

    /** Operator id (hex) to the name of the task (operator chain) that runs it. */
    static Map<String, String> operatorNames(JobGraph jobGraph) {
        Map<String, String> names = new LinkedHashMap<>();
        for (JobVertex vertex : jobGraph.getVertices()) {
            for (OperatorIDPair ids : vertex.getOperatorIDs()) {
                names.put(ids.getGeneratedOperatorID().toHexString(), vertex.getName());
            }
        }
        return names;
    }

    public JobID submit(JobGraph jobGraph) throws Exception {
        return miniCluster.submitJob(jobGraph).get(1, TimeUnit.MINUTES).getJobID();
    }

    /** Waits until the job is running; fails if it ends or does not start in time. */
    public void awaitRunning(JobID jobId, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            JobStatus status = miniCluster.getJobStatus(jobId).get(1, TimeUnit.MINUTES);
            if (status == JobStatus.RUNNING) {
                return;
            }
            if (status.isTerminalState()) {
                throw new IllegalStateException(
                        "Job " + jobId + " ended as " + status + " before running", failure(jobId));
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        "Job " + jobId + " is still " + status + " after " + timeout);
            }
            Thread.sleep(20);
        }
    }

    /** Waits for the job's end and returns its result. */
    public JobResult awaitResult(JobID jobId, Duration timeout) throws Exception {
        return miniCluster.requestJobResult(jobId).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    private Throwable failure(JobID jobId) {
        try {
            JobResult result = miniCluster.requestJobResult(jobId).get(1, TimeUnit.MINUTES);
            return result.getSerializedThrowable()
                    .map(t -> (Throwable) t.deserializeError(getClass().getClassLoader()))
                    .orElse(null);
        } catch (Exception e) {
            return e;
        }
    }

    /**
     * Shuts the cluster down, cancelling running jobs. Gives up after a minute (with a warning)
     * rather than hang: a JobMaster that failed to start can keep the shutdown from completing.
     */
    @Override
    public void close() throws Exception {
        try {
            miniCluster.closeAsync().get(1, TimeUnit.MINUTES);
        } catch (TimeoutException e) {
            LOG.warn("The embedded cluster did not shut down within a minute; leaving it");
        }
    }

    /** Deletes {@code dir} and everything under it, if it exists. */
    public static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        Files.walkFileTree(
                dir,
                new SimpleFileVisitor<>() {
                    // A cancelled job's checkpoints are cleaned up asynchronously by Flink, so
                    // files may vanish under this walk: that is fine, they are gone either way.
                    @Override
                    public FileVisitResult visitFile(Path file, BasicFileAttributes attrs)
                            throws IOException {
                        Files.deleteIfExists(file);
                        return FileVisitResult.CONTINUE;
                    }

                    @Override
                    public FileVisitResult visitFileFailed(Path file, IOException e)
                            throws IOException {
                        if (e instanceof NoSuchFileException) {
                            return FileVisitResult.CONTINUE;
                        }
                        throw e;
                    }

                    @Override
                    public FileVisitResult postVisitDirectory(Path d, IOException e)
                            throws IOException {
                        if (e != null && !(e instanceof NoSuchFileException)) {
                            throw e;
                        }
                        Files.deleteIfExists(d);
                        return FileVisitResult.CONTINUE;
                    }
                });
    }
}
