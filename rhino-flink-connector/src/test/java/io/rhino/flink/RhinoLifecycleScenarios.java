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

import io.rhino.core.handover.InvalidHandoverException;
import io.rhino.core.handover.VnodeMove;
import io.rhino.core.routing.RoutingTable;
import io.rhino.flink.coordination.RhinoHandovers;
import io.rhino.flink.handover.LocalDirectoryStateTransfer;
import io.rhino.flink.testjobs.CheckpointFiles;
import io.rhino.flink.testjobs.FailOnDemand;
import io.rhino.flink.testjobs.FailingOnceStateTransfer;
import io.rhino.flink.testjobs.Multisets;
import io.rhino.flink.testjobs.ReleasableRate;
import io.rhino.flink.testjobs.ResultSink;
import io.rhino.flink.testjobs.TestPipelines;
import io.rhino.flink.testjobs.TestPipelines.Input;
import io.rhino.flink.testjobs.TestPipelines.Mode;
import io.rhino.flink.testjobs.TestPipelines.RhinoSetup;
import io.rhino.flink.testjobs.Throttle;
import io.rhino.flink.testjobs.Upserts;
import io.rhino.handover.HandoverManager;
import io.rhino.handover.HandoverRejectedException;
import io.rhino.handover.HandoverResult;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.util.FileUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Handovers around what every Flink user does: savepoints, task failures after a handover, and
 * handover requests while the job restarts. Each run's output, read as an idempotent sink would
 * store it, equals plain Flink's. Subclasses run them on a cluster of their own configuration and
 * check what that configuration adds after a recovery and once a job ended.
 */
abstract class RhinoLifecycleScenarios {

    private static final Input INPUT = new Input(12_000, 97, 1_000, 2);
    private static final String OPERATOR = "process";

    @TempDir Path checkpoints;
    @TempDir Path savepoints;
    @TempDir Path relocated;

    /**
     * A savepoint, native or canonical, neither blocks handovers (Flink never notifies it as
     * complete) nor loses its files to Rhino's checkpoint cleanup, and restores after it was moved
     * elsewhere.
     */
    @ParameterizedTest
    @EnumSource(SavepointFormatType.class)
    @Timeout(240)
    void savepointThenHandoverThenCheckpointsThenRestoreFromTheMovedSavepoint(
            SavepointFormatType format, @InjectMiniCluster MiniCluster miniCluster)
            throws Exception {
        withoutFailover("a restore from a savepoint");
        Map<String, String> reference =
                Upserts.of(RhinoEquivalenceITCase.run(Mode.PLAIN, INPUT.unlimited(), 8));

        String firstRun = "savepoint-first-" + UUID.randomUUID();
        JobClient first = submit(firstRun, rhinoConfig(Duration.ofMillis(200)), events -> events);
        JobID firstId = first.getJobID();
        HandoverManager manager =
                RhinoHandovers.awaitReady(firstId, OPERATOR, Duration.ofSeconds(60));
        Thread.sleep(1_500); // state and a few checkpoints build up

        String savepoint =
                miniCluster
                        .triggerSavepoint(firstId, savepoints.toUri().toString(), false, format)
                        .get(60, TimeUnit.SECONDS);
        HandoverResult moved =
                manager.handover(moves(manager.routingTable(), 3)).get(30, TimeUnit.SECONDS);
        assertThat(moved.outcome())
                .as("handover after a savepoint: %s", moved.failureCause())
                .isEqualTo(HandoverResult.Outcome.COMPLETED);
        long checkpointsBefore = RhinoClusters.completedCheckpoints(miniCluster, firstId);
        // retained checkpoints roll over (old files get deleted), unless the input ends first
        while (RhinoClusters.completedCheckpoints(miniCluster, firstId) < checkpointsBefore + 4
                && !isTerminal(miniCluster, firstId)) {
            Thread.sleep(100);
        }
        assertThat(RhinoClusters.completedCheckpoints(miniCluster, firstId))
                .as("checkpoints after the savepoint")
                .isGreaterThan(checkpointsBefore);
        if (!isTerminal(miniCluster, firstId)) {
            first.cancel().get(60, TimeUnit.SECONDS);
        }
        while (!isTerminal(miniCluster, firstId)) {
            Thread.sleep(50);
        }

        Path savepointDir = Path.of(java.net.URI.create(savepoint));
        Path movedSavepoint = relocated.resolve("moved-savepoint");
        FileUtils.copy(
                new org.apache.flink.core.fs.Path(savepointDir.toUri()),
                new org.apache.flink.core.fs.Path(movedSavepoint.toUri()),
                false);
        FileUtils.deleteDirectory(savepointDir.toFile());
        assertThat(savepointDir).doesNotExist();

        String secondRun = "savepoint-second-" + UUID.randomUUID();
        Configuration restore = rhinoConfig(Duration.ofMillis(200));
        restore.set(StateRecoveryOptions.SAVEPOINT_PATH, movedSavepoint.toUri().toString());
        JobClient second = submit(secondRun, restore, events -> events);
        second.getJobExecutionResult().get(180, TimeUnit.SECONDS);
        afterJobEnded(firstId);
        afterJobEnded(second.getJobID());

        List<String> lines = new ArrayList<>(ResultSink.take(firstRun));
        lines.addAll(ResultSink.take(secondRun));
        assertThat(Upserts.of(lines)).isEqualTo(reference);
    }

