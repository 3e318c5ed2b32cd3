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

import io.rhino.flink.config.RhinoOptions;
import io.rhino.flink.coordination.RhinoHandovers;
import io.rhino.flink.handover.LocalDirectoryStateTransfer;
import io.rhino.flink.testjobs.CheckpointFiles;
import io.rhino.flink.testjobs.FailOnceAfterCheckpoints;
import io.rhino.flink.testjobs.ResultSink;
import io.rhino.flink.testjobs.TestPipelines;
import io.rhino.flink.testjobs.TestPipelines.Input;
import io.rhino.flink.testjobs.TestPipelines.Mode;
import io.rhino.flink.testjobs.TestPipelines.RhinoSetup;
import io.rhino.flink.testjobs.Upserts;
import io.rhino.handover.HandoverManager;
import io.rhino.handover.HandoverResult;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.checkpoint.Checkpoints;
import org.apache.flink.runtime.checkpoint.OperatorState;
import org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend.PriorityQueueStateType;
import org.apache.flink.state.rocksdb.RocksDBOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * With {@code state.backend.rocksdb.timer-service.factory: HEAP}, the timers of Rhino operators
 * still survive a restore and live handovers (windows and event-time timers fire with the right
 * results), while Flink's own keyed operators keep heap timers.
 */
class RhinoHeapTimersITCase {

    @RegisterExtension static final MiniClusterExtension CLUSTER = RhinoClusters.twoTaskManagers();

    @TempDir Path checkpoints;

    @Test
    @Timeout(180)
    void timersOfRhinoOperatorsSurviveRestoreAndHandoversWithHeapTimersConfigured()
            throws Exception {
        Input input = new Input(15_000, 97, 1_000, 2);
        Map<String, String> reference =
                Upserts.of(RhinoEquivalenceITCase.run(Mode.PLAIN, input.unlimited(), 8));

        Configuration config = RhinoClusters.jobConfig(Mode.RHINO);
        config.set(RocksDBOptions.TIMER_SERVICE_FACTORY, PriorityQueueStateType.HEAP);
        RhinoClusters.withCheckpoints(config, checkpoints, Duration.ofMillis(300));
        // keep every checkpoint while the job runs, to see which operators wrote heap timers
        config.set(CheckpointingOptions.MAX_RETAINED_CHECKPOINTS, 1_000);
        RhinoClusters.withRestarts(config, 3, Duration.ofMillis(100));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        env.setParallelism(3);
        String runId = "heap-timers-" + UUID.randomUUID();
        FailOnceAfterCheckpoints<Tuple3<Long, Long, Long>> failure =
                new FailOnceAfterCheckpoints<>(runId, 3, 300);
        TestPipelines.build(
                        env,
                        Mode.RHINO,
                        input,
                        new RhinoSetup(
                                8, 2, new LocalDirectoryStateTransfer(), Duration.ofSeconds(30)),
                        events -> events.map(failure).setParallelism(events.getParallelism()))
                .sinkTo(new ResultSink(runId));
        JobClient job = env.executeAsync("heap-timers");

        // First a restore from a checkpoint, then handovers on the restored job.
        RandomHandovers driver =
                new RandomHandovers(job.getJobID(), TestPipelines.RHINO_OPERATORS, 7);
        try {
            awaitFailure(runId, Duration.ofSeconds(60));
            awaitHandoverAfterRestart(job.getJobID(), driver);
            long stopAt = System.nanoTime() + Duration.ofSeconds(6).toNanos();
            int completed = driver.run(4, () -> System.nanoTime() > stopAt);
            assertThat(completed).as("completed handovers").isGreaterThanOrEqualTo(1);
        } catch (Throwable t) {
            throw new AssertionError("handovers " + driver.history(), t);
        }
        // read before the job finishes: a finished job deletes its checkpoints
        TreeSet<String> withHeapTimers =
                operatorsWithHeapTimers(checkpoints.resolve(job.getJobID().toString()));
        job.getJobExecutionResult().get();

        assertThat(FailOnceAfterCheckpoints.failures(runId)).as("injected failures").isEqualTo(1);
        assertThat(Upserts.of(ResultSink.take(runId)))
                .as("results after a restore and handovers (%s)", driver.history())
                .isEqualTo(reference);
        // Only Flink's own keyed window ("plain" in TestPipelines, max parallelism 128 by default);
        // Rhino operators run with max parallelism rhino.key-groups and keep timers in RocksDB.
        assertThat(RhinoOptions.KEY_GROUPS.defaultValue()).isNotEqualTo(128);
        assertThat(withHeapTimers)
                .as("operators (name@maxParallelism) whose checkpoints hold heap timers")
                .containsExactly("TumblingEventTimeWindows@128");
    }

    /**
     * Retries one handover until it completes: the first attempts may still meet the failing job
     * attempt, whose failure then fails them.
     */
    private static void awaitHandoverAfterRestart(JobID jobId, RandomHandovers driver)
            throws Exception {
        HandoverResult result = null;
        for (int attempt = 0;
                attempt < 40 && (result == null || !result.isCompleted());
                attempt++) {
            Thread.sleep(250);
            driver.awaitRunning(Duration.ofSeconds(60));
            HandoverManager manager = RhinoHandovers.manager(jobId, "process");
            result =
                    manager.handover(driver.randomMoves(manager.routingTable(), 2))
                            .get(60, TimeUnit.SECONDS);
        }
        assertThat(result.outcome())
                .as("handover after the restore: %s", result.failureCause())
                .isEqualTo(HandoverResult.Outcome.COMPLETED);
    }

    private static void awaitFailure(String runId, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (FailOnceAfterCheckpoints.failures(runId) == 0) {
            assertThat(System.nanoTime()).as("the injected failure").isLessThan(deadline);
            Thread.sleep(50);
        }
    }

    /**
     * The operators ({@code name@maxParallelism}) that wrote raw keyed state in some checkpoint:
     * where Flink's RocksDB backend writes heap timers.
     */
    private static TreeSet<String> operatorsWithHeapTimers(Path jobCheckpoints) throws Exception {
        TreeSet<String> names = new TreeSet<>();
        List<Path> metadataFiles =
                CheckpointFiles.completedCheckpoints(jobCheckpoints).stream()
                        .map(dir -> dir.resolve("_metadata"))
                        .toList();
        assertThat(metadataFiles).as("retained checkpoints").isNotEmpty();
        for (Path metadataFile : metadataFiles) {
            CheckpointMetadata metadata;
            try (InputStream in = Files.newInputStream(metadataFile)) {
                metadata =
                        Checkpoints.loadCheckpointMetadata(
                                new DataInputStream(in),
                                RhinoHeapTimersITCase.class.getClassLoader(),
                                metadataFile.getParent().toString());
            } catch (IOException e) {
                continue; // a checkpoint completing right now, its metadata still being written
            }
            for (OperatorState operator : metadata.getOperatorStates()) {
                if (operator.getStates().stream()
                        .anyMatch(subtask -> subtask.getRawKeyedState().hasState())) {
                    names.add(
                            operator.getOperatorName().orElse(operator.getOperatorID().toString())
                                    + "@"
                                    + operator.getMaxParallelism());
                }
            }
        }
        return names;
    }
}
