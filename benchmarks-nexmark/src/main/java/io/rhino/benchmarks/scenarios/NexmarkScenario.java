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
import io.rhino.benchmarks.harness.WindowCost;
import io.rhino.benchmarks.replication.MemoryPeaks;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
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
            WindowCost cost = window.close();
            figures.putAll(cost.figures());
            if (sut instanceof NexmarkSut nexmark && nexmark.workload().backlogRecords() > 0) {
                figures.put(BACKLOG_LEFT, (double) requireBacklogLeft(nexmark, context, cost));
            }
        }
        context.reportProgress(1);
        if (sut instanceof NexmarkSut nexmark) {
            figures.putAll(nexmark.reconfigurationFigures());
        }
        return new ScenarioResult(group, timings.seconds(), figures);
    }

    /** Figure: input records of the backlog the job had not read when the window closed. */
    static final String BACKLOG_LEFT = "backlog left at the window's end (records)";

    /**
     * What is left of the backlog; fails the run if less than a second of the window's reading is
     * left (a drained backlog leaves only the records in flight), since then the window also
     * measured the job waiting for input and its consumption says nothing about its capacity.
     */
    private static long requireBacklogLeft(
            NexmarkSut sut, ScenarioContext context, WindowCost window) {
        long left = sut.unreadInput(context.throughput().recordsSoFar());
        double perSecond = window.seconds() > 0 ? window.records() / window.seconds() : 0;
        if (left < perSecond || left <= 0) {
            throw new IllegalStateException(
                    String.format(
                            Locale.ROOT,
                            "%s read the backlog of %d records before the measured window closed"
                                    + " (%d left, %.0f read per second in the window), so the"
                                    + " window does not measure its capacity: raise"
                                    + " --backlog-records or shorten --seconds",
                            sut.name(),
                            sut.workload().backlogRecords(),
                            left,
                            perSecond));
        }
        return left;
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
