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

import com.fasterxml.jackson.databind.JsonNode;
import io.rhino.core.handover.HandoverId;
import io.rhino.core.handover.HandoverPlan;
import io.rhino.core.handover.VnodeMove;
import io.rhino.core.routing.RoutingTable;
import io.rhino.flink.api.RhinoKeyedStreamOptions;
import io.rhino.flink.api.RhinoStreams;
import io.rhino.flink.api.rest.RhinoRestServer;
import io.rhino.flink.config.RhinoOptions;
import io.rhino.flink.coordination.RhinoHandovers;
import io.rhino.flink.testjobs.FailingOnceStateTransfer;
import io.rhino.flink.testjobs.Multisets;
import io.rhino.flink.testjobs.ReleasableRate;
import io.rhino.flink.testjobs.ResultSink;
import io.rhino.flink.testjobs.ShapeFunctions;
import io.rhino.flink.testjobs.SkewedEvents;
import io.rhino.flink.testjobs.TestPipelines.Mode;
import io.rhino.handover.HandoverManager;
import io.rhino.handover.HandoverResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.configuration.ClusterOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.executiongraph.AccessExecutionGraph;
import org.apache.flink.runtime.executiongraph.AccessExecutionVertex;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A drain over REST of a TaskManager that runs subtasks of three Rhino operators, whose vnodes have
 * the same numbers (each operator has vnodes 0..15, laid out alike): the drain's three handovers
 * run at once under one request id and export the same vnode numbers on the same TaskManager. The
 * drain completes, no vnode of any operator stays on the TaskManager, the job never restarts, its
 * output equals plain Flink's, and no export is left on any TaskManager once the job ended. The
 * same with one handover id given to a handover of each operator through the Java API.
 */
@Timeout(300)
class MultiOperatorDrainITCase {

    private static final String TOKEN = "drain-test-token";
    private static final List<String> OPERATORS = List.of("counts-a", "counts-b", "counts-c");
    private static final int PARALLELISM = 4;
    private static final int VNODES = 16;
    private static final int KEYS = 2_000;
    private static final long EVENTS = 60_000;

    private static final Path WORKING_DIRECTORIES = temporaryDirectory();

    @RegisterExtension
    static final MiniClusterExtension CLUSTER =
            RhinoClusters.threeTaskManagers(
                    new Configuration()
                            .set(
                                    ClusterOptions.PROCESS_WORKING_DIR_BASE,
                                    WORKING_DIRECTORIES.toString()));

    @TempDir Path checkpoints;
    @TempDir Path replicas;

    /**
     * @param replication {@code none}: exports through a local directory; {@code peers}: over the
     *     replication protocol to the target's TaskManager, which holds the replicated checkpoint;
     *     {@code dfs}: uploaded to a shared filesystem and downloaded by the target
     */
    @ParameterizedTest(name = "replication {0}")
    @ValueSource(strings = {"none", "peers", "dfs"})
    void drainingATaskManagerOfThreeOperatorsCompletesWithoutARestart(
            String replication, @InjectMiniCluster MiniCluster miniCluster) throws Exception {
        String runId = "drain-" + UUID.randomUUID();
        JobClient job = submit(runId, replication);
        JobID jobId = job.getJobID();
        for (String operator : OPERATORS) {
            RhinoHandovers.awaitReady(jobId, operator, Duration.ofSeconds(60));
        }
        RestCalls http = rest();
        // checkpointed state, so that exports link files of a completed checkpoint too
        RhinoClusters.checkpoint(miniCluster, jobId);

        JsonNode drained = taskManagerWithEveryOperator(http, jobId);
        String taskManager = drained.get("id").asText();
        JsonNode status = drain(http, jobId, taskManager, "drain-all");
        assertThat(status.at("/status/id").asText()).as(status.toString()).isEqualTo("COMPLETED");

        for (String operator : OPERATORS) {
            RestCalls.Reply view = http.get("/jobs/" + jobId + "/operators/" + operator);
            assertThat(view.status()).as(view.text()).isEqualTo(200);
            List<Integer> left = new ArrayList<>();
            for (JsonNode vnode : view.json().get("vnodes")) {
                if (vnode.get("taskmanager").asText().equals(taskManager)) {
                    left.add(vnode.get("id").asInt());
                }
            }
            assertThat(left).as("vnodes of '%s' left on %s", operator, taskManager).isEmpty();
        }
        assertNeverRestarted(miniCluster, jobId);
        finishAndCompare(miniCluster, job, runId, replication);
    }

