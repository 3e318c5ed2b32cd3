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
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rhino.core.handover.InvalidHandoverException;
import io.rhino.core.handover.VnodeMove;
import io.rhino.core.routing.RoutingTable;
import io.rhino.flink.config.RhinoOptions;
import io.rhino.flink.coordination.RhinoHandovers;
import io.rhino.flink.handover.LocalDirectoryStateTransfer;
import io.rhino.flink.testjobs.FailingOnceStateTransfer;
import io.rhino.flink.testjobs.Multisets;
import io.rhino.flink.testjobs.ResultSink;
import io.rhino.flink.testjobs.TestPipelines;
import io.rhino.flink.testjobs.TestPipelines.Input;
import io.rhino.flink.testjobs.TestPipelines.Mode;
import io.rhino.flink.testjobs.TestPipelines.RhinoSetup;
import io.rhino.flink.testjobs.Upserts;
import io.rhino.handover.HandoverManager;
import io.rhino.handover.HandoverResult;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Function;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.executiongraph.AccessExecutionJobVertex;
import org.apache.flink.runtime.executiongraph.ArchivedExecutionGraph;
import org.apache.flink.runtime.executiongraph.ErrorInfo;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Live handovers on a running job: random vnode moves across subtasks and TaskManagers (including
 * to a standby subtask) while records flow and checkpoints are taken, with the records waiting for
 * their vnodes' state spilled to disk; the output equals plain Flink's.
 */
class RhinoHandoverITCase {

    /** Keeps the metrics of finished jobs, so they can be read after the job ends. */
    private static final InMemoryReporter METRICS = InMemoryReporter.createWithRetainedMetrics();

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = RhinoClusters.twoTaskManagers(METRICS);

    // 40 s of input at 1,000 events/s: room for 25 handovers even on a busy 2-core machine
    private static final Input INPUT = new Input(40_000, 97, 1_000, 2);

    @TempDir Path checkpoints;

    @Test
    @Timeout(240)
    void exactlyOnceUnderRandomHandovers(@InjectMiniCluster MiniCluster miniCluster)
            throws Exception {
        long seed = Long.getLong("rhino.test.seed", System.nanoTime());
        List<String> reference = RhinoEquivalenceITCase.run(Mode.PLAIN, INPUT.unlimited(), 8);

        Configuration config = RhinoClusters.jobConfig(Mode.RHINO);
        RhinoClusters.withCheckpoints(config, checkpoints, Duration.ofMillis(300));
        // every record that waits for its vnode's state goes through the spill file
        config.set(RhinoOptions.HANDOVER_BUFFER_MAX_MEMORY, MemorySize.parse("1b"));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        env.setParallelism(3);
        String runId = "handovers-" + UUID.randomUUID();
        // two of three subtasks active: the third is a standby that vnodes can move to
        TestPipelines.build(
                        env,
                        Mode.RHINO,
                        INPUT,
                        new RhinoSetup(
                                8, 2, new LocalDirectoryStateTransfer(), Duration.ofSeconds(30)),
                        events -> events)
                .sinkTo(new ResultSink(runId));
        JobClient job = env.executeAsync("handovers");
        JobID jobId = job.getJobID();

        RandomHandovers driver = new RandomHandovers(jobId, TestPipelines.RHINO_OPERATORS, seed);
        int completed;
        try {
            driver.awaitRunning(Duration.ofSeconds(60));
            checkTaskManagerNamesFollowFlinksPlacement(miniCluster, jobId);
            checkRejectedRequestsChangeNothing(jobId);
            // Stop well before the bounded input ends: a handover still running when the sources
            // finish waits for markers that finished gates no longer read, until it times out and
            // the job rolls back (correct, but slow).
            long stopAt = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            completed = driver.run(25, () -> System.nanoTime() > stopAt);
            // the input lasts ~10 s longer: the gates still run, no handover is in flight
            checkGateGaugesAgreeWithTheRoutingTables(jobId);
        } catch (Throwable t) {
            throw new AssertionError("seed " + seed + ", history " + driver.history(), t);
        }
        job.getJobExecutionResult().get();

        assertThat(completed).as("completed handovers (seed %s)", seed).isGreaterThanOrEqualTo(20);
        ArchivedExecutionGraph graph = miniCluster.getArchivedExecutionGraph(jobId).get();
        // a restart replays into the sink, which is not transactional: name its cause
        ErrorInfo failure = graph.getFailureInfo();
        assertThat(failure == null ? null : failure.getExceptionAsString())
                .as("the job's failure (seed %s)", seed)
                .isNull();
        // checkpoints kept completing between handovers: neither starved the other
        assertThat(graph.getCheckpointStatsSnapshot().getCounts().getNumberOfCompletedCheckpoints())
                .as("completed checkpoints")
                .isGreaterThanOrEqualTo(10);
        Multisets.assertSameMultiset(
                "output under handovers (seed " + seed + ")", reference, ResultSink.take(runId));

        // the handover managers' metrics, read through Flink's metric system, agree
        assertThat(sumOfMetric(jobId, "handoversCompleted"))
                .as("handoversCompleted over all Rhino operators")
                .isEqualTo(completed);
        assertThat(sumOfMetric(jobId, "handoversFailed")).isZero();
        long spilled = 0;
        for (String operator : TestPipelines.RHINO_OPERATORS) {
            spilled +=
                    gateCounter(jobId, operator + " (Rhino gate)", "rhinoBufferSpilledBytesTotal")
                            .values()
                            .stream()
                            .mapToLong(Long::longValue)
                            .sum();
        }
        assertThat(spilled)
                .as("bytes of waiting records that went through spill files")
                .isPositive();
        assertThat(sumOfMetric(jobId, "handoversRejected"))
                .as("the three invalid requests")
                .isEqualTo(3);
    }

