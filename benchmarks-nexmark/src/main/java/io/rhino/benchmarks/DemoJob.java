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

package io.rhino.benchmarks;

import io.rhino.benchmarks.SlidingWindowJob.Mode;
import io.rhino.flink.config.RhinoOptions;
import io.rhino.flink.state.RhinoStateBackendFactory;
import io.rhino.flink.state.VnodeCheckpointInspector;
import io.rhino.flink.state.VnodeCheckpointInspector.VnodeState;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.runtime.clusterframework.ApplicationStatus;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobmaster.JobResult;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The demo: a keyed sliding-window job on a Rhino keyed stream, on an embedded cluster of two
 * TaskManagers with two slots each and the Rhino state backend. It prints window results as they
 * arrive, cancels the job after a while, and prints which subtask held which vnode, and how many
 * bytes of state each vnode had, in the job's last checkpoint.
 *
 * <p>Run it with {@code mvn -B -ntp -Pdemo -pl benchmarks-nexmark -am verify -DskipTests}; {@code
 * --help} lists the flags.
 */
public final class DemoJob {

    private static final Logger LOG = LoggerFactory.getLogger(DemoJob.class);

    /** Window results of the running job (the cluster runs in this JVM). */
    static final Queue<WindowResult> RESULTS = new ConcurrentLinkedQueue<>();

    private static final int SAMPLE_LINES = 10;

    private DemoJob() {}

    public static void main(String[] argv) {
        int exitCode;
        try {
            run(argv);
            exitCode = 0;
        } catch (IllegalArgumentException e) {
            LOG.error("{}", e.getMessage());
            exitCode = 2;
        } catch (Throwable t) {
            LOG.error("Demo failed: {}", t.toString(), t);
            exitCode = 1;
        }
        // Flink leaves non-daemon threads behind; end the JVM with the demo's verdict.
        System.exit(exitCode);
    }

    static void run(String[] argv) throws Exception {
        Args args =
                new Args("DemoJob")
                        .flag("seconds", 20, "how long the job runs before it is cancelled")
                        .flag("rate", 10_000, "events per second from the generator")
                        .flag("keys", 10_000, "distinct keys")
                        .flag("parallelism", 3, "parallelism of the Rhino keyed window")
                        .flag("vnodes", 12, "vnodes of the Rhino keyed window")
                        .flag("checkpoint-interval", 2000, "checkpoint interval in ms");
        if (!args.parse(argv)) {
            return;
        }
        int seconds = args.getInt("seconds", 1);
        int rate = args.getInt("rate", 1);
        int parallelism = args.getInt("parallelism", 1);
        if (parallelism > 4) {
            throw new IllegalArgumentException(
                    "--parallelism must be at most 4 (the cluster has 4 slots).");
        }
        SlidingWindowJob.Spec spec =
                new SlidingWindowJob.Spec(
                        Mode.RHINO,
                        Long.MAX_VALUE,
                        args.getInt("keys", 1),
                        rate, // event time advances like wall-clock time
                        rate,
                        parallelism,
                        args.getInt("vnodes", 1),
                        RhinoOptions.KEY_GROUPS.defaultValue());

        Path workDir = Files.createTempDirectory("rhino-demo-");
        Path checkpointDir = workDir.resolve("checkpoints");
        try {
            try (EmbeddedCluster cluster = EmbeddedCluster.start(2, 2, workDir.resolve("tmp"))) {
                LOG.info(
                        "Embedded cluster up: 2 TaskManagers x 2 slots. Job: {} events/s over {}"
                                + " keys, count and sum per key over {} s windows sliding by {}"
                                + " s, Rhino parallelism {} with {} vnodes, checkpoints every {}"
                                + " ms to {}",
                        rate,
                        spec.keys(),
                        SlidingWindowJob.WINDOW_SIZE.toSeconds(),
                        SlidingWindowJob.WINDOW_SLIDE.toSeconds(),
                        spec.parallelism(),
                        spec.vnodes(),
                        args.getInt("checkpoint-interval", 100),
                        checkpointDir);
                Configuration jobConfig = new Configuration();
                jobConfig.set(
                        StateBackendOptions.STATE_BACKEND,
                        RhinoStateBackendFactory.class.getName());
                jobConfig.set(
                        CheckpointingOptions.CHECKPOINTING_INTERVAL,
                        Duration.ofMillis(args.getInt("checkpoint-interval", 100)));
                jobConfig.set(
                        CheckpointingOptions.CHECKPOINTS_DIRECTORY,
                        checkpointDir.toUri().toString());
                jobConfig.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, true);
                jobConfig.set(
                        CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
                        ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
                StreamExecutionEnvironment env =
                        StreamExecutionEnvironment.getExecutionEnvironment(jobConfig);
                SlidingWindowJob.build(env, spec)
                        .sinkTo(new QueueSink())
                        .name("collect")
                        .setParallelism(1);
                JobGraph jobGraph = EmbeddedCluster.jobGraph(env);
                Map<String, String> operatorNames = EmbeddedCluster.operatorNames(jobGraph);

                RESULTS.clear();
                JobID jobId = cluster.submit(jobGraph);
                long completedCheckpoints = runThenCancel(cluster, jobId, seconds);

                Path metadata =
                        latestCheckpoint(checkpointDir.resolve(jobId.toHexString()))
                                .orElseThrow(
                                        () ->
                                                new IllegalStateException(
                                                        "No completed checkpoint was retained"
                                                                + " under "
                                                                + checkpointDir
                                                                + " ("
                                                                + completedCheckpoints
                                                                + " completed)"));
                printVnodes(metadata, operatorNames, spec);
            }
        } finally {
            EmbeddedCluster.deleteRecursively(workDir);
            LOG.info("Deleted {}", workDir);
        }
    }