    /**
     * A task fails after a handover completed and before the next checkpoint: Flink restores the
     * checkpoint taken before the handover, the manager follows the restored routers, and later
     * handovers succeed.
     */
    @Test
    @Timeout(240)
    void failureAfterAnUncheckpointedHandoverThenMoreHandovers(
            @InjectMiniCluster MiniCluster miniCluster) throws Exception {
        Map<String, String> reference =
                Upserts.of(RhinoEquivalenceITCase.run(Mode.PLAIN, INPUT.unlimited(), 8));
        String runId = "uncheckpointed-" + UUID.randomUUID();
        // checkpoints far apart: the failure lands between the handover and the next one
        JobClient job =
                submit(
                        runId,
                        rhinoConfig(Duration.ofSeconds(4)),
                        events -> events.map(new FailOnDemand<>(runId)));
        JobID jobId = job.getJobID();
        HandoverManager manager =
                RhinoHandovers.awaitReady(jobId, OPERATOR, Duration.ofSeconds(60));
        long completed = RhinoClusters.completedCheckpoints(miniCluster, jobId);
        while (RhinoClusters.completedCheckpoints(miniCluster, jobId) == completed) {
            Thread.sleep(20);
        }
        RoutingTable checkpointed = manager.routingTable();

        HandoverResult moved = manager.handover(moves(checkpointed, 3)).get(30, TimeUnit.SECONDS);
        assertThat(moved.outcome()).isEqualTo(HandoverResult.Outcome.COMPLETED);
        FailOnDemand.arm(runId);

        manager = RhinoClusters.awaitRecovered(jobId, OPERATOR, runId);
        afterRecovery(jobId);
        assertThat(manager.routingTable())
                .as("the table the restarted routers route by, from before the handover")
                .isEqualTo(checkpointed);
        for (int i = 0; i < 3; i++) {
            HandoverResult next =
                    manager.handover(moves(manager.routingTable(), 2)).get(30, TimeUnit.SECONDS);
            assertThat(next.outcome())
                    .as("handover %s after the failover: %s", i, next.failureCause())
                    .isEqualTo(HandoverResult.Outcome.COMPLETED);
        }
        job.getJobExecutionResult().get(180, TimeUnit.SECONDS);
        afterJobEnded(jobId);

        assertThat(FailOnDemand.failures(runId)).isEqualTo(1);
        assertThat(Upserts.of(ResultSink.take(runId))).isEqualTo(reference);
    }

