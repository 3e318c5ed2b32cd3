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
import io.rhino.flink.api.RhinoKeyedStreamOptions;
import io.rhino.flink.config.RhinoOptions;
import io.rhino.flink.coordination.RhinoHandovers;
import io.rhino.flink.reconfiguration.OperatorView;
import io.rhino.flink.reconfiguration.Reconfigurer;
import io.rhino.flink.testjobs.Multisets;
import io.rhino.flink.testjobs.ReleasableRate;
import io.rhino.flink.testjobs.ResultSink;
import io.rhino.flink.testjobs.TestPipelines.Mode;
import io.rhino.handover.HandoverManager;
import io.rhino.handover.HandoverResult;
import io.rhino.handover.operation.OperationKind;
import io.rhino.handover.operation.Reconfiguration;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * With {@code rhino.balancer.auto} on, an operator whose load was piled onto one subtask rebalances
 * by itself once the imbalance lasted {@code rhino.balancer.interval}, counts it in its metrics,
 * and its output equals plain Flink's.
 */
@Timeout(240)
class AutoBalanceITCase {

    private static final String NAME = "auto-balanced";
    private static final int PARALLELISM = SkewedCountsJob.PARALLELISM;
    private static final int VNODES = 16;
    private static final long EVENTS = 200_000;
    private static final double MAX_IMBALANCE = 1.3;

    private static final InMemoryReporter METRICS = InMemoryReporter.createWithRetainedMetrics();

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = RhinoClusters.twoTaskManagers(METRICS);

    @TempDir Path checkpoints;

    @Test
    void aPiledUpOperatorRebalancesItselfUnderTheThreshold() throws Exception {
        String runId = "auto-balance-" + UUID.randomUUID();
        JobClient job = submit(runId, 0);
        long piledAt = pileUp(job);

        OperatorView operator =
                RhinoHandovers.directory().operator(job.getJobID().toString(), NAME).orElseThrow();
        Reconfiguration rebalanced = awaitAutoRebalanceAfter(job, piledAt);
        assertThat(rebalanced.steps().get(0).moves()).isNotEmpty();
        HandoverManager manager = RhinoHandovers.manager(job.getJobID(), NAME);
        double imbalance = Reconfigurer.modelOf(operator, manager.routingTable()).imbalance();
        // the rates keep moving a little while the window slides: 0.1 of measurement drift
        assertThat(imbalance).isLessThan(MAX_IMBALANCE + 0.1);
        assertThat(counter(job, "autoBalanceRebalances")).isGreaterThanOrEqualTo(1);

        finishAndCompare(job, runId);
    }

    /**
     * With {@code rhino.balancer.min-busy-time} above what the rate-limited job's subtasks reach,
     * the same pile-up stays: they have time to spare, so the balancer leaves them alone.
     */
    @Test
    void anOperatorWithTimeToSpareIsLeftAlone() throws Exception {
        String runId = "auto-balance-idle-" + UUID.randomUUID();
        JobClient job = submit(runId, 999);
        long piledAt = pileUp(job);
        OperatorView operator =
                RhinoHandovers.directory().operator(job.getJobID().toString(), NAME).orElseThrow();
        HandoverManager manager = RhinoHandovers.manager(job.getJobID(), NAME);

        // busy time is reported once Flink measured it; the other test's balancer acts within
        // about one interval (2 s) of the pile-up, so three intervals more must leave it alone
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (operator.busyTimeMsPerSecond().size() < PARALLELISM) {
            assertThat(System.nanoTime()).as("busy time reported").isLessThan(deadline);
            Thread.sleep(100);
        }
        Thread.sleep(6_000);
        assertThat(Reconfigurer.modelOf(operator, manager.routingTable()).imbalance())
                .as("the pile-up stays")
                .isGreaterThan(MAX_IMBALANCE);
        assertThat(
                        RhinoHandovers.directory()
                                .reconfigurations()
                                .recent(job.getJobID().toString(), NAME)
                                .stream()
                                .filter(r -> r.kind() == OperationKind.AUTO_REBALANCE)
                                .filter(r -> r.requestedAtMillis() >= piledAt)
                                .toList())
                .as("automatic rebalances; busy ms/s %s", operator.busyTimeMsPerSecond())
                .isEmpty();

        finishAndCompare(job, runId);
    }