    /**
     * Follows the running job for {@code seconds}, then cancels it.
     *
     * @return the number of completed checkpoints
     */
    private static long runThenCancel(EmbeddedCluster cluster, JobID jobId, int seconds)
            throws Exception {
        try {
            cluster.awaitRunning(jobId, Duration.ofMinutes(1));
            LOG.info("Job {} running; showing the first {} window results", jobId, SAMPLE_LINES);
            long followed = follow(cluster, jobId, seconds);
            long completedCheckpoints =
                    followed > 0 ? followed : awaitFirstCheckpoint(cluster, jobId);

            LOG.info("Cancelling job {} after {} s", jobId, seconds);
            cluster.miniCluster().cancelJob(jobId).get(1, TimeUnit.MINUTES);
            JobResult result = cluster.awaitResult(jobId, Duration.ofMinutes(1));
            if (result.getApplicationStatus() != ApplicationStatus.CANCELED) {
                throw new IllegalStateException(
                        "The job ended as "
                                + result.getApplicationStatus()
                                + " instead of being cancelled",
                        result.getSerializedThrowable()
                                .map(t -> t.deserializeError(DemoJob.class.getClassLoader()))
                                .orElse(null));
            }
            LOG.info("Job {} ended as {}", jobId, result.getApplicationStatus());
            return completedCheckpoints;
        } catch (Exception e) {
            cancelQuietly(cluster, jobId);
            throw e;
        }
    }

    private static void cancelQuietly(EmbeddedCluster cluster, JobID jobId) {
        try {
            if (!cluster.miniCluster()
                    .getJobStatus(jobId)
                    .get(10, TimeUnit.SECONDS)
                    .isTerminalState()) {
                cluster.miniCluster().cancelJob(jobId).get(10, TimeUnit.SECONDS);
                cluster.awaitResult(jobId, Duration.ofSeconds(30));
            }
        } catch (Exception e) {
            LOG.warn("Could not cancel job {}: {}", jobId, e.toString());
        }
    }

    /**
     * Prints window results while the job runs: the first few lines, then one line per second.
     *
     * @return the number of completed checkpoints
     */
    private static long follow(EmbeddedCluster cluster, JobID jobId, int seconds) throws Exception {
        long start = System.nanoTime();
        long results = 0;
        long checkpoints = 0;
        WindowResult latest = null;
        for (int second = 1; second <= seconds; second++) {
            long nextSecond = start + TimeUnit.SECONDS.toNanos(second);
            while (System.nanoTime() < nextSecond) {
                WindowResult result = RESULTS.poll();
                if (result == null) {
                    Thread.sleep(10);
                    continue;
                }
                results++;
                latest = result;
                if (results <= SAMPLE_LINES) {
                    LOG.info("  {}", result);
                }
            }
            JobStatus status = cluster.miniCluster().getJobStatus(jobId).get(1, TimeUnit.MINUTES);
            if (status != JobStatus.RUNNING) {
                throw new IllegalStateException(
                        "Job "
                                + jobId
                                + " is "
                                + status
                                + " after "
                                + second
                                + " s; see the log above");
            }
            checkpoints = completedCheckpoints(cluster, jobId);
            LOG.info(
                    "[{} s] {} window results so far, checkpoints completed: {}{}",
                    String.format("%2d", second),
                    String.format("%,9d", results),
                    checkpoints,
                    latest == null ? "" : "; latest: " + latest);
        }
        if (results == 0) {
            throw new IllegalStateException(
                    "No window fired in " + seconds + " s; run longer with --seconds");
        }
        return checkpoints;
    }