    /**
     * A client keeps requesting handovers while a task fails and the job restarts: requests that
     * cannot run are refused, retryably, and none of them fails the job again (it has a single
     * restart to spare).
     */
    @Test
    @Timeout(240)
    void handoverRequestsWhileTheJobRestartsAreRefusedNeverFatal() throws Exception {
        restoreCoveredByAnotherScenario("handover requests while the job restarts");
        Map<String, String> reference =
                Upserts.of(RhinoEquivalenceITCase.run(Mode.PLAIN, INPUT.unlimited(), 8));
        String runId = "restart-requests-" + UUID.randomUUID();
        JobClient job =
                submit(
                        runId,
                        rhinoConfig(Duration.ofMillis(300)),
                        events -> events.map(new FailOnDemand<>(runId)));
        JobID jobId = job.getJobID();
        RhinoHandovers.awaitReady(jobId, OPERATOR, Duration.ofSeconds(60));
        Thread.sleep(1_000);

        RequestingClient client = RequestingClient.start(jobId);
        Thread.sleep(500);
        FailOnDemand.arm(runId);
        RhinoClusters.awaitRecovered(jobId, OPERATOR, runId);
        Thread.sleep(1_000);
        client.stop();
        job.getJobExecutionResult().get(180, TimeUnit.SECONDS);
        afterJobEnded(jobId);

        assertThat(client.unexpected)
                .as("request outcomes other than completed or refused")
                .isEmpty();
        assertThat(client.refused.get()).as("requests refused while restarting").isPositive();
        assertThat(client.completed.get())
                .as("handovers completed around the restart")
                .isPositive();
        assertThat(FailOnDemand.failures(runId)).isEqualTo(1);
        assertThat(Upserts.of(ResultSink.take(runId))).isEqualTo(reference);
    }

    /**
     * Unaligned checkpoints under backpressure persist in-flight elements of the router-to-gate
     * edge (Flink refuses unaligned checkpoints on {@code partitionCustom} edges, so Rhino's edge
     * has a partitioner of its own); handovers run throughout, a task fails once, and the replayed
     * in-flight data yields exactly the plain job's output.
     */
    @Test
    @Timeout(240)
    void unalignedCheckpointsUnderBackpressureReplayInFlightElementsExactlyOnce(
            @InjectMiniCluster MiniCluster miniCluster) throws Exception {
        restoreCoveredByAnotherScenario("unaligned checkpoints");
        Map<String, String> reference =
                Upserts.of(RhinoEquivalenceITCase.run(Mode.PLAIN, INPUT.unlimited(), 8));
        String runId = "unaligned-" + UUID.randomUUID();
        Configuration config = rhinoConfig(Duration.ofMillis(300));
        config.set(CheckpointingOptions.ENABLE_UNALIGNED, true);
        config.set(CheckpointingOptions.ALIGNED_CHECKPOINT_TIMEOUT, Duration.ZERO);
        // a slow sink behind the keyed operators backs the gates' input channels up
        JobClient job =
                submit(
                        runId,
                        config,
                        INPUT,
                        events -> events.map(new FailOnDemand<>(runId)),
                        results -> results.map(new Throttle<>(5, 2)).setParallelism(1));
        JobID jobId = job.getJobID();
        RhinoHandovers.awaitReady(jobId, OPERATOR, Duration.ofSeconds(60));

        RequestingClient client = RequestingClient.start(jobId);
        long gateBytes = 0;
        while (gateBytes == 0 && !isTerminal(miniCluster, jobId)) {
            gateBytes = RhinoClusters.persistedInFlightBytesOfGates(miniCluster, jobId);
            Thread.sleep(50);
        }
        FailOnDemand.arm(runId);
        RhinoClusters.awaitRecovered(jobId, OPERATOR, runId);
        afterRecovery(jobId);
        Thread.sleep(2_000);
        client.stop();
        job.getJobExecutionResult().get(180, TimeUnit.SECONDS);
        afterJobEnded(jobId);

        assertThat(gateBytes)
                .as("in-flight bytes of the router-to-gate edge in a completed checkpoint")
                .isPositive();
        assertThat(client.unexpected)
                .as("request outcomes other than completed or refused")
                .isEmpty();
        assertThat(client.completed.get()).as("handovers completed").isPositive();
        assertThat(FailOnDemand.failures(runId)).isEqualTo(1);
        assertThat(Upserts.of(ResultSink.take(runId))).isEqualTo(reference);
    }

