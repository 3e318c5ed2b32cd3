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
import io.rhino.benchmarks.harness.LatencySpillReader;
import io.rhino.benchmarks.nexmark.generator.RateSchedule;
import io.rhino.benchmarks.nexmark.queries.Keying;
import io.rhino.flink.BedCluster;
import io.rhino.flink.cluster.LinkCounters;
import io.rhino.flink.config.RhinoOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.state.rocksdb.RocksDBConfigurableOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * One system's NBQ8 on a network bed of its own: the bed with HDFS and the Flink cluster, the
 * latencies the job's subtasks spill, and the job itself on its paced input ({@link PacedInput}),
 * filled in the job to the asked size. The runs ({@link BedFailoverRun}) disturb it and measure.
 */
final class BedNbq8 implements AutoCloseable {

    /** The paper's reconfigurations end when the p99 latency is back under a second. */
    static final Duration CAUGHT_UP_P99 = Duration.ofSeconds(1);

    private static final Duration FILL_TIMEOUT = Duration.ofMinutes(90);

    /**
     * What every run shares.
     *
     * @param stateBytes state to fill before the measured event
     * @param eventsPerSecond NEXMark events per second of the paced input (NBQ8 reads 4 in 50)
     * @param parallelism the join's subtasks, one per TaskManager
     * @param vnodes Rhino's vnodes of the join
     * @param checkpointInterval incremental checkpoints to HDFS
     * @param checkpointsBefore completed checkpoints between the catch-up after the fill and the
     *     measured event
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

        /**
         * The bed's settings for {@code stateBytes}: parallelism one per TaskManager, 4 vnodes per
         * subtask, two checkpoints before the measured event, 20 s recorded after the catch-up; the
         * properties {@code rhino.bed.events-per-second} (10000), {@code
         * rhino.bed.checkpoint-seconds} (10), {@code rhino.bed.taskmanager-memory} (3g) and {@code
         * rhino.bed.managed-memory} (1g) set the rest.
         */
        static Settings fromSystemProperties(long stateBytes) {
            return new Settings(
                    stateBytes,
                    Long.getLong("rhino.bed.events-per-second", 10_000),
                    BedCluster.TASK_MANAGERS,
                    4 * BedCluster.TASK_MANAGERS,
                    Duration.ofSeconds(Long.getLong("rhino.bed.checkpoint-seconds", 10)),
                    2,
                    Duration.ofSeconds(20),
                    System.getProperty("rhino.bed.taskmanager-memory", "3g"),
                    System.getProperty("rhino.bed.managed-memory", "1g"),
                    42);
        }

        /** These settings with {@code vnodes} vnodes of Rhino's join. */
        Settings withVnodes(int vnodes) {
            return new Settings(
                    stateBytes,
                    eventsPerSecond,
                    parallelism,
                    vnodes,
                    checkpointInterval,
                    checkpointsBefore,
                    after,
                    taskManagerMemory,
                    managedMemory,
                    seed);
        }

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

    private final BedSystem system;
    private final Settings settings;
    private final Path directory;
    private final BedCluster hosts;
    private final LatencyRecorder latency;
    private final LatencySpillReader reader;
    // the paced input's time zero: a job resubmitted from a savepoint continues its schedule
    private final long inputStartMillis = System.currentTimeMillis();

    private BedNbq8(
            BedSystem system,
            Settings settings,
            Path directory,
            BedCluster hosts,
            LatencyRecorder latency,
            LatencySpillReader reader) {
        this.system = system;
        this.settings = settings;
        this.directory = directory;
        this.hosts = hosts;
        this.latency = latency;
        this.reader = reader;
    }

    /** One measurement on a bed of its own. */
    interface Measurement<T> {
        T measure(BedNbq8 bed) throws Exception;
    }

    /**
     * Brings up a bed for {@code system} in a fresh {@link #shortDirectory}, measures, tears the
     * bed down and deletes its files: the disk holds a few copies of the largest state, one run's
     * at a time.
     */
    static <T> T runOnce(BedSystem system, Settings settings, Measurement<T> measurement)
            throws Exception {
        Path directory = shortDirectory();
        try (BedNbq8 bed = start(system, settings, directory)) {
            return measurement.measure(bed);
        } finally {
            org.apache.flink.util.FileUtils.deleteDirectory(directory.toFile());
        }
    }

    /** Brings up a bed for {@code system} with its files under {@code directory}. */
    static BedNbq8 start(BedSystem system, Settings settings, Path directory) throws Exception {
        Configuration common = new Configuration();
        common.setString("taskmanager.numberOfTaskSlots", "2");
        common.setString("taskmanager.load-balance.mode", "SLOTS");
        common.setString("taskmanager.memory.process.size", settings.taskManagerMemory());
        common.setString("taskmanager.memory.managed.size", settings.managedMemory());
        InitializationSpans.registerFile(common, spans(directory));
        // Flink's REST API serves a job's details from a cache refreshed this often (default 3 s):
        // the tasks' states are polled through it
        common.setString("web.refresh-interval", "100ms");
        // and metrics it fetched at most this often (default 10 s): Rhino's byte counters are read
        // right after a reconfiguration
        common.setString("metrics.fetcher.update-interval", "1000");
        system.clusterOptions(common);
        BedCluster hosts =
                BedCluster.start(
                        directory,
                        common,
                        (index, config) ->
                                config.set(
                                        RhinoOptions.REPLICATION_DIR,
                                        directory.resolve("replicas-" + index).toString()));
        try {
            LatencyRecorder latency = LatencyRecorder.startingNow();
            LatencySpillReader reader = LatencySpillReader.start(latencies(directory), latency);
            return new BedNbq8(system, settings, directory, hosts, latency, reader);
        } catch (Exception | Error e) {
            hosts.close();
            throw e;
        }
    }