    /** The sum of the Rhino coordinator counter {@code name} over the job's operators. */
    private static long sumOfMetric(JobID jobId, String name) {
        List<Long> values = new ArrayList<>();
        forEachMetric(
                jobId,
                name,
                (group, metric) -> {
                    String[] scope = group.getScopeComponents();
                    if (scope.length > 0 && "rhino".equals(scope[scope.length - 1])) {
                        values.add(((Counter) metric).getCount());
                    }
                });
        assertThat(values)
                .as("%s counters, one per Rhino operator", name)
                .hasSize(TestPipelines.RHINO_OPERATORS.size());
        return values.stream().mapToLong(Long::longValue).sum();
    }

    /**
     * The gates' gauges, read through Flink's metric system while the job runs: per Rhino operator,
     * the subtasks' owned vnodes add up to all vnodes and match the routing table, and nothing is
     * buffered between handovers.
     */
    private static void checkGateGaugesAgreeWithTheRoutingTables(JobID jobId) throws Exception {
        for (String operator : TestPipelines.RHINO_OPERATORS) {
            RoutingTable table = RhinoHandovers.manager(jobId, operator).routingTable();
            String gate = operator + " (Rhino gate)";
            Map<Integer, Long> owned = gateGauge(jobId, gate, "rhinoOwnedVnodes");
            Map<Integer, Long> buffered = gateGauge(jobId, gate, "rhinoBufferedRecords");
            Map<Integer, Long> expected = new TreeMap<>();
            for (int subtask = 0; subtask < 3; subtask++) {
                expected.put(subtask, (long) table.vnodesOwnedBy(subtask).length);
            }
            assertThat(owned).as("vnodes owned by the gates of %s", operator).isEqualTo(expected);
            assertThat(buffered.values())
                    .as("records buffered by the gates of %s", operator)
                    .hasSize(3)
                    .containsOnly(0L);
        }
    }

    /** The gauge {@code name} of each subtask of the gate operator {@code gate}. */
    private static Map<Integer, Long> gateGauge(JobID jobId, String gate, String name) {
        return gateMetric(jobId, gate, name, RhinoHandoverITCase::gaugeValue);
    }

    /** The counter {@code name} of each subtask of the gate operator {@code gate}. */
    private static Map<Integer, Long> gateCounter(JobID jobId, String gate, String name) {
        return gateMetric(jobId, gate, name, metric -> ((Counter) metric).getCount());
    }

    private static Map<Integer, Long> gateMetric(
            JobID jobId,
            String gate,
            String name,
            java.util.function.ToLongFunction<Metric> value) {
        Map<Integer, Long> bySubtask = new TreeMap<>();
        forEachMetric(
                jobId,
                name,
                (group, metric) -> {
                    if (gate.equals(group.getAllVariables().get("<operator_name>"))) {
                        bySubtask.put(subtaskOf(group), value.applyAsLong(metric));
                    }
                });
        return bySubtask;
    }

    private static int subtaskOf(MetricGroup group) {
        return Integer.parseInt(group.getAllVariables().get("<subtask_index>"));
    }

    private static long gaugeValue(Metric metric) {
        return ((Number) ((Gauge<?>) metric).getValue()).longValue();
    }

    private static void forEachMetric(
            JobID jobId, String name, BiConsumer<MetricGroup, Metric> action) {
        METRICS.getMetricsByGroup()
                .forEach(
                        (group, metrics) -> {
                            if (jobId.toString().equals(group.getAllVariables().get("<job_id>"))
                                    && metrics.containsKey(name)) {
                                action.accept(group, metrics.get(name));
                            }
                        });
    }