    private static long awaitFirstCheckpoint(EmbeddedCluster cluster, JobID jobId)
            throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        LOG.info("Waiting for a first completed checkpoint");
        while (System.nanoTime() < deadline) {
            long completed = completedCheckpoints(cluster, jobId);
            if (completed > 0) {
                return completed;
            }
            RESULTS.clear();
            Thread.sleep(100);
        }
        throw new IllegalStateException("No checkpoint completed within 60 s");
    }

    private static long completedCheckpoints(EmbeddedCluster cluster, JobID jobId)
            throws Exception {
        return cluster.miniCluster()
                .getExecutionGraph(jobId)
                .get(1, TimeUnit.MINUTES)
                .getCheckpointStatsSnapshot()
                .getCounts()
                .getNumberOfCompletedCheckpoints();
    }

    /** The {@code _metadata} file of the highest {@code chk-N} under the job's directory. */
    static Optional<Path> latestCheckpoint(Path jobCheckpointDir) throws IOException {
        if (!Files.isDirectory(jobCheckpointDir)) {
            return Optional.empty();
        }
        try (Stream<Path> dirs = Files.list(jobCheckpointDir)) {
            return dirs.filter(dir -> dir.getFileName().toString().matches("chk-\\d+"))
                    .filter(dir -> Files.isRegularFile(dir.resolve("_metadata")))
                    .max((a, b) -> Long.compare(checkpointNumber(a), checkpointNumber(b)))
                    .map(dir -> dir.resolve("_metadata"));
        }
    }

    private static long checkpointNumber(Path dir) {
        return Long.parseLong(dir.getFileName().toString().substring("chk-".length()));
    }

    private static void printVnodes(
            Path metadata, Map<String, String> operatorNames, SlidingWindowJob.Spec spec)
            throws IOException {
        SortedMap<String, SortedMap<Integer, VnodeState>> byOperator =
                VnodeCheckpointInspector.read(metadata);
        LOG.info("Vnodes in checkpoint {}", metadata.getParent().getFileName());
        if (byOperator.isEmpty()) {
            throw new IllegalStateException("The checkpoint " + metadata + " has no Rhino vnodes");
        }
        for (Map.Entry<String, SortedMap<Integer, VnodeState>> operator : byOperator.entrySet()) {
            String id = operator.getKey();
            LOG.info("operator {} ({})", id, operatorNames.getOrDefault(id, "unknown operator"));
            List<String> table = new ArrayList<>();
            table.add(
                    String.format(
                            "  %-32s %5s %7s %12s",
                            "operator id", "vnode", "subtask", "state bytes"));
            SortedMap<Integer, long[]> bySubtask = new TreeMap<>();
            long total = 0;
            for (VnodeState vnode : operator.getValue().values()) {
                table.add(
                        String.format(
                                "  %-32s %5d %7d %,12d",
                                id, vnode.vnode(), vnode.subtask(), vnode.stateBytes()));
                long[] sums = bySubtask.computeIfAbsent(vnode.subtask(), s -> new long[2]);
                sums[0]++;
                sums[1] += vnode.stateBytes();
                total += vnode.stateBytes();
            }
            table.add("  per subtask:");
            bySubtask.forEach(
                    (subtask, sums) ->
                            table.add(
                                    String.format(
                                            "  subtask %d: %2d vnodes %,14d bytes",
                                            subtask, sums[0], sums[1])));
            table.add(
                    String.format(
                            "  total:     %2d vnodes %,14d bytes",
                            operator.getValue().size(), total));
            table.forEach(line -> LOG.info("{}", line));
            if (operator.getValue().size() != spec.vnodes()) {
                throw new IllegalStateException(
                        "Expected "
                                + spec.vnodes()
                                + " vnodes in the checkpoint, found "
                                + operator.getValue().size());
            }
        }
    }

    /** Writes window results into {@link #RESULTS}. */
    static final class QueueSink implements Sink<WindowResult> {
        private static final long serialVersionUID = 1L;

        @Override
        public SinkWriter<WindowResult> createWriter(WriterInitContext context) {
            return new SinkWriter<>() {
                @Override
                public void write(WindowResult element, Context ctx) {
                    RESULTS.add(element);
                }

                @Override
                public void flush(boolean endOfInput) {}

                @Override
                public void close() {}
            };
        }
    }
}
