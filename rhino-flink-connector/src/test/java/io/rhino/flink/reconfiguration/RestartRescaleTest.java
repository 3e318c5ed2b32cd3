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

package io.rhino.flink.reconfiguration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import io.rhino.core.routing.RoutingTable;
import io.rhino.core.routing.VnodeLayout;
import io.rhino.flink.IdleManagers;
import io.rhino.flink.state.RestoreSource;
import io.rhino.handover.HandoverManager;
import io.rhino.handover.operation.Reconfigurations;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The restart-rescale state machine, driven by hand: operators appear and leave the directory as a
 * restart by Flink's adaptive scheduler makes them, and the clock moves only when the test says.
 */
class RestartRescaleTest {

    private static final String JOB = "job-1";
    private static final int VNODES = 12;

    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    private final List<OperatorView> running = new CopyOnWriteArrayList<>();
    private final AtomicLong clock = new AtomicLong(1_000);
    private final RhinoDirectory directory =
            new RhinoDirectory() {
                @Override
                public List<OperatorView> operators() {
                    return running;
                }

                @Override
                public Reconfigurations reconfigurations() {
                    return new Reconfigurations(10, clock::get);
                }
            };

    private HttpServer flinkServer;

    @AfterEach
    void stop() {
        timer.shutdownNow();
        if (flinkServer != null) {
            flinkServer.stop(0);
        }
    }

    @Test
    void followsTheRestartUntilTheOperatorRunsAtTheAskedParallelism() throws Exception {
        OperatorView before = operator(4, Map.of(), -1);
        running.add(before);
        RestartRescale rescale = rescale(before, 6, 60_000);
        AtomicInteger phaseChanges = new AtomicInteger();
        rescale.onPhaseChange(phaseChanges::incrementAndGet);

        rescale.poll();
        assertThat(rescale.report()).containsEntry("phase", "REQUESTED");

        clock.addAndGet(2_000);
        running.clear(); // Flink cancelled the job's tasks and closed its coordinators
        rescale.poll();
        assertThat(rescale.report()).containsEntry("phase", "RESTARTING");

        clock.addAndGet(500);
        Map<Integer, RestoreSource> sources = new TreeMap<>();
        IntStream.range(0, VNODES)
                .forEach(
                        v ->
                                sources.put(
                                        v,
                                        v < 2
                                                ? RestoreSource.TASK_LOCAL
                                                : v < 10
                                                        ? RestoreSource.REPLICA
                                                        : RestoreSource.PEER_REPLICA));
        OperatorView after = operator(6, sources, 7);
        running.add(after);
        rescale.poll();
        assertThat(rescale.result()).isDone();
        Map<String, Object> report = rescale.report();
        assertThat(report)
                .containsEntry("phase", "RUNNING")
                .containsEntry("reached-parallelism", 6)
                .containsEntry("restored-checkpoint", 7L)
                .containsEntry(
                        "restored-from",
                        Map.of(
                                "task-local", 2,
                                "replica", 8,
                                "peer-replica", 2,
                                "checkpoint-storage", 0));
        assertThat(report.get("phase-durations-ms"))
                .isEqualTo(Map.of("until-restart", 2_000L, "downtime", 500L, "total", 2_500L));
        assertThat(rescale.result().join()).isNull();
        assertThat(phaseChanges)
                .as("changes before the end (to RESTARTING; RUNNING ends it)")
                .hasValue(1);
    }

    /**
     * A new JobManager takes the rescale over from what the earlier one recorded (its report): it
     * keeps the request's time and the restart's start, and ends once the operator runs at the
     * asked parallelism, asking Flink nothing.
     */
    @Test
    void aRescaleTakenOverFromItsRecordEndsOnceTheOperatorRunsAtTheAskedParallelism()
            throws Exception {
        OperatorView before = operator(4, Map.of(), -1);
        running.add(before);
        RestartRescale earlier = rescale(before, 6, 60_000);
        clock.addAndGet(2_000);
        running.clear();
        earlier.poll(); // RESTARTING, then the earlier JobManager is lost
        JsonNode recorded = Json.MAPPER.valueToTree(earlier.report());

        clock.addAndGet(3_000);
        RestartRescale taken =
                RestartRescale.resumed(
                        directory,
                        new FlinkRest(URI.create("http://127.0.0.1:1")),
                        JOB,
                        "counts",
                        recorded,
                        60_000,
                        clock::get);
        taken.poll();
        assertThat(taken.report())
                .containsEntry("phase", "RESTARTING")
                .containsEntry("from-parallelism", 4)
                .containsEntry("to-parallelism", 6)
                .containsEntry("requested-at", 1_000L)
                .containsEntry("resumed-after-jobmanager-failover-at", 6_000L);

        clock.addAndGet(1_000);
        running.add(operator(6, Map.of(), 4)); // the job recovered at the persisted parallelism
        taken.poll();
        assertThat(taken.result()).isCompleted();
        assertThat(taken.report())
                .containsEntry("phase", "RUNNING")
                .containsEntry("reached-parallelism", 6)
                .containsEntry("restored-checkpoint", 4L);
        assertThat(taken.report().get("phase-durations-ms"))
                .as("durations from the recorded request and restart, not from the takeover")
                .isEqualTo(Map.of("until-restart", 2_000L, "downtime", 4_000L, "total", 6_000L));
    }