    @Test
    @Timeout(180)
    void failureDuringHandoverRollsBackAndTheNextHandoverSucceeds() throws Exception {
        HandoverResult failed = runWithFault(FailingOnceStateTransfer.Fault.THROW);
        // The failed install fails its task; Flink may report first that the event to the failing
        // task was lost, which fails it too: the cause names one or the other.
        assertThat(failed.failureCause())
                .get()
                .asString()
                .satisfiesAnyOf(
                        cause -> assertThat(cause).contains("Injected failure"),
                        cause ->
                                assertThat(cause)
                                        .contains("An OperatorEvent from an OperatorCoordinator")
                                        .contains("was lost"));
    }

    /**
     * Origins report each vnode as soon as it is shipped, so a handover can fail after some of its
     * vnodes were installed on their targets: the rollback must still restore every subtask to the
     * checkpoint before the handover (the output equals plain Flink's, checked by runWithFault).
     */
    @Test
    @Timeout(180)
    void failureAfterSomeVnodesWereInstalledRollsBackAndTheNextHandoverSucceeds() throws Exception {
        String runId = "handover-failure-" + UUID.randomUUID();
        // two vnodes of subtask 0 to subtasks 1 and 2, which give nothing away: their task
        // threads are free to install while subtask 0's task waits for its shipments
        HandoverResult failed =
                runWithFault(
                        FailingOnceStateTransfer.Fault.THROW_AFTER_AN_INSTALL,
                        runId,
                        table -> {
                            int[] owned = table.vnodesOwnedBy(0);
                            return List.of(
                                    new VnodeMove(owned[0], 0, 1), new VnodeMove(owned[1], 0, 2));
                        });
        assertThat(failed.failureCause()).isPresent();
        assertThat(FailingOnceStateTransfer.installsBeforeFailure(runId))
                .as("vnodes of the failed handover opened on their targets before it failed")
                .isPositive();
    }

    @Test
    @Timeout(180)
    void stuckHandoverTimesOutNamingItsPhaseAndRollsBack() throws Exception {
        HandoverResult failed = runWithFault(FailingOnceStateTransfer.Fault.STALL);
        assertThat(failed.failureCause())
                .get()
                .asString()
                .contains("timed out")
                .contains(failed.failedIn().orElseThrow().name());
    }

    /**
     * With Flink's buffer timeout off (-1: a network buffer leaves only once full), the markers of
     * a slow job would wait in the routers' buffers until its input ends, and the handover would
     * time out; the routers send them as soon as they are emitted. The output equals plain Flink's.
     */
    @Test
    @Timeout(180)
    void handoverCompletesWhenFlinkSendsOnlyFullNetworkBuffers() throws Exception {
        String runId = "handover-no-buffer-timeout-" + UUID.randomUUID();
        // 20 s of input that fills no network buffer: records reach the gates only at its end,
        // well after the handover's 10 s timeout had it waited for them
        Input input = new Input(800, 97, 40, 1);
        Map<String, String> reference =
                Upserts.of(RhinoEquivalenceITCase.run(Mode.PLAIN, input.unlimited(), 8));

        Configuration config = RhinoClusters.jobConfig(Mode.RHINO);
        RhinoClusters.withCheckpoints(config, checkpoints, Duration.ofMillis(300));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        env.setParallelism(3);
        env.setBufferTimeout(-1);
        TestPipelines.build(
                        env,
                        Mode.RHINO,
                        input,
                        new RhinoSetup(
                                8, 3, new LocalDirectoryStateTransfer(), Duration.ofSeconds(10)),
                        events -> events)
                .sinkTo(new ResultSink(runId));
        JobClient job = env.executeAsync("handover-no-buffer-timeout");
        RandomHandovers driver = new RandomHandovers(job.getJobID(), List.of("process"), 7);
        driver.awaitRunning(Duration.ofSeconds(60));
        Thread.sleep(1_500);

        HandoverManager manager = RhinoHandovers.manager(job.getJobID(), "process");
        HandoverResult result =
                manager.handover(driver.randomMoves(manager.routingTable(), 2))
                        .get(60, TimeUnit.SECONDS);
        assertThat(result.outcome())
                .as("handover with the buffer timeout off: %s", result.failureCause())
                .isEqualTo(HandoverResult.Outcome.COMPLETED);
        job.getJobExecutionResult().get();

        assertThat(Upserts.of(ResultSink.take(runId))).isEqualTo(reference);
    }

    private HandoverResult runWithFault(FailingOnceStateTransfer.Fault fault) throws Exception {
        return runWithFault(fault, "handover-failure-" + UUID.randomUUID(), null);
    }

