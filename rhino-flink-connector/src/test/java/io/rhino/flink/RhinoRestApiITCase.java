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
import io.rhino.flink.api.RhinoKeyedStreamOptions;
import io.rhino.flink.api.RhinoStreams;
import io.rhino.flink.api.rest.RawHttpConnection;
import io.rhino.flink.api.rest.RestFuzzCampaign;
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
import java.net.InetSocketAddress;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

/**
 * Rhino's REST API over real HTTP against a running job on three TaskManagers: listing, moving,
 * rebalancing a Zipf-skewed load, rescaling in and out, draining a TaskManager, every kind of bad
 * input (none changes the routing table), and in the end the job's output equals plain Flink's.
 */
@Timeout(300)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RhinoRestApiITCase {

    private static final String TOKEN = "rest-test-token";
    private static final String NAME = "skewed-counts";
    private static final int PARALLELISM = SkewedCountsJob.PARALLELISM;
    private static final int VNODES = 16;
    private static final long EVENTS = 300_000;
    private static final double MAX_IMBALANCE = 1.25;

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = RhinoClusters.threeTaskManagers();

    private final String runId = "rest-" + UUID.randomUUID();
    private Path checkpoints;
    private JobClient job;
    private String operatorPath;
    private RestCalls http;

    /**
     * Once, before the first test: the MiniCluster's environment is only installed around each
     * test, so a job submitted in a {@code @BeforeAll} would run on a cluster of its own.
     */
    @BeforeEach
    void startTheSkewedJobOnce() throws Exception {
        if (job != null) {
            return;
        }
        checkpoints = Files.createTempDirectory("rhino-rest-it");
        Configuration config = RhinoClusters.jobConfig(Mode.RHINO);
        RhinoClusters.withCheckpoints(config, checkpoints, Duration.ofSeconds(1));
        config.set(RhinoOptions.REST_AUTH_TOKEN, TOKEN);
        config.set(RhinoOptions.LOAD_REPORT_INTERVAL, Duration.ofMillis(200));
        config.set(RhinoOptions.LOAD_WINDOW, Duration.ofSeconds(5));
        // the fuzz test's stalled requests are cut short after this
        config.set(RhinoOptions.REST_REQUEST_TIMEOUT, Duration.ofSeconds(1));
        Configuration client = CLUSTER.getClientConfiguration();
        config.set(
                RhinoOptions.RESCALE_FLINK_REST_ADDRESS,
                "http://" + client.get(RestOptions.ADDRESS) + ":" + client.get(RestOptions.PORT));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        SkewedCountsJob.rhino(
                env,
                runId,
                EVENTS,
                RhinoKeyedStreamOptions.builder(NAME)
                        .vnodes(VNODES)
                        .stateTransfer(new FailingOnceStateTransfer(runId))
                        .build());
        job = env.executeAsync("rest-api");
        RhinoHandovers.awaitReady(job.getJobID(), NAME, Duration.ofSeconds(60));
        InetSocketAddress address = RhinoRestServer.address().orElseThrow();
        http = new RestCalls("http://127.0.0.1:" + address.getPort() + "/rhino/v1", TOKEN);
        operatorPath = "/jobs/" + job.getJobID() + "/operators/" + NAME;
        awaitLoadOnEveryActiveSubtask();
    }

    @Test
    @Order(1)
    void listsTheJobAndItsOperatorWithPerVnodeOwnersTaskManagersAndLoad() throws Exception {
        RestCalls.Reply jobs = http.get("/jobs");
        assertThat(jobs.status()).isEqualTo(200);
        assertThat(jobs.json().get("jobs").findValuesAsText("id"))
                .contains(job.getJobID().toString());

        RestCalls.Reply operators = http.get("/jobs/" + job.getJobID() + "/operators");
        assertThat(operators.status()).isEqualTo(200);
        JsonNode operator = operators.json().get("operators").get(0);
        assertThat(operator.get("name").asText()).isEqualTo(NAME);
        assertThat(operator.get("parallelism").asInt()).isEqualTo(PARALLELISM);
        assertThat(operator.get("active-subtasks").asInt()).isEqualTo(PARALLELISM);
        assertThat(operator.get("vnodes")).hasSize(VNODES);
        Set<String> taskManagers = new HashSet<>();
        double total = 0;
        for (JsonNode vnode : operator.get("vnodes")) {
            taskManagers.add(vnode.get("taskmanager").asText());
            total += vnode.get("records-per-second").asDouble();
            assertThat(vnode.get("replicas")).isEmpty();
        }
        assertThat(taskManagers)
                .as("four gates in slots of two or three TaskManagers")
                .hasSizeGreaterThan(1);
        assertThat(total)
                .as("the source's rate, measured by the routers")
                .isBetween(500.0, 4_000.0);
        awaitStateBytesReported();
        awaitBusyTimeReported();

        // per subtask: its vnodes and rates add up to the operator's, and Flink's busy time
        JsonNode subtasks = operator().get("subtasks");
        assertThat(subtasks).hasSize(PARALLELISM);
        int vnodes = 0;
        for (JsonNode subtask : subtasks) {
            vnodes += subtask.get("vnodes").asInt();
            assertThat(subtask.get("active").asBoolean()).isTrue();
            assertThat(subtask.get("taskmanager").asText()).isNotEmpty();
            assertThat(subtask.get("busy-ms-per-second").isNumber())
                    .as("busy time reported by subtask %s", subtask)
                    .isTrue();
            assertThat(subtask.get("busy-ms-per-second").asDouble()).isBetween(0.0, 1000.0);
        }
        assertThat(vnodes).isEqualTo(VNODES);
    }

    @Test
    @Order(2)
    void movesAVnodeAndARequestRepeatedWithItsIdRunsOnce() throws Exception {
        JsonNode before = operator();
        int owner = before.at("/vnodes/0/owner").asInt();
        int target = (owner + 1) % PARALLELISM;
        String body =
                "{\"request-id\": \"move-1\", \"moves\": [{\"vnode\": 0, \"to\": " + target + "}]}";

        RestCalls.Reply accepted = http.post(operatorPath + "/handovers", body);
        assertThat(accepted.status()).as(accepted.text()).isEqualTo(202);
        assertThat(accepted.json().get("request-id").asText()).isEqualTo("move-1");
        JsonNode status = http.awaitEnd(operatorPath + "/handovers/move-1", Duration.ofSeconds(60));
        assertThat(status.at("/status/id").asText()).as(status.toString()).isEqualTo("COMPLETED");
        assertThat(status.at("/operation/handovers/0/phase-durations-ms").size()).isGreaterThan(3);

        RestCalls.Reply repeated = http.post(operatorPath + "/handovers", body);
        assertThat(repeated.status()).isEqualTo(202);
        JsonNode after = operator();
        assertThat(after.at("/vnodes/0/owner").asInt()).isEqualTo(target);
        assertThat(after.get("epoch").asLong())
                .as("the repeated request did not run again")
                .isEqualTo(before.get("epoch").asLong() + 1);
        assertThat(
                        http.get(operatorPath + "/handovers")
                                .json()
                                .get("handovers")
                                .findValuesAsText("request-id"))
                .contains("move-1");
    }

    @Test
    @Order(3)
    void aReconfigurationWhileAnotherRunsIsAConflictNamingTheRunningOne() throws Exception {
        JsonNode before = operator();
        int owner = before.at("/vnodes/1/owner").asInt();
        FailingOnceStateTransfer.arm(runId, FailingOnceStateTransfer.Fault.SLOW);
        RestCalls.Reply slow =
                http.post(
                        operatorPath + "/handovers",
                        "{\"request-id\": \"slow-1\", \"moves\": [{\"vnode\": 1, \"to\": "
                                + (owner + 1) % PARALLELISM
                                + "}]}");
        assertThat(slow.status()).isEqualTo(202);

        RestCalls.Reply conflicting = http.post(operatorPath + "/rebalance", "{}");
        assertThat(conflicting.status()).as(conflicting.text()).isEqualTo(409);
        assertThat(conflicting.json().get("errors").get(0).asText()).contains("slow-1");

        JsonNode status = http.awaitEnd(operatorPath + "/handovers/slow-1", Duration.ofSeconds(60));
        assertThat(status.at("/status/id").asText()).isEqualTo("COMPLETED");
    }

    @Test
    @Order(4)
    void rebalanceBringsTheSkewedLoadUnderTheThreshold() throws Exception {
        // pile half of the other subtasks' vnodes onto subtask 0
        JsonNode table = operator();
        List<String> moves = new ArrayList<>();
        Map<Integer, Integer> seen = new HashMap<>();
        for (JsonNode vnode : table.get("vnodes")) {
            int owner = vnode.get("owner").asInt();
            if (owner != 0 && seen.merge(owner, 1, Integer::sum) % 2 == 0) {
                moves.add("{\"vnode\": " + vnode.get("id").asInt() + ", \"to\": 0}");
            }
        }
        RestCalls.Reply piled =
                http.post(
                        operatorPath + "/handovers",
                        "{\"request-id\": \"pile\", \"moves\": [" + String.join(",", moves) + "]}");
        assertThat(piled.status()).as(piled.text()).isEqualTo(202);
        assertThat(
                        http.awaitEnd(operatorPath + "/handovers/pile", Duration.ofSeconds(60))
                                .at("/status/id")
                                .asText())
                .isEqualTo("COMPLETED");
        double skewed = operator().get("load-imbalance").asDouble();
        assertThat(skewed).as("subtask 0 carries far more than the mean").isGreaterThan(1.6);

        RestCalls.Reply rebalance =
                http.post(
                        operatorPath + "/rebalance",
                        "{\"request-id\": \"rebalance-1\", \"max-imbalance\": "
                                + MAX_IMBALANCE
                                + "}");
        assertThat(rebalance.status()).as(rebalance.text()).isEqualTo(202);
        JsonNode status =
                http.awaitEnd(operatorPath + "/handovers/rebalance-1", Duration.ofSeconds(60));
        assertThat(status.at("/status/id").asText()).as(status.toString()).isEqualTo("COMPLETED");
        assertThat(status.at("/operation/kind").asText()).isEqualTo("rebalance");
        int moved = status.at("/operation/handovers/0/moves").size();
        assertThat(moved).isBetween(1, VNODES - 1);

        // the rates keep changing a little while the window slides: 0.1 of measurement drift
        assertThat(operator().get("load-imbalance").asDouble())
                .as("max/mean after the rebalance (was %.2f)", skewed)
                .isLessThan(MAX_IMBALANCE + 0.1);
    }

    @Test
    @Order(5)
    void rescalesInToTwoActiveSubtasksAndOutToAllAgain() throws Exception {
        rescaleTo(2, "rescale-in");
        JsonNode in = operator();
        assertThat(in.get("active-subtasks").asInt()).isEqualTo(2);
        assertThat(owners(in)).hasSize(2);

        rescaleTo(PARALLELISM, "rescale-out");
        assertThat(operator().get("active-subtasks").asInt()).isEqualTo(PARALLELISM);
    }

    @Test
    @Order(6)
    void drainsATaskManagerOfEveryVnode() throws Exception {
        RestCalls.Reply taskManagers = http.get("/jobs/" + job.getJobID() + "/taskmanagers");
        assertThat(taskManagers.status()).isEqualTo(200);
        JsonNode first = taskManagers.json().get("taskmanagers").get(0);
        String drained = first.get("id").asText();
        Set<Integer> drainedSubtasks = new HashSet<>();
        first.at("/subtasks/" + NAME).forEach(s -> drainedSubtasks.add(s.asInt()));
        assertThat(drainedSubtasks).isNotEmpty();

        RestCalls.Reply drain =
                http.post(
                        "/jobs/"
                                + job.getJobID()
                                + "/taskmanagers/"
                                + URLEncoder.encode(drained, StandardCharsets.UTF_8)
                                + "/drain",
                        "{\"request-id\": \"drain-1\"}");
        assertThat(drain.status()).as(drain.text()).isEqualTo(202);
        JsonNode status =
                http.awaitEnd(
                        "/jobs/" + job.getJobID() + "/reconfigurations/drain-1",
                        Duration.ofSeconds(60));
        assertThat(status.at("/status/id").asText()).as(status.toString()).isEqualTo("COMPLETED");
        JsonNode after = operator();
        for (JsonNode vnode : after.get("vnodes")) {
            assertThat(vnode.get("taskmanager").asText()).isNotEqualTo(drained);
        }
        assertThat(owners(after)).doesNotContainAnyElementsOf(drainedSubtasks);
        // and back, so the last test ends with every subtask active
        rescaleTo(PARALLELISM, "after-drain");
    }

    @Test
    @Order(7)
    void theCliListsMovesRescalesAndWaitsForTheEnd() throws Exception {
        String url = "http://127.0.0.1:" + RhinoRestServer.address().orElseThrow().getPort();
        String jobId = job.getJobID().toString();

        CliRun listed = CliRun.of("--url", url, "--token", TOKEN, "operators", jobId);
        assertThat(listed.code()).as(listed.err()).isZero();
        assertThat(listed.out())
                .contains(NAME)
                .contains("parallelism 4")
                .contains("records/s")
                .contains("busy ms/s");
        // no replication in this job: the command says so, with every subtask unreplicated
        CliRun replication = CliRun.of("--url", url, "--token", TOKEN, "replication", jobId, NAME);
        assertThat(replication.code()).as(replication.err()).isZero();
        assertThat(replication.out()).contains("mode none").contains("[]");

        int owner = operator().at("/vnodes/2/owner").asInt();
        int target = (owner + 1) % PARALLELISM;
        CliRun moved =
                CliRun.of(
                        "--url",
                        url,
                        "--token",
                        TOKEN,
                        "move",
                        jobId,
                        NAME,
                        "2",
                        "" + target,
                        "--wait");
        assertThat(moved.code()).as(moved.out() + moved.err()).isZero();
        assertThat(moved.out()).contains("COMPLETED");
        assertThat(operator().at("/vnodes/2/owner").asInt()).isEqualTo(target);

        CliRun rescaled =
                CliRun.of(
                        "--url", url, "--token", TOKEN, "rescale", jobId, NAME, "3", "--wait",
                        "--json");
        assertThat(rescaled.code()).as(rescaled.out() + rescaled.err()).isZero();
        assertThat(rescaled.out()).contains("\"COMPLETED\"");
        assertThat(operator().get("active-subtasks").asInt()).isEqualTo(3);
        rescaleTo(PARALLELISM, "cli-back");

        CliRun refused = CliRun.of("--url", url, "--token", TOKEN, "rescale", jobId, NAME, "9");
        assertThat(refused.code()).isEqualTo(3);
        assertThat(refused.err()).contains("HTTP 400").contains("1..4");
        CliRun unauthorized = CliRun.of("--url", url, "jobs");
        assertThat(unauthorized.code()).isEqualTo(3);
        assertThat(unauthorized.err()).contains("HTTP 401");
    }

    @Test
    @Order(8)
    void badInputIsRefusedWithAClearErrorAndChangesNothing() throws Exception {
        JsonNode before = operator();
        int owner0 = before.at("/vnodes/0/owner").asInt();
        String moves = operatorPath + "/handovers";
        String unknownJob = "/jobs/00000000000000000000000000000000/operators";

        expect(http.post(moves, "{not json"), 400, "not valid JSON");
        expect(http.post(moves, "[1, 2]"), 400, "must be a JSON object");
        expect(http.post(moves, "{\"moves\": \"vnode 1\"}"), 400, "'moves' must be an array");
        expect(
                http.post(moves, "{\"moves\": [{\"vnode\": \"a\", \"to\": 1}]}"),
                400,
                "'vnode' must be an integer");
        expect(http.post(moves, "{\"mvoes\": []}"), 400, "Unknown fields [mvoes]");
        expect(http.post(moves, "{\"moves\": []}"), 400, "at least one");
        expect(
                http.post(moves, "{\"moves\": [{\"vnode\": 999, \"to\": 1}]}"),
                404,
                "vnode 999 does not exist");
        expect(
                http.post(moves, "{\"moves\": [{\"vnode\": 0, \"to\": 17}]}"),
                404,
                "subtask 17 does not exist");
        expect(
                http.post(moves, "{\"moves\": [{\"vnode\": 0, \"to\": " + owner0 + "}]}"),
                400,
                "already owned");
        expect(
                http.post(
                        moves,
                        "{\"request-id\": \"a b/c\", \"moves\": [{\"vnode\": 0, \"to\": 1}]}"),
                400,
                "request-id");
        expect(
                http.post(
                        moves,
                        "{\"request-id\": \"move-1\", \"moves\": [{\"vnode\": 3, \"to\": 1}]}"),
                409,
                "already used");
        expect(http.post(operatorPath + "/rescale", "{\"active-subtasks\": 0}"), 400, "1..4");
        RestCalls.Reply pastDeployed =
                http.post(operatorPath + "/rescale", "{\"active-subtasks\": 5}");
        expect(pastDeployed, 400, "1..4");
        expect(pastDeployed, 400, "/jobs/" + job.getJobID() + "/resource-requirements");
        expect(pastDeployed, 400, "resubmit it from that savepoint at parallelism 5");
        // this cluster runs Flink's default scheduler: Rhino asks Flink, which cannot, and says so
        RestCalls.Reply restart =
                http.post(
                        operatorPath + "/rescale",
                        "{\"active-subtasks\": 5, \"allow-restart\": true}");
        expect(restart, 400, "needs Flink's adaptive scheduler");
        expect(restart, 400, "DefaultScheduler does not support changing the parallelism");
        expect(restart, 400, "jobmanager.scheduler: adaptive");
        expect(restart, 400, "resubmit it from that savepoint at parallelism 5");
        expect(
                http.post(
                        operatorPath + "/rescale",
                        "{\"active-subtasks\": 17, \"allow-restart\": true}"),
                400,
                "at most 16, the operator's vnode count");
        expect(
                http.post(
                        operatorPath + "/rescale",
                        "{\"active-subtasks\": 5, \"allow-restart\": \"yes\"}"),
                400,
                "allow-restart");
        expect(http.post(operatorPath + "/rescale", "{}"), 400, "Missing field 'active-subtasks'");
        expect(http.post(operatorPath + "/rebalance", "{\"max-imbalance\": 0.5}"), 400, ">= 1");
        expect(http.get(unknownJob), 404, "No running Rhino job");
        expect(http.get("/jobs/" + job.getJobID() + "/operators/nope"), 404, NAME);
        expect(http.get(operatorPath + "/handovers/never-requested"), 404, "never-requested");
        expect(
                http.get("/jobs/" + job.getJobID() + "/reconfigurations/never-requested"),
                404,
                "known here only if the job sets rhino.rest.request-journal.dir");
        expect(
                http.post("/jobs/" + job.getJobID() + "/taskmanagers/nowhere/drain", "{}"),
                404,
                "nowhere");
        expect(http.get("/nothing-here"), 404, "No such resource");
        RestCalls.Reply wrongMethod = http.send("DELETE", "/jobs", null, TOKEN);
        expect(wrongMethod, 405, "DELETE is not allowed");
        assertThat(wrongMethod.raw().headers().firstValue("Allow")).hasValue("GET");
        expect(http.get(operatorPath + "/rebalance"), 405, "allowed: POST");
        expect(http.send("GET", "/jobs", null, null), 401, "Bearer");
        expect(http.send("GET", "/jobs", null, "wrong-token"), 401, "Bearer");
        RestCalls.Reply tooLarge =
                http.post(
                        moves,
                        "{\"moves\": [], \"pad\": \""
                                + "x".repeat(RhinoRestServer.MAX_BODY_BYTES)
                                + "\"}");
        assertThat(tooLarge.status()).isEqualTo(413);
        expect(tooLarge, 413, "larger than " + RhinoRestServer.MAX_BODY_BYTES);
        // the JDK's client refuses to send a malformed escape: a raw request
        try (RawHttpConnection raw =
                new RawHttpConnection(RhinoRestServer.address().orElseThrow(), 10_000)) {
            raw.send(
                    "GET /rhino/v1/jobs/"
                            + job.getJobID()
                            + "/operators/%zz HTTP/1.1\r\nHost: localhost\r\n"
                            + "Authorization: Bearer "
                            + TOKEN
                            + "\r\n\r\n");
            RawHttpConnection.Response escape = raw.answer();
            assertThat(escape.status()).as(escape.body()).isEqualTo(400);
            assertThat(escape.json().get("errors").get(0).asText()).contains("percent-escape");
        }
        expect(
                http.post(moves, "{\"moves\": [{\"vnode\": 3, \"to\": 1}]} x"),
                400,
                "not valid JSON");
        expect(http.post(operatorPath + "/rebalance", "{\"max-imbalance\": 1e400}"), 400, "finite");

        JsonNode after = operator();
        assertThat(after.get("epoch")).isEqualTo(before.get("epoch"));
        assertThat(ownerByVnode(after)).isEqualTo(ownerByVnode(before));
    }

    /**
     * Two more jobs on the same JobManager, hence the same REST server: one with a token of its
     * own, one with REST disabled. Each job is reachable only with its own token; the disabled one
     * not at all.
     */
    @Test
    @Order(9)
    void eachJobOfTheJobManagerNeedsItsOwnTokenAndADisabledJobIsNotServed() throws Exception {
        String otherRun = runId + "-other";
        JobClient other = startSmallJob(otherRun, "other-counts", true, "other-token");
        JobClient hidden = startSmallJob(runId + "-hidden", "hidden-counts", false, null);
        try {
            RhinoHandovers.awaitReady(other.getJobID(), "other-counts", Duration.ofSeconds(60));
            RhinoHandovers.awaitReady(hidden.getJobID(), "hidden-counts", Duration.ofSeconds(60));
            String otherPath = "/jobs/" + other.getJobID() + "/operators/other-counts";
            RestCalls withOtherToken =
                    new RestCalls(
                            "http://127.0.0.1:"
                                    + RhinoRestServer.address().orElseThrow().getPort()
                                    + "/rhino/v1",
                            "other-token");

            assertThat(withOtherToken.get(otherPath).status()).isEqualTo(200);
            expect(http.get(otherPath), 401, "Wrong token for job " + other.getJobID());
            expect(withOtherToken.get(operatorPath), 401, "Wrong token for job " + job.getJobID());
            expect(
                    withOtherToken.post(operatorPath + "/rebalance", "{}"),
                    401,
                    "Wrong token for job " + job.getJobID());
            assertThat(http.get("/jobs").json().get("jobs").findValuesAsText("id"))
                    .containsExactly(job.getJobID().toString());
            assertThat(withOtherToken.get("/jobs").json().get("jobs").findValuesAsText("id"))
                    .containsExactly(other.getJobID().toString());

            String hiddenPath = "/jobs/" + hidden.getJobID() + "/operators/hidden-counts";
            expect(http.get(hiddenPath), 404, "No running Rhino job");
            expect(withOtherToken.get(hiddenPath), 404, "No running Rhino job");
            expect(http.post(hiddenPath + "/rebalance", "{}"), 404, "No running Rhino job");
        } finally {
            other.cancel().get();
            hidden.cancel().get();
        }
    }

    /**
     * The REST fuzz campaign against this running job (see docs/reliability.md; the long campaign
     * runs in RestFuzzTest): no 5xx, nothing left hanging, and the routing table changed only by
     * the valid moves among the requests, each awaited and applied to the expected owners.
     */
    @Test
    @Order(10)
    void fuzzedRequestsChangeTheTableOnlyByTheValidMovesAmongThem() throws Exception {
        int count = Integer.getInteger("rhino.fuzz.it-requests", 300);
        String seedProperty = System.getProperty("rhino.fuzz.seed", "38");
        long seed =
                seedProperty.equals("random") ? System.nanoTime() : Long.parseLong(seedProperty);
        JsonNode before = operator();
        int[] owners = ownerByVnode(before).stream().mapToInt(Integer::intValue).toArray();
        int[] completed = {0};
        RestFuzzCampaign.Outcome outcome =
                new RestFuzzCampaign(RhinoRestServer.address().orElseThrow(), Duration.ofSeconds(6))
                        .run(
                                seed,
                                count,
                                job.getJobID().toString(),
                                NAME,
                                TOKEN,
                                vnode -> owners[vnode],
                                requestId -> {
                                    JsonNode status = awaitMove(requestId);
                                    if (status.at("/status/id").asText().equals("COMPLETED")) {
                                        completed[0]++;
                                        for (JsonNode move :
                                                status.at("/operation/handovers/0/moves")) {
                                            owners[move.get("vnode").asInt()] =
                                                    move.get("to").asInt();
                                        }
                                    }
                                });
        LoggerFactory.getLogger(RhinoRestApiITCase.class)
                .info(
                        "REST fuzz against the running job: seed {}, {} requests, statuses {},"
                                + " closed without an answer {}, valid moves {} of which"
                                + " accepted {} and completed {}, violations {}",
                        seed,
                        outcome.requests(),
                        outcome.statusCounts(),
                        outcome.closedWithoutAnswer(),
                        outcome.validMoves(),
                        outcome.acceptedMoves().size(),
                        completed[0],
                        outcome.violations());
        assertThat(outcome.violations()).as("seed %s: %s", seed, outcome).isEmpty();
        JsonNode after = operator();
        assertThat(ownerByVnode(after))
                .as("seed %s: owners after %s", seed, outcome)
                .containsExactly(java.util.Arrays.stream(owners).boxed().toArray(Integer[]::new));
        assertThat(after.get("epoch").asLong())
                .as("one epoch per completed valid move, seed %s", seed)
                .isEqualTo(before.get("epoch").asLong() + completed[0]);
    }

    @Test
    @Order(11)
    void theOutputEqualsPlainFlinksAfterAllReconfigurations() throws Exception {
        ReleasableRate.release(runId);
        job.getJobExecutionResult().get();
        List<String> rhino = ResultSink.take(runId);
        Multisets.assertSameMultiset(
                "Rhino output under REST reconfigurations vs plain Flink",
                SkewedCountsJob.plainFlink(runId, EVENTS),
                rhino);
    }

    // ------------------------------------------------------------------ helpers

    private static JobClient startSmallJob(
            String run, String name, boolean restEnabled, String token) throws Exception {
        Configuration config = RhinoClusters.jobConfig(Mode.RHINO);
        config.set(RhinoOptions.REST_ENABLED, restEnabled);
        if (token != null) {
            config.set(RhinoOptions.REST_AUTH_TOKEN, token);
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        env.setParallelism(1);
        RhinoStreams.keyBy(
                        SkewedEvents.stream(env, EVENTS, 100, new ReleasableRate(run, 100)),
                        new ShapeFunctions.ByKey(),
                        RhinoKeyedStreamOptions.builder(name).vnodes(4).build())
                .process(new ShapeFunctions.CountPerKey())
                .sinkTo(new ResultSink(run));
        return env.executeAsync(name);
    }

    private void rescaleTo(int active, String requestId) throws Exception {
        RestCalls.Reply accepted =
                http.post(
                        operatorPath + "/rescale",
                        "{\"request-id\": \""
                                + requestId
                                + "\", \"active-subtasks\": "
                                + active
                                + "}");
        assertThat(accepted.status()).as(accepted.text()).isEqualTo(202);
        JsonNode status =
                http.awaitEnd(operatorPath + "/handovers/" + requestId, Duration.ofSeconds(60));
        assertThat(status.at("/status/id").asText()).as(status.toString()).isEqualTo("COMPLETED");
    }

    private JsonNode awaitMove(String requestId) {
        try {
            return http.awaitEnd(operatorPath + "/handovers/" + requestId, Duration.ofSeconds(60));
        } catch (Exception e) {
            throw new AssertionError("move " + requestId + " did not end", e);
        }
    }

    private JsonNode operator() throws Exception {
        RestCalls.Reply reply = http.get(operatorPath);
        assertThat(reply.status()).as(reply.text()).isEqualTo(200);
        return reply.json();
    }

    private static Set<Integer> owners(JsonNode operator) {
        Set<Integer> owners = new HashSet<>();
        operator.get("vnodes").forEach(v -> owners.add(v.get("owner").asInt()));
        return owners;
    }

    private static List<Integer> ownerByVnode(JsonNode operator) {
        List<Integer> owners = new ArrayList<>();
        operator.get("vnodes").forEach(v -> owners.add(v.get("owner").asInt()));
        return owners;
    }

    private static void expect(RestCalls.Reply reply, int status, String messagePart) {
        assertThat(reply.status()).as(reply.text()).isEqualTo(status);
        assertThat(reply.json().get("errors").get(0).asText()).contains(messagePart);
    }

    private void awaitLoadOnEveryActiveSubtask() throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (true) {
            JsonNode operator = operator();
            Set<Integer> loaded = new HashSet<>();
            operator.get("vnodes")
                    .forEach(
                            v -> {
                                if (v.get("records-per-second").asDouble() > 0) {
                                    loaded.add(v.get("owner").asInt());
                                }
                            });
            if (loaded.size() == PARALLELISM) {
                return;
            }
            assertThat(System.nanoTime()).as("no load reported: " + operator).isLessThan(deadline);
            Thread.sleep(200);
        }
    }

    /** Flink's busy time is reported once its gauges measured a few seconds of the task. */
    private void awaitBusyTimeReported() throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (operator().get("subtasks").findValues("busy-ms-per-second").stream()
                .anyMatch(JsonNode::isNull)) {
            assertThat(System.nanoTime()).as("no busy time reported").isLessThan(deadline);
            Thread.sleep(200);
        }
    }

    private void awaitStateBytesReported() throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (operator().findValues("state-bytes").stream().noneMatch(b -> b.asLong() > 0)) {
            assertThat(System.nanoTime()).as("no state size reported").isLessThan(deadline);
            Thread.sleep(200);
        }
    }
}