    private JobClient submit(String runId, double minBusyTime) throws Exception {
        Configuration config = RhinoClusters.jobConfig(Mode.RHINO);
        RhinoClusters.withCheckpoints(config, checkpoints, Duration.ofSeconds(1));
        config.set(RhinoOptions.LOAD_REPORT_INTERVAL, Duration.ofMillis(200));
        config.set(RhinoOptions.LOAD_WINDOW, Duration.ofSeconds(3));
        config.set(RhinoOptions.BALANCER_AUTO, true);
        config.set(RhinoOptions.BALANCER_INTERVAL, Duration.ofSeconds(2));
        config.set(RhinoOptions.BALANCER_MAX_IMBALANCE, MAX_IMBALANCE);
        config.set(RhinoOptions.BALANCER_COOLDOWN, Duration.ofSeconds(3));
        config.set(RhinoOptions.BALANCER_MIN_BUSY_TIME, minBusyTime);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        SkewedCountsJob.rhino(
                env, runId, EVENTS, RhinoKeyedStreamOptions.builder(NAME).vnodes(VNODES).build());
        return env.executeAsync("auto-balance");
    }

    /** Moves half of the other subtasks' vnodes onto subtask 0; returns when it started. */
    private static long pileUp(JobClient job) throws Exception {
        HandoverManager manager =
                RhinoHandovers.awaitReady(job.getJobID(), NAME, Duration.ofSeconds(60));
        long piledAt = System.currentTimeMillis();
        HandoverResult piled =
                manager.handover(pileOntoSubtaskZero(manager.routingTable()))
                        .get(60, TimeUnit.SECONDS);
        assertThat(piled.isCompleted()).as(piled.toString()).isTrue();
        return piledAt;
    }

    private static void finishAndCompare(JobClient job, String runId) throws Exception {
        ReleasableRate.release(runId);
        job.getJobExecutionResult().get();
        Multisets.assertSameMultiset(
                "output with auto-balancing vs plain Flink",
                SkewedCountsJob.plainFlink(runId, EVENTS),
                ResultSink.take(runId));
    }

    /** Half of every other subtask's vnodes move to subtask 0. */
    private static List<VnodeMove> pileOntoSubtaskZero(RoutingTable table) {
        List<VnodeMove> moves = new ArrayList<>();
        Map<Integer, Integer> seen = new HashMap<>();
        for (int vnode = 0; vnode < table.layout().numVnodes(); vnode++) {
            int owner = table.ownerOf(vnode);
            if (owner != 0 && seen.merge(owner, 1, Integer::sum) % 2 == 0) {
                moves.add(new VnodeMove(vnode, owner, 0));
            }
        }
        return moves;
    }

    private static Reconfiguration awaitAutoRebalanceAfter(JobClient job, long piledAt)
            throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (true) {
            Optional<Reconfiguration> done =
                    RhinoHandovers.directory()
                            .reconfigurations()
                            .recent(job.getJobID().toString(), NAME)
                            .stream()
                            .filter(r -> r.kind() == OperationKind.AUTO_REBALANCE)
                            .filter(r -> r.requestedAtMillis() >= piledAt)
                            .filter(r -> r.status() == Reconfiguration.Status.COMPLETED)
                            .filter(r -> !r.steps().get(0).moves().isEmpty())
                            .findFirst();
            if (done.isPresent()) {
                return done.get();
            }
            assertThat(System.nanoTime())
                    .as("no automatic rebalance within 60 s")
                    .isLessThan(deadline);
            Thread.sleep(100);
        }
    }

    private static long counter(JobClient job, String name) {
        long sum = 0;
        for (var entry : METRICS.getMetricsByGroup().entrySet()) {
            if (job.getJobID().toString().equals(entry.getKey().getAllVariables().get("<job_id>"))
                    && entry.getValue().get(name) instanceof Counter counter) {
                sum += counter.getCount();
            }
        }
        return sum;
    }
}