    @Test
    void aRecordWithoutTheParallelismsIsRefused() {
        assertThatThrownBy(
                        () ->
                                RestartRescale.resumed(
                                        directory,
                                        new FlinkRest(URI.create("http://127.0.0.1:1")),
                                        JOB,
                                        "counts",
                                        Json.MAPPER.createObjectNode().put("requested-at", 1L),
                                        60_000,
                                        clock::get))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("from-parallelism");
    }

    @Test
    void aRestartAtAnotherParallelismIsFollowedFurtherAndTheTimeoutNamesWhereItStands()
            throws Exception {
        OperatorView before = operator(4, Map.of(), -1);
        running.add(before);
        RestartRescale rescale = rescale(before, 6, 10_000);

        running.clear();
        rescale.poll();
        OperatorView atFive = operator(5, Map.of(), 3); // only five free slots
        running.add(atFive);
        rescale.poll();
        rescale.poll();
        assertThat(rescale.result()).isNotDone();
        assertThat(rescale.report())
                .containsEntry("phase", "REQUESTED")
                .containsEntry("reached-parallelism", 5);

        clock.addAndGet(10_000);
        rescale.poll();
        assertThat(rescale.result()).isCompletedExceptionally();
        assertThat((String) rescale.report().get("failure"))
                .contains("does not run at parallelism 6")
                .contains("still runs at 5")
                .contains("free slots");
    }

    /**
     * A cancel or a stop-with-savepoint that lands while Flink restarts the job: no operator of the
     * job comes back, and the rescale ends failed with the job's state as Flink reports it, not by
     * the timeout.
     */
    @ParameterizedTest
    @CsvSource({"CANCELED", "FINISHED", "FAILED"})
    void aJobThatEndsDuringTheRestartFailsTheRescaleWithItsState(String state) throws Exception {
        OperatorView before = operator(4, Map.of(), -1);
        running.add(before);
        RestartRescale rescale = rescale(before, 6, 600_000, flinkAnsweringJobState(200, state));

        clock.addAndGet(1_000);
        running.clear(); // the restart closed the coordinators; the cancel keeps them closed
        rescale.poll();
        assertThat(rescale.report()).containsEntry("phase", "RESTARTING");
        clock.addAndGet(1_000); // the job's state is read every 2 s while no operator runs
        rescale.poll();
        clock.addAndGet(1_000);
        rescale.poll();

        assertThat(rescale.result()).isCompletedExceptionally();
        assertThat(rescale.report()).containsEntry("phase", "FAILED");
        assertThat((String) rescale.report().get("failure"))
                .isEqualTo("the job ended (" + state + ") before it ran at 6");
    }

    @Test
    void aJobFlinkNoLongerKnowsFailsTheRescale() throws Exception {
        OperatorView before = operator(4, Map.of(), -1);
        running.add(before);
        RestartRescale rescale = rescale(before, 6, 600_000, flinkAnsweringJobState(404, null));

        running.clear();
        rescale.poll();
        clock.addAndGet(2_000);
        rescale.poll();

        assertThat(rescale.result()).isCompletedExceptionally();
        assertThat((String) rescale.report().get("failure")).startsWith("Flink no longer knows");
    }

