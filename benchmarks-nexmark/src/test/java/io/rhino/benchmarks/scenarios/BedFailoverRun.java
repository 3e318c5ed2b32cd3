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
import io.rhino.flink.cluster.ProcessCluster;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.configuration.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One system's failover on the network bed, as the paper's Table 5.1 measures it: NBQ8 on its paced
 * input ({@link PacedInput}) fills its state in the job to about the asked size, catches up, runs
 * through a few checkpoints to HDFS on the storage host, then the TaskManager that runs the join's
 * subtask 0 is killed with {@code kill -9}. The phases: detection until the job first leaves
 * RUNNING (polled every 20 ms), scheduling until the last join subtask is INITIALIZING, restore
 * until the last one is RUNNING (Flink's timestamps of the current attempts), then the query's
 * first result and its catch-up until the p99 latency is under a second. State fetching and loading
 * come from Flink's job initialization report, bytes from each host's link counters.
 */
final class BedFailoverRun {

    private static final Logger LOG = LoggerFactory.getLogger(BedFailoverRun.class);

    static final String DETECTION = "detection";
    static final String SCHEDULING = "scheduling";
    static final String RESTORE = "restore";
    static final String FIRST_RESULT = "first result";
    static final String CATCH_UP = "catch-up";
    static final String TOTAL = "kill until caught up";

    private static final Duration RECOVERY_TIMEOUT = Duration.ofMinutes(20);

    /**
     * One run's figures.
     *
     * @param checkpointedBytes the full state size of the last checkpoint before the kill
     * @param phases the phases in order, then the total
     * @param initialization Flink's report of the restore (durations in ms, sizes in bytes)
     * @param crossed bytes on each host's link from the kill until caught up
     * @param restoreSources Rhino's vnodes by where they were restored from (empty for Flink)
     * @param killSecond the second of the run's latency series in which the kill happened
     * @param restoredCheckpoint the latest completed checkpoint at the kill, which the job restores
     * @param restoredCheckpointAgeMillis from its trigger to the kill: the input the job replays
     */
    record Result(
            BedSystem system,
            long checkpointedBytes,
            Map<String, Duration> phases,
            Map<String, Double> initialization,
            Map<String, LinkCounters> crossed,
            Map<String, Integer> restoreSources,
            LatencyReport latency,
            long killSecond,
            BedJob.CheckpointTimings restoredCheckpoint,
            long restoredCheckpointAgeMillis) {}

    private final BedSystem system;
    private final BedNbq8.Settings settings;

    BedFailoverRun(BedSystem system, BedNbq8.Settings settings) {
        this.system = system;
        this.settings = settings;
    }

    Result run() throws Exception {
        return BedNbq8.runOnce(system, settings, this::measure);
    }

    private Result measure(BedNbq8 bed) throws Exception {
        ProcessCluster cluster = bed.hosts().cluster();
        LatencyRecorder latency = bed.latency();
        BedJob job =
                bed.submit(settings.parallelism(), settings.parallelism(), new Configuration());
        long checkpointed = bed.awaitFilledAndSteady(job);

        String joinTask = job.taskName(Nbq8.JOIN_OPERATOR);
        int victim = job.taskManagerIndexOf(joinTask, 0);
        BedJob.CheckpointTimings restored = job.latestCheckpointTimings(joinTask);
        Map<String, LinkCounters> before = bed.hosts().bed().counters();
        long killed = System.currentTimeMillis();
        latency.markPhase("failure", killed);
        cluster.kill(victim);
        LOG.info(
                "{}: killed TaskManager {} (ran {}[0]), {} of state checkpointed; the latest"
                        + " checkpoint {}",
                system.wireName(),
                victim,
                joinTask,
                checkpointed,
                restored);
        // the first restart: Flink may restart again once it declares the TaskManager lost
        long detected = job.awaitStatus("RUNNING", false, RECOVERY_TIMEOUT);
        job.awaitStatus("RUNNING", true, RECOVERY_TIMEOUT);
        job.awaitAllTasksRunning(RECOVERY_TIMEOUT);
        long baseline = latency.resultsSoFar();
        long firstResult = Deployment.awaitResultsBeyond(latency, baseline, RECOVERY_TIMEOUT);
        long caughtUp =
                bed.awaitCaughtUp("the records since the restored checkpoint", RECOVERY_TIMEOUT);
        Map<String, LinkCounters> crossed = bed.crossedSince(before);

        BedJob.TaskTimes join = job.taskTimes(joinTask);
        Map<String, Duration> phases = new LinkedHashMap<>();
        phases.put(DETECTION, millis(detected - killed));
        phases.put(SCHEDULING, millis(join.lastInitializing() - detected));
        phases.put(RESTORE, millis(join.lastRunning() - join.lastInitializing()));
        phases.put(FIRST_RESULT, millis(Math.max(0, firstResult - join.lastRunning())));
        phases.put(CATCH_UP, millis(Math.max(0, caughtUp - firstResult)));
        phases.put(TOTAL, millis(caughtUp - killed));
        // the last initialization since the kill: a first restart onto the dead TaskManager
        // fails, and the restore that counts is the one that ran
        Map<String, Double> initialization =
                bed.initializations().stream()
                        .filter(report -> report.startMillis() >= killed)
                        .reduce((earlier, later) -> later)
                        .map(InitializationSpans.Report::attributes)
                        .orElse(Map.of());
        Map<String, Integer> sources =
                system.rhino()
                        ? restoreSources(bed.rhinoOperator(job.id(), Nbq8.JOIN_OPERATOR))
                        : Map.of();
        LOG.info(
                "{}: recovered: {}; Flink's initialization report {}; restore sources {}; bytes"
                        + " across the links {}",
                system.wireName(),
                phases,
                initialization,
                sources,
                crossed);
        Thread.sleep(settings.after().toMillis());
        latency.tick();
        job.cancel(Duration.ofMinutes(2));
        return new Result(
                system,
                checkpointed,
                phases,
                initialization,
                crossed,
                sources,
                latency.report(),
                (killed - latency.startMillis()) / 1000,
                restored,
                killed - restored.triggeredMillis());
    }

    /** Rhino's count of an operator's vnodes by where their last restore took them from. */
    private static Map<String, Integer> restoreSources(JsonNode operatorView) {
        Map<String, Integer> counts = new TreeMap<>();
        for (JsonNode vnode : operatorView.path("vnodes")) {
            counts.merge(vnode.path("restored-from").asText("none"), 1, Integer::sum);
        }
        return counts;
    }

    private static Duration millis(long millis) {
        return Duration.ofMillis(millis);
    }
}
