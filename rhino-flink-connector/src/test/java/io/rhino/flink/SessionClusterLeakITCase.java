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

import io.rhino.core.handover.VnodeMove;
import io.rhino.core.routing.RoutingTable;
import io.rhino.flink.coordination.RhinoHandovers;
import io.rhino.flink.handover.LocalDirectoryStateTransfer;
import io.rhino.flink.testjobs.CheckpointFiles;
import io.rhino.flink.testjobs.ResultSink;
import io.rhino.flink.testjobs.TestPipelines;
import io.rhino.flink.testjobs.TestPipelines.Input;
import io.rhino.flink.testjobs.TestPipelines.Mode;
import io.rhino.flink.testjobs.TestPipelines.RhinoSetup;
import io.rhino.handover.HandoverManager;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.ClusterOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A session cluster runs job after job: 20 Rhino jobs submitted, moved around and cancelled on one
 * MiniCluster leave no Rhino thread, no thread holding a job's class loader, no vnode export and no
 * checkpoint file behind.
 */
class SessionClusterLeakITCase {

    private static final Path WORKING_DIRECTORIES = temporaryDirectory();

    @RegisterExtension
    static final MiniClusterExtension CLUSTER =
            RhinoClusters.twoTaskManagers(
                    new Configuration()
                            .set(
                                    ClusterOptions.PROCESS_WORKING_DIR_BASE,
                                    WORKING_DIRECTORIES.toString()));

    private static final int JOBS = 20;

    /**
     * Flink's threads that keep a finished job's class loader as context class loader: the datagen
     * source's rate limiter (one per source reader, never stopped) and the shuffle's Netty client
     * (created by the first job, shared by all).
     */
    private static final Set<String> FLINK_THREADS =
            Set.of("flink-rate-limiter-thread-#", "Flink Netty Client (#) Thread #");

    @TempDir Path checkpoints;

    @Test
    @Timeout(600)
    void jobsSubmittedMovedAndCancelledLeaveNothingBehind(
            @InjectMiniCluster MiniCluster miniCluster) throws Exception {
        for (int job = 0; job < JOBS; job++) {
            runAndCancel(miniCluster, Mode.RHINO);
        }

        awaitNoThreads("Rhino threads", SessionClusterLeakITCase::isRhinoThread);
        awaitNoThreads(
                "threads other than Flink's own " + FLINK_THREADS + " holding a job's class loader",
                thread -> holdsUserClassLoader(thread) && !FLINK_THREADS.contains(name(thread)));
        assertThat(exportsUnder(WORKING_DIRECTORIES)).as("vnode exports left").isEmpty();
        // Flink deletes a cancelled job's checkpoints in the background, after the job ended
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!CheckpointFiles.under(checkpoints).isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertThat(CheckpointFiles.under(checkpoints)).as("checkpoint files left").isEmpty();
    }

    private void runAndCancel(MiniCluster miniCluster, Mode mode) throws Exception {
        JobClient job = submit("leak-" + UUID.randomUUID(), mode);
        JobID jobId = job.getJobID();
        if (mode == Mode.RHINO) {
            moveOneVnode(jobId);
        }
        // Checkpoints on demand, none in flight at the cancellation: Flink itself leaves the files
        // of a checkpoint that a cancellation aborts half-written (seen with plain jobs too).
        for (int checkpoint = 0; checkpoint < 2; checkpoint++) {
            RhinoClusters.checkpoint(miniCluster, jobId);
        }
        job.cancel().get(60, TimeUnit.SECONDS);
        while (!miniCluster.getJobStatus(jobId).get().isGloballyTerminalState()) {
            Thread.sleep(20);
        }
    }

    private static void moveOneVnode(JobID jobId) throws Exception {
        HandoverManager manager =
                RhinoHandovers.awaitReady(jobId, "process", Duration.ofSeconds(60));
        RoutingTable table = manager.routingTable();
        int from = table.ownerOf(0);
        assertThat(
                        manager.handover(
                                        List.of(
                                                new VnodeMove(
                                                        0, from, (from + 1) % table.parallelism())))
                                .get(60, TimeUnit.SECONDS)
                                .isCompleted())
                .isTrue();
    }

    private JobClient submit(String runId, Mode mode) throws Exception {
        Configuration config = RhinoClusters.jobConfig(mode);
        RhinoClusters.withCheckpoints(config, checkpoints, Duration.ofHours(1));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        env.setParallelism(3);
        TestPipelines.build(
                        env,
                        mode,
                        new Input(1_000_000, 97, 1_000, 2),
                        new RhinoSetup(
                                8, 3, new LocalDirectoryStateTransfer(), Duration.ofSeconds(30)),
                        events -> events)
                .sinkTo(new ResultSink(runId));
        return env.executeAsync(runId);
    }

    /** Threads end shortly after their job: waits a while before reporting those left. */
    private static void awaitNoThreads(String what, java.util.function.Predicate<Thread> filter)
            throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        List<Thread> left = threads(filter);
        while (!left.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(100);
            left = threads(filter);
        }
        assertThat(
                        left.stream()
                                .map(t -> t.getName() + " (" + t.getContextClassLoader() + ")")
                                .toList())
                .as(what)
                .isEmpty();
    }

    private static List<Thread> threads(java.util.function.Predicate<Thread> filter) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(Thread::isAlive)
                .filter(filter)
                .toList();
    }

    /** A thread's name without numbers: the same component's threads across jobs. */
    private static String name(Thread thread) {
        return thread.getName().replaceAll("[0-9]+", "#");
    }

    private static boolean isRhinoThread(Thread thread) {
        return thread.getName().toLowerCase(java.util.Locale.ROOT).contains("rhino");
    }

    private static boolean holdsUserClassLoader(Thread thread) {
        ClassLoader loader = thread.getContextClassLoader();
        return loader != null && loader.getClass().getName().contains("UserCodeClassLoader");
    }

    private static Set<Path> exportsUnder(Path directory) throws IOException {
        try (Stream<Path> paths = Files.walk(directory)) {
            return paths.filter(
                            path ->
                                    path.getParent() != null
                                            && path.getParent()
                                                    .getFileName()
                                                    .toString()
                                                    .equals("rhino-transfer"))
                    .collect(Collectors.toSet());
        }
    }

    private static Path temporaryDirectory() {
        try {
            Path directory = Files.createTempDirectory("rhino-session-cluster");
            directory.toFile().deleteOnExit();
            return directory;
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