    /**
     * Runs the jobs with one faulty handover, then a retried one; returns the faulty one's result
     * after checking the output equals plain Flink's.
     *
     * @param faultyMoves the faulty handover's moves from the routing table; null: two random ones
     */
    private HandoverResult runWithFault(
            FailingOnceStateTransfer.Fault fault,
            String runId,
            Function<RoutingTable, List<VnodeMove>> faultyMoves)
            throws Exception {
        Input input = new Input(12_000, 97, 1_000, 2);
        Map<String, String> reference =
                Upserts.of(RhinoEquivalenceITCase.run(Mode.PLAIN, input.unlimited(), 8));

        Configuration config = RhinoClusters.jobConfig(Mode.RHINO);
        RhinoClusters.withCheckpoints(config, checkpoints, Duration.ofMillis(300));
        RhinoClusters.withRestarts(config, 3, Duration.ofMillis(200));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        env.setParallelism(3);
        TestPipelines.build(
                        env,
                        Mode.RHINO,
                        input,
                        new RhinoSetup(
                                8, 3, new FailingOnceStateTransfer(runId), Duration.ofSeconds(2)),
                        events -> events)
                .sinkTo(new ResultSink(runId));
        JobClient job = env.executeAsync("handover-failure");
        JobID jobId = job.getJobID();
        RandomHandovers driver = new RandomHandovers(jobId, List.of("process"), 42);
        driver.awaitRunning(Duration.ofSeconds(60));
        Thread.sleep(1_500); // let state and a checkpoint build up

        HandoverManager manager = RhinoHandovers.manager(jobId, "process");
        RoutingTable before = manager.routingTable();
        FailingOnceStateTransfer.arm(runId, fault);
        HandoverResult failed =
                manager.handover(
                                faultyMoves == null
                                        ? driver.randomMoves(before, 2)
                                        : faultyMoves.apply(before))
                        .get(60, TimeUnit.SECONDS);
        assertThat(failed.outcome()).isEqualTo(HandoverResult.Outcome.FAILED);
        assertThat(failed.failedIn()).isPresent();
        assertThat(manager.routingTable()).as("rolled back").isEqualTo(before);

        // the job restarts from the pre-handover checkpoint; retry until it runs again
        HandoverResult retried = null;
        for (int attempt = 0; attempt < 40; attempt++) {
            Thread.sleep(250);
            driver.awaitRunning(Duration.ofSeconds(60));
            HandoverManager current = RhinoHandovers.manager(jobId, "process");
            retried =
                    current.handover(driver.randomMoves(current.routingTable(), 2))
                            .get(60, TimeUnit.SECONDS);
            if (retried.isCompleted()) {
                break;
            }
        }
        assertThat(retried.outcome())
                .as("retry after the rollback: %s", retried.failureCause())
                .isEqualTo(HandoverResult.Outcome.COMPLETED);
        job.getJobExecutionResult().get();

        assertThat(Upserts.of(ResultSink.take(runId))).isEqualTo(reference);
        return failed;
    }

    /**
     * Rhino's view of where each gate subtask runs groups subtasks exactly as Flink placed them:
     * two subtasks share a TaskManager name if and only if Flink deployed them to one TaskManager.
     */
    private static void checkTaskManagerNamesFollowFlinksPlacement(
            MiniCluster miniCluster, JobID jobId) throws Exception {
        Map<Integer, String> rhino = RhinoHandovers.operators(jobId).get("process");
        AccessExecutionJobVertex vertex =
                miniCluster.getExecutionGraph(jobId).get().getAllVertices().values().stream()
                        .filter(
                                v ->
                                        v.getName().contains("process")
                                                && v.getParallelism() == rhino.size())
                        .findFirst()
                        .orElseThrow();
        Map<Integer, String> flink = new TreeMap<>();
        for (int i = 0; i < vertex.getParallelism(); i++) {
            flink.put(
                    i,
                    vertex.getTaskVertices()[i]
                            .getCurrentExecutionAttempt()
                            .getAssignedResourceLocation()
                            .getResourceID()
                            .toString());
        }
        assertThat(rhino).hasSameSizeAs(flink);
        for (int a : flink.keySet()) {
            for (int b : flink.keySet()) {
                assertThat(rhino.get(a).equals(rhino.get(b)))
                        .as(
                                "subtasks %s and %s on one TaskManager (Rhino %s, Flink %s)",
                                a, b, rhino, flink)
                        .isEqualTo(flink.get(a).equals(flink.get(b)));
            }
        }
    }

    private static void checkRejectedRequestsChangeNothing(JobID jobId) throws Exception {
        HandoverManager manager = RhinoHandovers.manager(jobId, "process");
        RoutingTable before = manager.routingTable();
        int owner = before.ownerOf(0);
        for (List<VnodeMove> invalid :
                List.of(
                        List.of(new VnodeMove(0, owner, owner)),
                        List.of(new VnodeMove(99, owner, (owner + 1) % 3)),
                        List.of(new VnodeMove(0, owner, 7)))) {
            assertThatThrownBy(() -> manager.handover(invalid).get())
                    .isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(InvalidHandoverException.class);
        }
        assertThat(manager.routingTable()).isEqualTo(before);
    }
}