    /**
     * One handover id given through the Java API to a handover on each of the three operators at
     * once, each moving the same vnodes (subtask 0's, all on one TaskManager): all complete, as
     * above. Over REST, a request id reused on another operator is refused.
     */
    @Test
    void oneHandoverIdReusedOnThreeOperatorsAtOnceCompletesWithoutARestart(
            @InjectMiniCluster MiniCluster miniCluster) throws Exception {
        String runId = "shared-id-" + UUID.randomUUID();
        JobClient job = submit(runId, "none");
        JobID jobId = job.getJobID();
        for (String operator : OPERATORS) {
            RhinoHandovers.awaitReady(jobId, operator, Duration.ofSeconds(60));
        }
        RhinoClusters.checkpoint(miniCluster, jobId);

        HandoverId shared = new HandoverId("shared-1");
        Map<String, CompletableFuture<HandoverResult>> results = new LinkedHashMap<>();
        Map<String, List<VnodeMove>> planned = new LinkedHashMap<>();
        for (String operator : OPERATORS) {
            HandoverManager manager = RhinoHandovers.manager(jobId, operator);
            RoutingTable table = manager.routingTable();
            List<VnodeMove> moves = new ArrayList<>();
            for (int vnode : table.vnodesOwnedBy(0)) {
                moves.add(new VnodeMove(vnode, 0, 1 + vnode % (PARALLELISM - 1)));
            }
            planned.put(operator, moves);
            results.put(operator, manager.handover(shared, HandoverPlan.of(table.epoch(), moves)));
        }
        assertThat(planned.values().stream().distinct())
                .as("the same vnodes moved on every operator")
                .hasSize(1);
        for (Map.Entry<String, CompletableFuture<HandoverResult>> result : results.entrySet()) {
            HandoverResult ended = result.getValue().get(60, TimeUnit.SECONDS);
            assertThat(ended.isCompleted()).as("%s: %s", result.getKey(), ended).isTrue();
            assertThat(
                            RhinoHandovers.manager(jobId, result.getKey())
                                    .routingTable()
                                    .vnodesOwnedBy(0))
                    .as("vnodes of '%s' left on subtask 0", result.getKey())
                    .isEmpty();
        }

        // over REST a request id names one reconfiguration: reused on another operator, the
        // request is refused, and nothing runs there
        RestCalls http = rest();
        String back = "{\"request-id\": \"rest-shared\", \"moves\": [{\"vnode\": 0, \"to\": 0}]}";
        String first = "/jobs/" + jobId + "/operators/" + OPERATORS.get(0) + "/handovers";
        RestCalls.Reply accepted = http.post(first, back);
        assertThat(accepted.status()).as(accepted.text()).isEqualTo(202);
        JsonNode status = http.awaitEnd(first + "/rest-shared", Duration.ofSeconds(60));
        assertThat(status.at("/status/id").asText()).as(status.toString()).isEqualTo("COMPLETED");
        String second = "/jobs/" + jobId + "/operators/" + OPERATORS.get(1);
        long epoch = http.get(second).json().get("epoch").asLong();
        RestCalls.Reply reused = http.post(second + "/handovers", back);
        assertThat(reused.status()).as(reused.text()).isBetween(409, 410);
        assertThat(reused.json().get("errors").get(0).asText()).contains("rest-shared");
        assertThat(http.get(second).json().get("epoch").asLong())
                .as("epoch of '%s'", OPERATORS.get(1))
                .isEqualTo(epoch);

        assertNeverRestarted(miniCluster, jobId);
        finishAndCompare(miniCluster, job, runId, "none");
    }

