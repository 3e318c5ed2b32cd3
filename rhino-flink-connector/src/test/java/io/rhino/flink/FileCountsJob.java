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

package io.rhino.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.rhino.flink.api.RhinoKeyedStreamOptions;
import io.rhino.flink.api.RhinoStreams;
import io.rhino.flink.cluster.ProcessCluster;
import io.rhino.flink.testjobs.FileReleasedRate;
import io.rhino.flink.testjobs.QuietPhase;
import io.rhino.flink.testjobs.ShapeFunctions;
import io.rhino.flink.testjobs.SkewedEvents;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.apache.flink.api.common.serialization.SimpleStringEncoder;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.file.sink.FileSink;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.filesystem.rollingpolicies.OnCheckpointRollingPolicy;

/**
 * The process-cluster tests' job: counts per key of skewed events at a fixed rate (until the test
 * {@linkplain #releaseInput releases} the rest of the input) on a Rhino operator, written by a file
 * sink that commits on checkpoints (so the committed lines are exactly-once across failures), and
 * plain Flink's output of the same events as the reference.
 */
record FileCountsJob(
        String operator,
        int parallelism,
        int vnodes,
        long events,
        int keys,
        double perSecond,
        boolean history,
        QuietPhase quiet) {

    FileCountsJob(
            String operator, int parallelism, int vnodes, long events, int keys, double perSecond) {
        this(operator, parallelism, vnodes, events, keys, perSecond, false, QuietPhase.NONE);
    }

    /**
     * The same job keeping about 100 bytes of state per event ({@link
     * ShapeFunctions.CountPerKeyWithHistory}), for tests that measure bytes moved.
     */
    FileCountsJob withHistory() {
        return new FileCountsJob(
                operator, parallelism, vnodes, events, keys, perSecond, true, quiet);
    }

    /** The same job with every event of {@code phase} on one key, its other vnodes idle. */
    FileCountsJob withQuietPhase(QuietPhase phase) {
        return new FileCountsJob(
                operator, parallelism, vnodes, events, keys, perSecond, history, phase);
    }

    private ShapeFunctions.CountPerKey function() {
        return history
                ? new ShapeFunctions.CountPerKeyWithHistory()
                : new ShapeFunctions.CountPerKey();
    }

    /** Submits the job with {@code config} to {@code cluster}, writing under {@code output}. */
    JobClient submit(ProcessCluster cluster, Configuration config, Path output, String jobName)
            throws Exception {
        StreamExecutionEnvironment env = cluster.environment(config);
        env.setParallelism(parallelism);
        RhinoStreams.keyBy(
                        SkewedEvents.stream(
                                        env,
                                        events,
                                        keys,
                                        new FileReleasedRate(inputReleaseMarker(output), perSecond))
                                .map(quiet)
                                .setParallelism(1),
                        new ShapeFunctions.ByKey(),
                        RhinoKeyedStreamOptions.builder(operator).vnodes(vnodes).build())
                .process(function())
                .sinkTo(
                        FileSink.forRowFormat(
                                        new org.apache.flink.core.fs.Path(output.toUri()),
                                        new SimpleStringEncoder<String>())
                                .withRollingPolicy(OnCheckpointRollingPolicy.build())
                                .build());
        return env.executeAsync(jobName);
    }

    /**
     * Lets the rest of the input of the job writing under {@code output} go at full speed: a test
     * calls it once its checks of the running job are done, so the job ends without reading on at
     * the test's rate.
     */
    static void releaseInput(Path output) {
        FileReleasedRate.release(inputReleaseMarker(output));
    }

    private static Path inputReleaseMarker(Path output) {
        return output.resolveSibling(output.getFileName() + ".input-released");
    }

    /** Plain Flink's output lines for the same events. */
    List<String> plainFlinkLines() throws Exception {
        return SkewedCountsJob.plainFlink(
                operator + "-plain-" + UUID.randomUUID(),
                events,
                parallelism,
                keys,
                function(),
                quiet);
    }

    /**
     * Process-cluster options for these tests: two slots per TaskManager, subtasks spread over the
     * TaskManagers (one gate per TaskManager, so a crash takes one subtask's vnodes with it), and
     * metrics fetched every second for the REST checks.
     */
    static Configuration oneSubtaskPerTaskManager() {
        Configuration common = new Configuration();
        common.setString("taskmanager.numberOfTaskSlots", "2");
        common.setString("taskmanager.load-balance.mode", "SLOTS");
        common.setString("metrics.fetcher.update-interval", "1000");
        return common;
    }

    /** Waits until the job finished, failing fast if it failed or was cancelled. */
    static void awaitFinished(ProcessCluster cluster, String jobId, Duration timeout)
            throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        String status = "";
        while (System.nanoTime() < deadline) {
            status = cluster.jobStatus(jobId);
            if (status.equals("FINISHED")) {
                return;
            }
            assertThat(status).as("job status").isNotIn("FAILED", "CANCELED");
            Thread.sleep(500);
        }
        throw new AssertionError("Job " + jobId + " not finished after " + timeout + ": " + status);
    }
}
