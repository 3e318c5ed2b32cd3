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
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.runtime.checkpoint.AbstractCheckpointStats;
import org.apache.flink.runtime.checkpoint.CheckpointStatsSnapshot;
import org.apache.flink.runtime.checkpoint.RestoredCheckpointStats;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The paper's failure (§5.4.2): the TaskManager running subtask 0 of the job's first keyed operator
 * dies, and the job recovers on the TaskManagers left. The same kill and the same clocks for every
 * system under test; what differs is where each restores the lost state from.
 *
 * <p>Timings: {@code detection} (kill until the job leaves RUNNING), {@code scheduling} (until it
 * runs again), {@code restore until processing} (until the first result after that), {@code
 * catch-up} (until three seconds in a row had a p99 latency of at most {@link #CAUGHT_UP_P99}: the
 * records since the restored checkpoint are processed again, so the job starts behind); and {@code
 * restored checkpoint age}: how long before the kill the restored checkpoint was triggered, which
 * is about how much input is processed again (not a step: it is not part of the recovery's sum).
 *
 * @param system the system under test, for the log
 * @param deployment its cluster and job
 * @param checkpointStorage the job's checkpoint directory
 */
record TaskManagerFailure(String system, Deployment deployment, Path checkpointStorage) {

    private static final Logger LOG = LoggerFactory.getLogger(TaskManagerFailure.class);

    static final String DETECTION = "detection";
    static final String RESTORE_UNTIL_PROCESSING = "restore until processing";
    static final String CATCH_UP = "catch-up";
    static final String RESTORED_CHECKPOINT_AGE = "restored checkpoint age";

    /** Parameter of the failure: "true" to evict the checkpoint storage before the kill. */
    static final String COLD_CHECKPOINT_STORAGE = "cold-checkpoint-storage";

    /** The same bound the scenarios use for a fill's backlog. */
    static final Duration CAUGHT_UP_P99 = Duration.ofSeconds(2);

    private static final Duration RECOVERY_TIMEOUT = Duration.ofMinutes(15);

    /**
     * Kills the TaskManager of {@code operator}'s subtask 0, runs {@code afterKill} (what else dies
     * with the TaskManager's process), and waits for the job to recover.
     *
     * @param failure the reconfiguration, whose {@link #COLD_CHECKPOINT_STORAGE} parameter (default
     *     true) evicts the checkpoint storage from the page cache first
     */
    PhaseTimings killAndAwaitRecovery(
            Reconfiguration failure, String operator, LatencyRecorder results, Runnable afterKill)
            throws Exception {
        MiniCluster cluster = deployment.cluster().miniCluster();
        JobID jobId = deployment.jobId();
        if (Boolean.parseBoolean(
                failure.parameters().getOrDefault(COLD_CHECKPOINT_STORAGE, "true"))) {
            ColdCheckpointStorage.evict(checkpointStorage);
        }
        long killed = System.currentTimeMillis();
        int index = TaskManagerPlacement.killTaskManagerOf(cluster, jobId, operator, 0);
        afterKill.run();
        LOG.info("{}: killed TaskManager {} (ran {}[0])", system, index, operator);
        long detected = awaitStatus(cluster, jobId, false);
        long running = awaitStatus(cluster, jobId, true);
        long baseline = results.resultsSoFar();
        long processing = Deployment.awaitResultsBeyond(results, baseline, RECOVERY_TIMEOUT);
        Map<String, Duration> timings = new LinkedHashMap<>();
        timings.put(DETECTION, Duration.ofMillis(detected - killed));
        timings.put(PhaseTimings.SCHEDULING, Duration.ofMillis(running - detected));
        timings.put(RESTORE_UNTIL_PROCESSING, Duration.ofMillis(processing - running));
        Backlog.awaitCaughtUp(
                        system + ": the records since the restored checkpoint",
                        results,
                        CAUGHT_UP_P99,
                        RECOVERY_TIMEOUT)
                .ifPresent(
                        caughtUpAt ->
                                timings.put(
                                        CATCH_UP,
                                        Duration.ofMillis(Math.max(0, caughtUpAt - processing))));
        restoredCheckpointAge(cluster, jobId, killed)
                .ifPresent(age -> timings.put(RESTORED_CHECKPOINT_AGE, age));
        LOG.info("{}: recovered from the TaskManager's loss: {}", system, timings);
        return new PhaseTimings(timings);
    }

    /**
     * The time between the trigger of the checkpoint the job restored and {@code killedMillis}, if
     * Flink's checkpoint statistics still hold that checkpoint.
     */
    private static Optional<Duration> restoredCheckpointAge(
            MiniCluster cluster, JobID jobId, long killedMillis) throws Exception {
        CheckpointStatsSnapshot stats =
                cluster.getExecutionGraph(jobId)
                        .get(1, TimeUnit.MINUTES)
                        .getCheckpointStatsSnapshot();
        RestoredCheckpointStats restored = stats.getLatestRestoredCheckpoint();
        if (restored == null) {
            return Optional.empty();
        }
        AbstractCheckpointStats checkpoint =
                stats.getHistory().getCheckpointById(restored.getCheckpointId());
        return checkpoint == null
                ? Optional.empty()
                : Optional.of(Duration.ofMillis(killedMillis - checkpoint.getTriggerTimestamp()));
    }

    /** Waits until the job is (or is no longer) RUNNING; returns when. */
    private static long awaitStatus(MiniCluster cluster, JobID jobId, boolean running)
            throws Exception {
        long deadline = System.nanoTime() + RECOVERY_TIMEOUT.toNanos();
        while (true) {
            JobStatus status = cluster.getJobStatus(jobId).get(1, TimeUnit.MINUTES);
            if ((status == JobStatus.RUNNING) == running) {
                return System.currentTimeMillis();
            }
            if (status.isGloballyTerminalState()) {
                throw new IllegalStateException("Job " + jobId + " ended as " + status);
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("Job " + jobId + " still " + status);
            }
            Thread.sleep(10);
        }
    }
}