    BedCluster hosts() {
        return hosts;
    }

    LatencyRecorder latency() {
        return latency;
    }

    /** Flink's reports of the job initializations so far. */
    java.util.List<InitializationSpans.Report> initializations() throws Exception {
        return InitializationSpans.readFile(spans(directory));
    }

    /**
     * Submits NBQ8 with the join at {@code parallelism} subtasks ({@code active} of them owning
     * vnodes under Rhino), with {@code extra} options on top of the system's.
     */
    BedJob submit(int parallelism, int active, Configuration extra) throws Exception {
        Configuration config = jobConfig();
        config.addAll(extra);
        StreamExecutionEnvironment env = hosts.cluster().environment(config);
        env.setParallelism(parallelism);
        Keying keying = new Keying(system.variant(), parallelism, settings.vnodes(), active);
        QueryJobs.addPacedNbq8(
                env,
                settings.workload(),
                keying,
                settings.eventsPerSecond(),
                inputStartMillis,
                latencies(directory));
        JobClient client = env.executeAsync("nbq8-" + system.wireName());
        return new BedJob(hosts.cluster(), client.getJobID().toString());
    }

    /**
     * Waits until {@code job} filled its state, caught up with the fill's backlog and completed
     * {@link Settings#checkpointsBefore} more checkpoints; returns the latest one's full size.
     */
    long awaitFilledAndSteady(BedJob job) throws Exception {
        job.awaitFill(InJobFill.SOURCE_PREFIX, system.wireName(), FILL_TIMEOUT);
        Backlog.awaitCaughtUp(
                system.wireName() + ": the backlog of the fill",
                latency,
                CAUGHT_UP_P99,
                Duration.ofMinutes(15));
        long completed = job.completedCheckpoints();
        job.awaitCompletedCheckpoints(
                completed + settings.checkpointsBefore(), Duration.ofMinutes(10));
        return job.latestCheckpointStateSize();
    }

    /** Waits until three seconds in a row had a p99 latency under a second; returns when. */
    long awaitCaughtUp(String what, Duration timeout) throws InterruptedException {
        return Backlog.awaitCaughtUp(
                        system.wireName() + ": " + what, latency, CAUGHT_UP_P99, timeout)
                .orElseThrow(
                        () ->
                                new IllegalStateException(
                                        system.wireName() + " did not catch up within " + timeout));
    }

    /** Bytes on each host's link since {@code before}. */
    Map<String, LinkCounters> crossedSince(Map<String, LinkCounters> before) throws Exception {
        Map<String, LinkCounters> difference = new LinkedHashMap<>();
        hosts.bed()
                .counters()
                .forEach(
                        (host, counters) -> difference.put(host, counters.minus(before.get(host))));
        return difference;
    }

    /** Rhino's REST API on the JobManager's host. */
    JsonHttp rhinoRest() {
        return new JsonHttp(
                "http://" + hosts.cluster().jobManagerAddress() + ":" + BedCluster.RHINO_REST_PORT);
    }

    /** Rhino's view of an operator ({@code GET .../operators/{operator}}). */
    JsonNode rhinoOperator(String jobId, String operator) throws Exception {
        return rhinoRest().get("/rhino/v1/jobs/" + jobId + "/operators/" + operator);
    }

    /** The checkpoint (and savepoint) directory of this system's jobs in HDFS. */
    String storagePath(String name) {
        return hosts.hdfs().uri() + "/" + system.wireName() + "-" + name;
    }

    private Configuration jobConfig() {
        Configuration config = new Configuration();
        config.set(PipelineOptions.GENERIC_TYPES, false);
        config.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, true);
        config.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, settings.checkpointInterval());
        config.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, storagePath("checkpoints"));
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

    /**
     * A fresh directory for one run with a short path: RocksDB names its log file after the
     * instance's whole path, and a Flink rescale restores through a temporary instance whose name
     * adds a second UUID, so a run under a long directory (JUnit's temporary one) fails with "File
     * name too long".
     */
    static Path shortDirectory() throws java.io.IOException {
        Path base = Path.of(System.getProperty("java.io.tmpdir"));
        for (int n = 0; ; n++) {
            Path candidate = base.resolve("rb" + n);
            try {
                return java.nio.file.Files.createDirectory(candidate);
            } catch (java.nio.file.FileAlreadyExistsException taken) {
                // another run's, or a killed one's: try the next
            }
        }
    }

    private static Path spans(Path directory) {
        return directory.resolve("initializations.jsonl");
    }

    private static Path latencies(Path directory) {
        return directory.resolve("latencies");
    }

    @Override
    public void close() throws Exception {
        try {
            reader.close();
        } finally {
            hosts.close();
        }
    }
}