    /**
     * A drain whose first operator's handover fails after another vnode was installed (the job
     * fails over): the attempts that failed leave no export and no transfer directory behind, the
     * restarted ones start with empty ones, and the output holds the same results as plain Flink's
     * (some twice, replayed after the restart).
     */
    @Test
    void aDrainThatFailsOverLeavesNoExportBehind(@InjectMiniCluster MiniCluster miniCluster)
            throws Exception {
        String runId = "drain-failover-" + UUID.randomUUID();
        JobClient job = submit(runId, "none", true);
        JobID jobId = job.getJobID();
        for (String operator : OPERATORS) {
            RhinoHandovers.awaitReady(jobId, operator, Duration.ofSeconds(60));
        }
        RhinoClusters.checkpoint(miniCluster, jobId);
        RestCalls http = rest();
        String taskManager = taskManagerWithEveryOperator(http, jobId).get("id").asText();

        FailingOnceStateTransfer.arm(runId, FailingOnceStateTransfer.Fault.THROW_AFTER_AN_INSTALL);
        JsonNode status = drain(http, jobId, taskManager, "drain-fails");
        assertThat(status.at("/status/id").asText()).as(status.toString()).isEqualTo("FAILED");

        // restarted: every Rhino subtask's backend has its empty directory, nothing else is there
        int backends = OPERATORS.size() * PARALLELISM;
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        List<Path> left = transferDirectoryEntries();
        while (!(restarted(miniCluster, jobId) && onlyEmptyBackendDirectories(left, backends))) {
            assertThat(System.nanoTime())
                    .as("restarted with %s empty transfer directories; there: %s", backends, left)
                    .isLessThan(deadline);
            Thread.sleep(100);
            left = transferDirectoryEntries();
        }
        for (String operator : OPERATORS) {
            RhinoHandovers.awaitReady(jobId, operator, Duration.ofSeconds(60));
        }

        ReleasableRate.release(runId);
        job.getJobExecutionResult().get();
        assertThat(new HashSet<>(ResultSink.take(runId)))
                .as("distinct output lines vs plain Flink's")
                .isEqualTo(new HashSet<>(plainFlink(runId)));
        assertThat(transferDirectoryEntries())
                .as("vnode exports and transfer scratch left after the job")
                .isEmpty();
    }

