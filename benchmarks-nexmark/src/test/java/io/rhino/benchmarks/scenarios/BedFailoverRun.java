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
import io.rhino.benchmarks.harness.LatencySpillReader;
import io.rhino.benchmarks.nexmark.generator.RateSchedule;
import io.rhino.benchmarks.nexmark.queries.Keying;
import io.rhino.benchmarks.nexmark.queries.Nbq8;
import io.rhino.flink.BedCluster;
import io.rhino.flink.cluster.LinkCounters;
import io.rhino.flink.cluster.ProcessCluster;
import io.rhino.flink.config.RhinoOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.state.rocksdb.RocksDBConfigurableOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
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

    /** The paper's recovery ends when the p99 latency is back under a second. */
    static final Duration CAUGHT_UP_P99 = Duration.ofSeconds(1);

    private static final Duration FILL_TIMEOUT = Duration.ofMinutes(90);
    private static final Duration RECOVERY_TIMEOUT = Duration.ofMinutes(20);

    /**
     * What every run shares.
     *
     * @param stateBytes state to fill before the failure
     * @param eventsPerSecond NEXMark events per second of the paced input (NBQ8 reads 4 in 50)
     * @param parallelism the join's subtasks, one per TaskManager
     * @param vnodes Rhino's vnodes of the join
     * @param checkpointInterval incremental checkpoints to HDFS
     * @param checkpointsBefore completed checkpoints between the catch-up after the fill and the
     *     kill
     * @param after how long the latency is recorded after the catch-up (for the figure)
     * @param taskManagerMemory each TaskManager's process size
     * @param managedMemory each TaskManager's managed memory (RocksDB's)
     */
    record Settings(
            long stateBytes,
            long eventsPerSecond,
            int parallelism,
            int vnodes,
            Duration checkpointInterval,
            int checkpointsBefore,
            Duration after,
            String taskManagerMemory,
            String managedMemory,
            long seed) {

        NexmarkWorkload workload() {
            return new NexmarkWorkload(
                    "nbq8",
                    RateSchedule.max(),
                    ScenarioSettings.generator(seed),
                    1,
                    1,
                    parallelism,
                    parallelism,
                    vnodes,
                    checkpointInterval,
                    stateBytes,
                    Duration.ofHours(12));
        }
    }

    /**
     * One run's figures.
     *
     * @param checkpointedBytes the full state size of the last checkpoint before the kill
     * @param phases the phases in order, then the total
     * @param initialization Flink's report of the restore (durations in ms, sizes in bytes)
     * @param crossed bytes on each host's link from the kill until caught up
     * @param restoreSources Rhino's vnodes by where they were restored from (empty for Flink)
     * @param killSecond the second of the run's latency series in which the kill happened
     */
    record Result(
            BedSystem system,
            long checkpointedBytes,
            Map<String, Duration> phases,
            Map<String, Double> initialization,
            Map<String, LinkCounters> crossed,
            Map<String, Integer> restoreSources,
            LatencyReport latency,
            long killSecond) {}

    private final BedSystem system;
    private final Settings settings;
    private final Path directory;

    BedFailoverRun(BedSystem system, Settings settings, Path directory) {
        this.system = system;
        this.settings = settings;
        this.directory = directory;
    }

    Result run() throws Exception {
        Path spans = directory.resolve("initializations.jsonl");
        Configuration common = new Configuration();
        common.setString("taskmanager.numberOfTaskSlots", "2");
        common.setString("taskmanager.load-balance.mode", "SLOTS");
        common.setString("taskmanager.memory.process.size", settings.taskManagerMemory());
        common.setString("taskmanager.memory.managed.size", settings.managedMemory());
        InitializationSpans.registerFile(common, spans);
        // Flink's REST API serves a job's details from a cache refreshed this often (default 3 s):
        // the tasks' states are polled through it
        common.setString("web.refresh-interval", "100ms");
        system.clusterOptions(common);
        try (BedCluster hosts =
                BedCluster.start(
                        directory,
                        common,
                        (index, config) ->
                                config.set(
                                        RhinoOptions.REPLICATION_DIR,
                                        directory.resolve("replicas-" + index).toString()))) {
            LatencyRecorder latency = LatencyRecorder.startingNow();
            try (LatencySpillReader reader =
                    LatencySpillReader.start(directory.resolve("latencies"), latency)) {
                return measure(hosts, latency, spans);
            }
        }
    }

    private Result measure(BedCluster hosts, LatencyRecorder latency, Path spans) throws Exception {
        ProcessCluster cluster = hosts.cluster();
        StreamExecutionEnvironment env = cluster.environment(jobConfig(hosts));
        env.setParallelism(settings.parallelism());
        NexmarkWorkload workload = settings.workload();
        Keying keying = new Keying(system.variant(), settings.parallelism(), settings.vnodes());
        QueryJobs.addPacedNbq8(
                env,
                workload,
                keying,
                settings.eventsPerSecond(),
                System.currentTimeMillis(),
                directory.resolve("latencies"));
        JobClient client = env.executeAsync("nbq8-failover-" + system.wireName());
        BedJob job = new BedJob(cluster, client.getJobID().toString());
        job.awaitFill(InJobFill.SOURCE_PREFIX, system.wireName(), FILL_TIMEOUT);
        Backlog.awaitCaughtUp(
                system.wireName() + ": the backlog of the fill",
                latency,
                CAUGHT_UP_P99,
                Duration.ofMinutes(15));
        long completed = job.completedCheckpoints();
        job.awaitCompletedCheckpoints(
                completed + settings.checkpointsBefore(), Duration.ofMinutes(10));
        long checkpointed = job.latestCheckpointStateSize();

        String joinTask = job.taskName(Nbq8.JOIN_OPERATOR);
        int victim = job.taskManagerIndexOf(joinTask, 0);
        Map<String, LinkCounters> before = hosts.bed().counters();
        long killed = System.currentTimeMillis();
        latency.markPhase("failure", killed);
        cluster.kill(victim);
        LOG.info(
                "{}: killed TaskManager {} (ran {}[0]), {} of state checkpointed",
                system.wireName(),
                victim,
                joinTask,
                checkpointed);
        // the first restart: Flink may restart again once it declares the TaskManager lost
        long detected = job.awaitStatus("RUNNING", false, RECOVERY_TIMEOUT);
        job.awaitStatus("RUNNING", true, RECOVERY_TIMEOUT);
        job.awaitAllTasksRunning(RECOVERY_TIMEOUT);
        long baseline = latency.resultsSoFar();
        long firstResult = Deployment.awaitResultsBeyond(latency, baseline, RECOVERY_TIMEOUT);
        long caughtUp =
                Backlog.awaitCaughtUp(
                                system.wireName() + ": the records since the restored checkpoint",
                                latency,
                                CAUGHT_UP_P99,
                                RECOVERY_TIMEOUT)
                        .orElseThrow(
                                () ->
                                        new IllegalStateException(
                                                system.wireName()
                                                        + " did not catch up within "
                                                        + RECOVERY_TIMEOUT));
        Map<String, LinkCounters> crossed = difference(hosts.bed().counters(), before);

        BedJob.TaskTimes join = job.taskTimes(joinTask);
        Map<String, Duration> phases = new LinkedHashMap<>();
        phases.put(DETECTION, millis(detected - killed));
        phases.put(SCHEDULING, millis(join.lastInitializing() - detected));
        phases.put(RESTORE, millis(join.lastRunning() - join.lastInitializing()));
        phases.put(FIRST_RESULT, millis(Math.max(0, firstResult - join.lastRunning())));
        phases.put(CATCH_UP, millis(Math.max(0, caughtUp - firstResult)));
        phases.put(TOTAL, millis(caughtUp - killed));
        Map<String, Double> initialization =
                InitializationSpans.readFile(spans).stream()
                        .filter(report -> report.startMillis() >= killed)
                        .findFirst()
                        .map(InitializationSpans.Report::attributes)
                        .orElse(Map.of());
        Map<String, Integer> sources =
                system.rhino() ? restoreSources(cluster, job.id(), Nbq8.JOIN_OPERATOR) : Map.of();
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
                (killed - latency.startMillis()) / 1000);
    }

    private Configuration jobConfig(BedCluster hosts) {
        Configuration config = new Configuration();
        config.set(PipelineOptions.GENERIC_TYPES, false);
        config.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, true);
        config.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, settings.checkpointInterval());
        config.set(
                CheckpointingOptions.CHECKPOINTS_DIRECTORY,
                hosts.hdfs().uri() + "/" + system.wireName());
        config.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        config.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 10);
        config.set(
                RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofSeconds(1));
        config.set(
                RocksDBConfigurableOptions.MAX_BACKGROUND_THREADS,
                NexmarkSut.ROCKSDB_BACKGROUND_JOBS);
        config.set(RhinoOptions.REST_PORT, BedCluster.RHINO_REST_PORT);
        config.set(RhinoOptions.REST_BIND_ADDRESS, hosts.cluster().jobManagerAddress());
        return system.jobOptions(config);
    }

    /** Rhino's count of the join's vnodes by where their last restore took them from. */
    private static Map<String, Integer> restoreSources(
            ProcessCluster cluster, String jobId, String operator) throws Exception {
        JsonNode view =
                new JsonHttp(
                                "http://"
                                        + cluster.jobManagerAddress()
                                        + ":"
                                        + BedCluster.RHINO_REST_PORT)
                        .get("/rhino/v1/jobs/" + jobId + "/operators/" + operator);
        Map<String, Integer> counts = new TreeMap<>();
        for (JsonNode vnode : view.path("vnodes")) {
            counts.merge(vnode.path("restored-from").asText("none"), 1, Integer::sum);
        }
        return counts;
    }

    private static Map<String, LinkCounters> difference(
            Map<String, LinkCounters> after, Map<String, LinkCounters> before) {
        Map<String, LinkCounters> difference = new LinkedHashMap<>();
        after.forEach((host, counters) -> difference.put(host, counters.minus(before.get(host))));
        return difference;
    }

    private static Duration millis(long millis) {
        return Duration.ofMillis(millis);
    }
}