    @Test
    void aJobThatStillRunsWhileItsOperatorsRestartIsFollowedOn() throws Exception {
        OperatorView before = operator(4, Map.of(), -1);
        running.add(before);
        RestartRescale rescale =
                rescale(before, 6, 600_000, flinkAnsweringJobState(200, "RESTARTING"));

        running.clear();
        rescale.poll();
        clock.addAndGet(4_000);
        rescale.poll();
        assertThat(rescale.result()).isNotDone();

        running.add(operator(6, Map.of(), 3));
        rescale.poll();
        assertThat(rescale.report()).containsEntry("phase", "RUNNING");
    }

    @ParameterizedTest
    @CsvSource({"202, completed (checkpoint 12)", "400, not triggered: Flink answered POST"})
    void aCheckpointIsAskedForRightAfterTheNewRequirementsAndARefusalOnlyCostsTheWait(
            int checkpointStatus, String reported) throws Exception {
        List<String> calls = new CopyOnWriteArrayList<>();
        URI flink =
                flinkTriggering(
                        calls,
                        new Answer(
                                checkpointStatus,
                                checkpointStatus == 202
                                        ? "{\"request-id\":\"trigger-7\"}"
                                        : "{\"errors\":[\"no checkpoint now\"]}"),
                        () ->
                                "{\"status\":{\"id\":\"COMPLETED\"},"
                                        + "\"operation\":{\"checkpointId\":12}}");
        OperatorView before = operator(4, Map.of(), -1);
        running.add(before);
        RestartRescale rescale = rescale(before, 6, 600_000, flink);

        rescale.start(com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode());
        long deadline = System.nanoTime() + 10_000_000_000L;
        // the rescale's own polling reads the trigger's result (Flink's REST server holds its
        // shutdown until a client read it)
        while (!String.valueOf(rescale.report().get("checkpoint-trigger")).startsWith(reported)
                && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }

        assertThat(calls)
                .startsWith(
                        "PUT /jobs/" + JOB + "/resource-requirements",
                        "POST /jobs/" + JOB + "/checkpoints");
        assertThat((String) rescale.report().get("checkpoint-trigger")).startsWith(reported);
        assertThat(rescale.result()).as("the rescale goes on either way").isNotDone();
        rescale.poll();
        assertThat(rescale.report()).containsEntry("phase", "REQUESTED");
        if (checkpointStatus == 202) {
            assertThat(calls).contains("GET /jobs/" + JOB + "/checkpoints/trigger-7");
        }
    }

    /**
     * The checkpoint Rhino asked for has no result yet when the operator runs again (Flink aborts
     * it with the restart, moments later): its result is still read after the rescale ended, or
     * Flink's REST server would hold its shutdown for it, and the reading then stops.
     */
    @Test
    void theAskedForCheckpointsResultIsReadAfterTheRescaleEnded() throws Exception {
        List<String> calls = new CopyOnWriteArrayList<>();
        AtomicBoolean aborted = new AtomicBoolean();
        String triggerStatus = "GET /jobs/" + JOB + "/checkpoints/trigger-7";
        URI flink =
                flinkTriggering(
                        calls,
                        new Answer(202, "{\"request-id\":\"trigger-7\"}"),
                        () ->
                                aborted.get()
                                        ? "{\"status\":{\"id\":\"COMPLETED\"},"
                                                + "\"operation\":{\"failure-cause\":"
                                                + "{\"stack-trace\":\"CheckpointException:"
                                                + " Checkpoint Coordinator is suspending.\"}}}"
                                        : "{\"status\":{\"id\":\"IN_PROGRESS\"}}");
        OperatorView before = operator(4, Map.of(), -1);
        running.add(before);
        RestartRescale rescale = rescale(before, 6, 600_000, flink);
        rescale.start(com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode());
        awaitCondition(() -> calls.contains(triggerStatus));

        running.clear();
        rescale.poll();
        running.add(operator(6, Map.of(), 7));
        rescale.poll();
        assertThat(rescale.result()).isDone();
        assertThat((String) rescale.report().get("checkpoint-trigger"))
                .as("not known yet when the operator ran")
                .isEqualTo("triggered (trigger-7)");

        aborted.set(true);
        clock.addAndGet(1_000); // the result is read every 500 ms
        awaitCondition(
                () ->
                        String.valueOf(rescale.report().get("checkpoint-trigger"))
                                .startsWith("failed: CheckpointException"));
        long readsWhenRead = calls.stream().filter(triggerStatus::equals).count();
        clock.addAndGet(60_000);
        Thread.sleep(300); // several of the rescale's own polls
        assertThat(calls.stream().filter(triggerStatus::equals).count())
                .as("reads of the result once it was read")
                .isEqualTo(readsWhenRead);
    }