    /**
     * Flink owns every vnode file: after handovers, a failover (whose restored checkpoint files the
     * new attempt takes over) and many subsumed checkpoints, the cancelled job's checkpoint
     * directory holds the retained checkpoint's files and nothing else, no other {@code chk-N}
     * directory included.
     */
    @Test
    @Timeout(240)
    void onlyTheRetainedCheckpointsFilesRemainAfterHandoversAndAFailover(
            @InjectMiniCluster MiniCluster miniCluster) throws Exception {
        String runId = "files-" + UUID.randomUUID();
        // Checkpoints on demand, none in flight at the failure or the cancellation: Flink itself
        // leaves the files of a checkpoint that either aborts half-written (plain jobs too).
        Configuration config = rhinoConfig(Duration.ofHours(1));
        config.set(
                CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
                ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
        // every file in the storage, none inlined in the handles
        config.set(CheckpointingOptions.FS_SMALL_FILE_THRESHOLD, MemorySize.ZERO);
        // input for long enough: the job is cancelled once the operations are done
        JobClient job =
                submit(
                        runId,
                        config,
                        new Input(120_000, 97, 1_000, 2),
                        events -> events.map(new FailOnDemand<>(runId)),
                        results -> results);
        JobID jobId = job.getJobID();
        HandoverManager manager =
                RhinoHandovers.awaitReady(jobId, OPERATOR, Duration.ofSeconds(60));
        checkpoint(miniCluster, jobId, 3);
        for (int i = 0; i < 2; i++) {
            assertThat(
                            manager.handover(moves(manager.routingTable(), 2))
                                    .get(30, TimeUnit.SECONDS)
                                    .isCompleted())
                    .isTrue();
        }
        FailOnDemand.arm(runId);
        manager = RhinoClusters.awaitRecovered(jobId, OPERATOR, runId);
        afterRecovery(jobId);
        for (int i = 0; i < 2; i++) {
            assertThat(
                            manager.handover(moves(manager.routingTable(), 2))
                                    .get(30, TimeUnit.SECONDS)
                                    .isCompleted())
                    .isTrue();
            checkpoint(miniCluster, jobId, 3);
        }
        checkpoint(miniCluster, jobId, 4);
        job.cancel().get(60, TimeUnit.SECONDS);
        while (!isTerminal(miniCluster, jobId)) {
            Thread.sleep(20);
        }

        Path jobDirectory = checkpoints.resolve(jobId.toHexString());
        // Flink discards subsumed checkpoints asynchronously, possibly after the job terminated
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        List<Path> checkpointDirectories;
        Path retained;
        java.util.Set<Path> left;
        do {
            Thread.sleep(50);
            try (var dirs = java.nio.file.Files.list(jobDirectory)) {
                checkpointDirectories =
                        dirs.filter(dir -> dir.getFileName().toString().startsWith("chk-"))
                                .toList();
            }
            retained = CheckpointFiles.latestCompletedCheckpoint(jobDirectory).orElseThrow();
            left = new java.util.TreeSet<>(CheckpointFiles.under(jobDirectory));
            left.removeAll(CheckpointFiles.referencedBy(retained));
        } while ((checkpointDirectories.size() > 1 || !left.isEmpty())
                && System.nanoTime() < deadline);
        assertThat(checkpointDirectories)
                .as("checkpoint directories left beside %s, with %s", retained, left)
                .hasSize(1);
        assertThat(left).as("files the retained checkpoint does not reference").isEmpty();
        afterJobEnded(jobId);
    }

    /**
     * Called once the operator of {@code jobId} runs again after the injected failure, which
     * happened after a checkpoint completed.
     */
    protected void afterRecovery(JobID jobId) throws Exception {}

    /**
     * Called first by a scenario without a failover (a restore from a savepoint uses no task-local
     * copy); a variant whose setting matters only to failovers may skip it.
     */
    protected void withoutFailover(String scenario) {}

    /**
     * Called first by a scenario whose failover restores the keyed state as another scenario's does
     * (what it adds, refused requests or replayed in-flight data, does not depend on where the
     * vnodes restore from); a variant about the restore's source may skip it.
     */
    protected void restoreCoveredByAnotherScenario(String scenario) {}

    /** Called once {@code jobId} reached a terminal state. */
    protected void afterJobEnded(JobID jobId) throws Exception {}

    private static void checkpoint(MiniCluster miniCluster, JobID jobId, int times)
            throws Exception {
        for (int i = 0; i < times; i++) {
            RhinoClusters.checkpoint(miniCluster, jobId);
        }
    }

    /** In-flight bytes the gates' tasks persisted, summed over the recent completed checkpoints. */
    /**
     * A handover still shipping when the bounded input ends completes: each router ends its output
     * with an element the gates count as its marker. The job may not restart at all. With
     * checkpoints far apart, and frequent ones: Flink holds the coordinators' events to a task
     * while a checkpoint is in flight, and the task may only take it after its input ended, so
     * nothing may wait for an event from the coordinator there.
     */
    @ParameterizedTest(name = "checkpoint interval {0} ms")
    @ValueSource(longs = {600_000, 200})
    @Timeout(180)
    void aHandoverInFlightWhenTheBoundedInputEndsCompletesWithoutARestart(long checkpointMillis)
            throws Exception {
        withoutFailover("a handover at the end of input");
        // Few records, flushed rarely: while the origin's task sleeps in the slow shipment, the
        // network buffers absorb the rest of the input, so the sources end during the handover
        // instead of waiting for it under backpressure.
        Input input = new Input(120, 97, 40, 2);
        List<String> reference = RhinoEquivalenceITCase.run(Mode.PLAIN, input.unlimited(), 8);
        String runId = "input-ends-" + UUID.randomUUID();
        Configuration config = rhinoConfig(Duration.ofMillis(checkpointMillis));
        config.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        env.setParallelism(3);
        env.setBufferTimeout(2_000);
        // the 3 s of input start only once the manager is ready: on a loaded machine the job's
        // start can take longer than the whole input, and the handover would find it ended
        ReleasableRate.pause(runId);
        TestPipelines.build(
                        env,
                        Mode.RHINO,
                        input,
                        new RhinoSetup(
                                8, 3, new FailingOnceStateTransfer(runId), Duration.ofSeconds(30)),
                        events -> events.map(new LastRecordClock<>(runId)),
                        new ReleasableRate(runId, input.eventsPerSecond()))
                .sinkTo(new ResultSink(runId));
        JobClient job = env.executeAsync(runId);
        HandoverManager manager =
                RhinoHandovers.awaitReady(job.getJobID(), OPERATOR, Duration.ofSeconds(60));
        ReleasableRate.resume(runId);
        Thread.sleep(300);

        FailingOnceStateTransfer.arm(runId, FailingOnceStateTransfer.Fault.SLOW);
        HandoverResult moved =
                manager.handover(moves(manager.routingTable(), 2)).get(60, TimeUnit.SECONDS);
        long completedMillis = System.currentTimeMillis();
        job.getJobExecutionResult().get(120, TimeUnit.SECONDS);
        afterJobEnded(job.getJobID());

        assertThat(completedMillis - LAST_RECORD_MILLIS.get(runId).get())
                .as("ms between the last input record and the handover's end")
                .isGreaterThan(2_000);
        assertThat(moved.outcome())
                .as("handover across the end of input: %s", moved.failureCause())
                .isEqualTo(HandoverResult.Outcome.COMPLETED);
        Multisets.assertSameMultiset("output", reference, ResultSink.take(runId));
    }

    /** When each run's sources last emitted a record, in epoch millis. */
    private static final Map<String, AtomicLong> LAST_RECORD_MILLIS = new ConcurrentHashMap<>();

    /** Passes records through, noting when the last one passed. */
    private static final class LastRecordClock<T> implements MapFunction<T, T> {
        private final String runId;

        LastRecordClock(String runId) {
            this.runId = runId;
            LAST_RECORD_MILLIS.put(runId, new AtomicLong());
        }

        @Override
        public T map(T value) {
            LAST_RECORD_MILLIS.get(runId).accumulateAndGet(System.currentTimeMillis(), Math::max);
            return value;
        }
    }

    /** Requests handovers back to back until stopped; outcomes are counted, surprises recorded. */
    private static final class RequestingClient {
        private final AtomicBoolean stopped = new AtomicBoolean();
        private final AtomicInteger refused = new AtomicInteger();
        private final AtomicInteger completed = new AtomicInteger();
        private final List<String> unexpected = new CopyOnWriteArrayList<>();
        private CompletableFuture<Void> requests;

        static RequestingClient start(JobID jobId) {
            RequestingClient client = new RequestingClient();
            client.requests = CompletableFuture.runAsync(() -> client.requestUntilStopped(jobId));
            return client;
        }

        void stop() throws Exception {
            stopped.set(true);
            requests.get(60, TimeUnit.SECONDS);
        }

        private void requestUntilStopped(JobID jobId) {
            while (!stopped.get()) {
                HandoverManager manager = null;
                RoutingTable planned = null;
                try {
                    manager = RhinoHandovers.manager(jobId, OPERATOR);
                    planned = manager.routingTable();
                    HandoverResult result =
                            manager.handover(moves(planned, 1)).get(30, TimeUnit.SECONDS);
                    if (result.isCompleted()) {
                        completed.incrementAndGet();
                    } else if (result.failureCause().orElse("").contains("failed")
                            || result.failureCause().orElse("").contains("restarts")) {
                        refused.incrementAndGet(); // ended by the failure it overlapped
                    } else {
                        unexpected.add(result.toString());
                    }
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof HandoverRejectedException
                            || (e.getCause() instanceof InvalidHandoverException
                                    && planOverrun(jobId, manager, planned))) {
                        // refused, or planned on a table a restore replaced meanwhile
                        refused.incrementAndGet();
                    } else {
                        unexpected.add(String.valueOf(e.getCause()));
                    }
                } catch (Exception e) {
                    unexpected.add(e.toString());
                }
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    /**
     * Whether the routing table a plan was made on is no longer the operator's: a restore put the
     * checkpoint's table back (or a new manager runs) between reading the table and asking.
     */
    private static boolean planOverrun(JobID jobId, HandoverManager manager, RoutingTable planned) {
        try {
            HandoverManager now = RhinoHandovers.manager(jobId, OPERATOR);
            return now != manager || now.routingTable().epoch() != planned.epoch();
        } catch (RuntimeException e) {
            return true; // no manager now: the job restarts
        }
    }

    /** Waits until the injected failure happened and the operator accepts handovers again. */
    private static List<VnodeMove> moves(RoutingTable table, int count) {
        List<VnodeMove> moves = new ArrayList<>();
        for (int vnode = 0; vnode < count; vnode++) {
            int from = table.ownerOf(vnode);
            moves.add(new VnodeMove(vnode, from, (from + 1) % table.parallelism()));
        }
        return moves;
    }

    private Configuration rhinoConfig(Duration checkpointInterval) {
        Configuration config = RhinoClusters.jobConfig(Mode.RHINO);
        RhinoClusters.withCheckpoints(config, checkpoints, checkpointInterval);
        RhinoClusters.withRestarts(config, 1, Duration.ofMillis(200));
        return config;
    }

    private static JobClient submit(
            String runId,
            Configuration config,
            java.util.function.UnaryOperator<DataStream<Tuple3<Long, Long, Long>>> inject)
            throws Exception {
        return submit(runId, config, INPUT, inject, results -> results);
    }

    private static JobClient submit(
            String runId,
            Configuration config,
            Input input,
            java.util.function.UnaryOperator<DataStream<Tuple3<Long, Long, Long>>> inject,
            java.util.function.UnaryOperator<DataStream<String>> beforeSink)
            throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        env.setParallelism(3);
        beforeSink
                .apply(
                        TestPipelines.build(
                                env,
                                Mode.RHINO,
                                input,
                                new RhinoSetup(
                                        8,
                                        3,
                                        new LocalDirectoryStateTransfer(),
                                        Duration.ofSeconds(30)),
                                inject))
                .sinkTo(new ResultSink(runId));
        return env.executeAsync(runId);
    }

    private static boolean isTerminal(MiniCluster miniCluster, JobID jobId) throws Exception {
        return miniCluster.getJobStatus(jobId).get().isGloballyTerminalState();
    }
}
