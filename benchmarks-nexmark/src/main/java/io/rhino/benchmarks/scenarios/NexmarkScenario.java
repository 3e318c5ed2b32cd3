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

import io.rhino.benchmarks.harness.CostWindow;
import io.rhino.benchmarks.harness.PhaseTimings;
import io.rhino.benchmarks.harness.Reconfiguration;
import io.rhino.benchmarks.harness.Scenario;
import io.rhino.benchmarks.harness.ScenarioContext;
import io.rhino.benchmarks.harness.ScenarioResult;
import io.rhino.benchmarks.harness.SystemUnderTest;
import io.rhino.benchmarks.replication.MemoryPeaks;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The shape of all of the paper's experiments: run the workload, warm up (a time, then a number of
 * completed checkpoints), optionally trigger one reconfiguration, and keep running for a while. The
 * reconfiguration may depend on the system (Flink rescales where Rhino moves vnodes).
 *
 * @param name scenario name (output directory, plot title)
 * @param group what the table groups by, e.g. the state size
 * @param workloadFor the workload each system runs (Flink starts at another parallelism, ...)
 * @param reconfigurationFor the reconfiguration each system performs; empty for a steady run
 * @param warmUp time after the start (and any state fill) before waiting for checkpoints
 * @param checkpointsBefore completed checkpoints before the reconfiguration
 * @param after time after the reconfiguration (or after the warm-up of a steady run)
 */
public record NexmarkScenario(
        String name,
        String group,
        Function<SystemUnderTest, NexmarkWorkload> workloadFor,
        Function<SystemUnderTest, Optional<Reconfiguration>> reconfigurationFor,
        Duration warmUp,
        int checkpointsBefore,
        Duration after)
        implements Scenario {

    private static final Duration CHECKPOINT_TIMEOUT = Duration.ofMinutes(10);

    @Override
    public Duration expectedDuration() {
        // start-up of cluster and Kafka plus the reconfiguration itself: roughly 20 s
        return warmUp.plus(after).plusSeconds(20);
    }

    /** Figure: the largest replication Netty memory in use seen during a replicated run. */
    static final String REPLICATION_MEMORY_IN_USE = "replication netty in use, peak (MB)";

    /** Figure: the largest replication Netty pool seen during a replicated run. */
    static final String REPLICATION_MEMORY_RESERVED = "replication netty reserved, peak (MB)";

    @Override
    public ScenarioResult run(SystemUnderTest sut, ScenarioContext context) throws Exception {
        if (!(sut instanceof ReplicatedRhinoSut)) {
            return runMeasured(sut, context);
        }
        // Every TaskManager of the embedded cluster shares this JVM's replication pool, so the
        // peaks are the whole cluster's, fill included.
        ScenarioResult result;
        MemoryPeaks peaks = MemoryPeaks.start();
        try {
            result = runMeasured(sut, context);
        } finally {
            peaks.close();
        }
        Map<String, Double> figures = new LinkedHashMap<>(result.figures());
        figures.put(REPLICATION_MEMORY_IN_USE, megabytes(peaks.inUseBytes()));
        figures.put(REPLICATION_MEMORY_RESERVED, megabytes(peaks.reservedBytes()));
        return new ScenarioResult(result.group(), result.timingsSeconds(), figures);
    }

    private static double megabytes(long bytes) {
        return bytes / 1e6;
    }

    private ScenarioResult runMeasured(SystemUnderTest sut, ScenarioContext context)
            throws Exception {
        sut.start(workloadFor.apply(sut), context);
        context.markPhase(ScenarioContext.STEADY);
        Thread.sleep(warmUp.toMillis());
        if (sut instanceof CheckpointedSut checkpointed) {
            awaitCheckpoints(checkpointed);
        }
        Optional<Reconfiguration> reconfiguration = reconfigurationFor.apply(sut);
        PhaseTimings timings = PhaseTimings.none();
        Map<String, Double> figures = new LinkedHashMap<>();
        if (reconfiguration.isPresent()) {
            timings = context.reconfigure(sut, reconfiguration.get());
            Thread.sleep(after.toMillis());
        } else {
            // Warm and past its first checkpoints: what the rest of the run consumes and costs
            // compares the systems at this input.
            CostWindow window = CostWindow.open(context);
            Thread.sleep(after.toMillis());
            figures.putAll(window.close().figures());
        }
        context.reportProgress(1);
        if (sut instanceof NexmarkSut nexmark) {
            figures.putAll(nexmark.reconfigurationFigures());
        }
        return new ScenarioResult(group, timings.seconds(), figures);
    }

    private void awaitCheckpoints(CheckpointedSut sut) throws Exception {
        long deadline = System.nanoTime() + CHECKPOINT_TIMEOUT.toNanos();
        while (sut.completedCheckpoints() < checkpointsBefore) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        checkpointsBefore
                                + " checkpoints did not complete in "
                                + CHECKPOINT_TIMEOUT);
            }
            Thread.sleep(200);
        }
    }
}