    private static void awaitCondition(java.util.function.BooleanSupplier condition)
            throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("waited 10 s").isLessThan(deadline);
            Thread.sleep(10);
        }
    }

    /**
     * A Flink REST endpoint that takes new requirements, answers the checkpoint trigger with {@code
     * trigger} and the status of trigger {@code trigger-7} with {@code status}, and records every
     * call in {@code calls}.
     */
    private URI flinkTriggering(
            List<String> calls, Answer trigger, java.util.function.Supplier<String> status)
            throws Exception {
        return fakeFlink(
                call -> {
                    calls.add(call);
                    if (call.equals("GET /jobs/" + JOB + "/checkpoints/trigger-7")) {
                        return new Answer(200, status.get());
                    }
                    if (call.endsWith("/checkpoints")) {
                        return trigger;
                    }
                    return call.startsWith("PUT")
                            ? new Answer(200, "{}")
                            : new Answer(404, "{\"errors\":[\"unknown\"]}");
                });
    }

    /** A Flink REST endpoint whose {@code GET /jobs/job-1} answers as given. */
    private URI flinkAnsweringJobState(int status, String state) throws Exception {
        return fakeFlink(
                call ->
                        new Answer(
                                status,
                                status == 200
                                        ? "{\"jid\":\"" + JOB + "\",\"state\":\"" + state + "\"}"
                                        : "{\"errors\":[\"Job " + JOB + " not found\"]}"));
    }

    /** What the fake Flink answers a call. */
    private record Answer(int status, String body) {}

    /**
     * A Flink REST endpoint that answers every call under {@code /jobs/job-1} ("METHOD path") as
     * {@code answers} says.
     */
    private URI fakeFlink(Function<String, Answer> answers) throws Exception {
        flinkServer =
                HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        flinkServer.createContext(
                "/jobs/" + JOB,
                exchange -> {
                    Answer answer =
                            answers.apply(
                                    exchange.getRequestMethod() + " " + exchange.getRequestURI());
                    byte[] bytes = answer.body().getBytes(StandardCharsets.UTF_8);
                    exchange.getResponseHeaders().add("Content-Type", "application/json");
                    exchange.sendResponseHeaders(answer.status(), bytes.length);
                    exchange.getResponseBody().write(bytes);
                    exchange.close();
                });
        flinkServer.start();
        return URI.create("http://127.0.0.1:" + flinkServer.getAddress().getPort());
    }

    private RestartRescale rescale(OperatorView before, int to, long timeoutMillis)
            throws Exception {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort(); // nothing answers there: Flink's details are optional
        }
        return rescale(before, to, timeoutMillis, URI.create("http://127.0.0.1:" + port));
    }

    private RestartRescale rescale(OperatorView before, int to, long timeoutMillis, URI flink) {
        return new RestartRescale(
                directory, new FlinkRest(flink), before, to, timeoutMillis, clock::get);
    }

    /** A running operator at {@code parallelism} whose gates restored as given. */
    private OperatorView operator(
            int parallelism, Map<Integer, RestoreSource> restored, long checkpoint) {
        HandoverManager manager =
                IdleManagers.manager(
                        "counts",
                        RoutingTable.initial(
                                new VnodeLayout(128, VNODES), parallelism, parallelism),
                        1,
                        clock::get,
                        timer);
        Map<Integer, String> gates = new TreeMap<>();
        IntStream.range(0, parallelism).forEach(s -> gates.put(s, "tm-" + s % 3));
        return new OperatorView() {
            @Override
            public String jobId() {
                return JOB;
            }

            @Override
            public String name() {
                return "counts";
            }

            @Override
            public int parallelism() {
                return parallelism;
            }

            @Override
            public Optional<HandoverManager> manager() {
                return Optional.of(manager);
            }

            @Override
            public Map<Integer, String> taskManagerBySubtask() {
                return gates;
            }

            @Override
            public double[] recordsPerSecond() {
                return new double[VNODES];
            }

            @Override
            public long stateBytes(int vnode) {
                return -1;
            }

            @Override
            public Map<Integer, RestoreSource> restoreSourceByVnode() {
                return restored;
            }

            @Override
            public OptionalLong restoredCheckpointId() {
                return checkpoint < 0 ? OptionalLong.empty() : OptionalLong.of(checkpoint);
            }
        };
    }
}