    private static boolean restarted(MiniCluster miniCluster, JobID jobId) throws Exception {
        AccessExecutionGraph graph = miniCluster.getExecutionGraph(jobId).get();
        if (graph.getState() != org.apache.flink.api.common.JobStatus.RUNNING) {
            return false;
        }
        for (AccessExecutionVertex vertex : graph.getAllExecutionVertices()) {
            if (vertex.getCurrentExecutionAttempt().getAttemptNumber() == 0
                    || vertex.getExecutionState()
                            != org.apache.flink.runtime.execution.ExecutionState.RUNNING) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether {@code entries} (under rhino-transfer) are exactly {@code backends} empty directories
     * {@code <job>/<operator>/<execution>} with their parents.
     */
    private static boolean onlyEmptyBackendDirectories(List<Path> entries, int backends)
            throws IOException {
        int executions = 0;
        for (Path entry : entries) {
            if (!Files.isDirectory(entry)) {
                return false;
            }
            int depth = depthUnderTransferRoot(entry);
            if (depth > 3) {
                return false;
            }
            if (depth == 3) {
                executions++;
            }
        }
        return executions == backends;
    }

    private static int depthUnderTransferRoot(Path entry) {
        int depth = 0;
        for (Path path = entry; !path.getFileName().toString().equals("rhino-transfer"); ) {
            depth++;
            path = path.getParent();
        }
        return depth;
    }

    private static RestCalls rest() {
        return new RestCalls(
                "http://127.0.0.1:"
                        + RhinoRestServer.address().orElseThrow().getPort()
                        + "/rhino/v1",
                TOKEN);
    }

    /** Lets the job run to its end; its output must be plain Flink's, nothing left behind. */
    private void finishAndCompare(
            MiniCluster miniCluster, JobClient job, String runId, String replication)
            throws Exception {
        ReleasableRate.release(runId);
        job.getJobExecutionResult().get();
        assertNeverRestarted(miniCluster, job.getJobID());
        Multisets.assertSameMultiset(
                "output of three operators vs plain Flink",
                plainFlink(runId),
                ResultSink.take(runId));
        assertThat(transferDirectoryEntries())
                .as("vnode exports and transfer scratch left after the job")
                .isEmpty();
        if (replication.equals("dfs")) {
            try (Stream<Path> uploads = Files.walk(replicas)) {
                assertThat(uploads.filter(Files::isRegularFile).toList())
                        .as("uploads left on the shared filesystem")
                        .isEmpty();
            }
        }
    }

    private JobClient submit(String runId, String replication) throws Exception {
        return submit(runId, replication, false);
    }

    /**
     * @param firstFails whether the first operator ships through {@link FailingOnceStateTransfer}
     *     (local directory), to arm
     */
    private JobClient submit(String runId, String replication, boolean firstFails)
            throws Exception {
        Configuration config = RhinoClusters.jobConfig(Mode.RHINO);
        if (replication.equals("peers")) {
            RhinoClusters.withPeerReplication(config, replicas, null);
        } else if (replication.equals("dfs")) {
            config.set(RhinoOptions.REPLICATION_MODE, "dfs");
            config.set(RhinoOptions.REPLICATION_DFS_PATH, replicas.toUri().toString());
        }
        RhinoClusters.withCheckpoints(
                config, checkpoints, RhinoClusters.ONLY_TRIGGERED_CHECKPOINTS);
        // a failover would show as a restart (and as duplicated output), not fail the test early
        RhinoClusters.withRestarts(config, 3, Duration.ofMillis(200));
        config.set(RhinoOptions.REST_AUTH_TOKEN, TOKEN);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        env.setParallelism(PARALLELISM);
        DataStream<Tuple3<Long, Long, Long>> events =
                SkewedEvents.stream(env, EVENTS, KEYS, new ReleasableRate(runId, 1_000));
        DataStream<String> output = null;
        for (String operator : OPERATORS) {
            RhinoKeyedStreamOptions.Builder options =
                    RhinoKeyedStreamOptions.builder(operator).vnodes(VNODES);
            if (firstFails && operator.equals(OPERATORS.get(0))) {
                options.stateTransfer(new FailingOnceStateTransfer(runId));
            }
            DataStream<String> counts =
                    RhinoStreams.keyBy(events, new ShapeFunctions.ByKey(), options.build())
                            .process(new ShapeFunctions.CountPerKey())
                            .map(new Prefixed(operator));
            output = output == null ? counts : output.union(counts);
        }
        output.sinkTo(new ResultSink(runId));
        return env.executeAsync("multi-operator-drain");
    }

    /** The same three counts on plain Flink, at full speed. */
    private static List<String> plainFlink(String runId) throws Exception {
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.getExecutionEnvironment(
                        RhinoClusters.jobConfig(Mode.PLAIN));
        env.setParallelism(PARALLELISM);
        String reference = runId + "-plain";
        DataStream<Tuple3<Long, Long, Long>> events =
                SkewedEvents.stream(env, EVENTS, KEYS, RateLimiterStrategy.noOp());
        DataStream<String> output = null;
        for (String operator : OPERATORS) {
            DataStream<String> counts =
                    events.keyBy(new ShapeFunctions.ByKey())
                            .process(new ShapeFunctions.CountPerKey())
                            .map(new Prefixed(operator));
            output = output == null ? counts : output.union(counts);
        }
        output.sinkTo(new ResultSink(reference));
        env.execute("multi-operator-reference");
        return ResultSink.take(reference);
    }

    /** Drains {@code taskManager} over REST under {@code requestId} and awaits its end. */
    private static JsonNode drain(RestCalls http, JobID jobId, String taskManager, String requestId)
            throws Exception {
        RestCalls.Reply accepted =
                http.post(
                        "/jobs/"
                                + jobId
                                + "/taskmanagers/"
                                + URLEncoder.encode(taskManager, StandardCharsets.UTF_8)
                                + "/drain",
                        "{\"request-id\": \"" + requestId + "\"}");
        assertThat(accepted.status()).as(accepted.text()).isEqualTo(202);
        return http.awaitEnd(
                "/jobs/" + jobId + "/reconfigurations/" + requestId, Duration.ofSeconds(120));
    }

    /** A TaskManager running subtasks of all three operators, as the REST API lists it. */
    private static JsonNode taskManagerWithEveryOperator(RestCalls http, JobID jobId)
            throws Exception {
        RestCalls.Reply taskManagers = http.get("/jobs/" + jobId + "/taskmanagers");
        assertThat(taskManagers.status()).as(taskManagers.text()).isEqualTo(200);
        for (JsonNode taskManager : taskManagers.json().get("taskmanagers")) {
            Set<String> operators = new HashSet<>();
            for (String operator : OPERATORS) {
                if (taskManager.at("/subtasks/" + operator).size() > 0) {
                    operators.add(operator);
                }
            }
            if (operators.size() == OPERATORS.size()) {
                return taskManager;
            }
        }
        throw new AssertionError(
                "no TaskManager runs subtasks of all of " + OPERATORS + ": " + taskManagers.text());
    }

    /** No task of the job failed or ran a second attempt. */
    private static void assertNeverRestarted(MiniCluster miniCluster, JobID jobId)
            throws Exception {
        AccessExecutionGraph graph = miniCluster.getExecutionGraph(jobId).get();
        assertThat(graph.getFailureInfo()).as("the job's last failure (it failed over)").isNull();
        for (AccessExecutionVertex vertex : graph.getAllExecutionVertices()) {
            assertThat(vertex.getCurrentExecutionAttempt().getAttemptNumber())
                    .as("attempt of %s", vertex.getTaskNameWithSubtaskIndex())
                    .isZero();
        }
    }

    /**
     * Everything under the TaskManagers' {@code rhino-transfer} directories (in each MiniCluster's
     * TaskManager working directory, {@code tmp/rhino-transfer}). Backends delete theirs while a
     * restart runs: a walk that met a directory being deleted is tried again.
     */
    private static List<Path> transferDirectoryEntries() throws Exception {
        for (int attempt = 1; ; attempt++) {
            try {
                return walkTransferDirectories();
            } catch (UncheckedIOException | NoSuchFileException deletedWhileWalking) {
                if (attempt == 50) {
                    throw deletedWhileWalking;
                }
                Thread.sleep(20);
            }
        }
    }

    private static List<Path> walkTransferDirectories() throws IOException {
        List<Path> roots;
        try (Stream<Path> paths = Files.walk(WORKING_DIRECTORIES, 3)) {
            roots =
                    paths.map(path -> path.resolve("rhino-transfer"))
                            .filter(Files::isDirectory)
                            .toList();
        }
        List<Path> entries = new ArrayList<>();
        for (Path root : roots) {
            try (Stream<Path> under = Files.walk(root)) {
                under.filter(path -> !path.equals(root)).forEach(entries::add);
            }
        }
        return entries;
    }

    private static Path temporaryDirectory() {
        try {
            Path directory = Files.createTempDirectory("rhino-drain-it");
            directory.toFile().deleteOnExit();
            return directory;
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Tags each line with the operator that wrote it. */
    private static final class Prefixed implements MapFunction<String, String> {
        private static final long serialVersionUID = 1L;
        private final String operator;

        Prefixed(String operator) {
            this.operator = operator;
        }

        @Override
        public String map(String line) {
            return operator + ":" + line;
        }
    }
}
