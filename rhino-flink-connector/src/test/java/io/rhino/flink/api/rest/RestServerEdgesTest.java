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

package io.rhino.flink.api.rest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.rhino.core.handover.HandoverId;
import io.rhino.core.handover.HandoverPlan;
import io.rhino.core.handover.VnodeMove;
import io.rhino.flink.config.RhinoRuntimeSettings;
import io.rhino.handover.HandoverManager;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * The REST server's edges over real sockets: malformed HTTP, paths and JSON, oversized and stalled
 * requests, idle and surplus connections, browser-reachable requests, per-job tokens, and the
 * statuses of refusals that pass (503) and those that never will (409, 410). Every error is {@code
 * {"errors": [...]}}.
 */
@Timeout(60)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RestServerEdgesTest {

    private static final Duration IDLE = Duration.ofMillis(2_500);
    private static final Duration REQUEST = Duration.ofMillis(1_000);
    private static final int MAX_CONNECTIONS = 8;

    private final TestOperators operators = new TestOperators();
    private HandoverManager jobA;
    private HandoverManager ended;
    private HandoverManager endedJob;
    private HandoverManager restarting;
    private HandoverManager usedId;
    private RhinoRestServer.Lease lease;
    private InetSocketAddress address;

    @BeforeAll
    void startServer() {
        jobA = operators.add("job-a", "op", true, "token-a");
        operators.add("job-b", "op", true, "token-b");
        operators.add("job-off", "op", false, null);
        operators.add("job-open", "op", true, null);
        ended = operators.add("job-open", "ended", true, null);
        endedJob = operators.add("job-ended", "op", true, null);
        restarting = operators.add("job-open", "restarting", true, null);
        usedId = operators.add("job-open", "used-id", true, null);
        lease =
                RhinoRestServer.acquire(
                        new RhinoRuntimeSettings.Rest(
                                true, "127.0.0.1", 0, null, IDLE, REQUEST, MAX_CONNECTIONS, null),
                        operators,
                        1.2);
        address = RhinoRestServer.address().orElseThrow();
    }

    @AfterAll
    void stopServer() {
        lease.close();
        operators.close();
    }

    // ------------------------------------------------------------------ malformed requests

    @Test
    void malformedPercentEscapesAre400AndTheConnectionKeepsAnswering() throws Exception {
        try (RawHttpConnection c = connect()) {
            for (String path :
                    List.of(
                            "/rhino/v1/jobs/%/operators",
                            "/rhino/v1/jobs/%zz/operators",
                            "/rhino/v1/jobs/4%E2%80%AEx%/operators",
                            "/rhino/v1/%")) {
                c.send(get(path, "token-a"));
                RawHttpConnection.Response r = c.answer();
                assertThat(r.status()).as(path + ": " + r.body()).isEqualTo(400);
                assertThat(error(r)).contains("malformed percent-escape");
            }
            c.send(get("/rhino/v1/jobs/job-open/operators", null));
            assertThat(c.answer().status()).isEqualTo(200);
        }
    }

    @Test
    void jsonWithTrailingGarbageDuplicateKeysOrAnInfiniteNumberIs400() throws Exception {
        String moves = "/rhino/v1/jobs/job-open/operators/op/handovers";
        expect(post(moves, "{\"moves\": [{\"vnode\": 0, \"to\": 1}]} trailing"), 400, "trailing");
        expect(
                post(moves, "{\"moves\": [{\"vnode\": 0, \"to\": 1}], \"moves\": []}"),
                400,
                "Duplicate field 'moves'");
        expect(
                post(
                        "/rhino/v1/jobs/job-open/operators/op/rebalance",
                        "{\"max-imbalance\": 1e400}"),
                400,
                "must be a finite number");
        assertThat(operators.operators().get(3).manager().orElseThrow().currentHandover())
                .as("nothing started")
                .isEmpty();
    }

    @Test
    void aMalformedRequestIsAnswered400AndItsConnectionClosed() throws Exception {
        try (RawHttpConnection c = connect()) {
            // an oversized header, then a pipelined request that can no longer be framed
            c.send(
                    "GET /rhino/v1/jobs HTTP/1.1\r\nHost: localhost\r\nX-Big: "
                            + "a".repeat(10_000)
                            + "\r\n\r\n"
                            + "GET /rhino/v1/jobs HTTP/1.1\r\nHost: localhost\r\n\r\n");
            RawHttpConnection.Response r = c.answer();
            assertThat(r.status()).isEqualTo(400);
            assertThat(error(r)).contains("Malformed HTTP request");
            assertThat(r.closes()).isTrue();
            assertThat(c.read()).isEqualTo(RawHttpConnection.End.CLOSED);
        }
    }

    @Test
    void aChunkedGzipTransferEncodingIsAnsweredNotLeftHanging() throws Exception {
        try (RawHttpConnection c = connect()) {
            c.send(
                    "POST /rhino/v1/jobs/job-open/operators/op/rebalance HTTP/1.1\r\n"
                            + "Host: localhost\r\nContent-Type: application/json\r\n"
                            + "Transfer-Encoding: chunked, gzip\r\n\r\n{}");
            RawHttpConnection.Response r = c.answer();
            assertThat(r.status()).as(r.body()).isBetween(400, 499);
            assertThat(r.json().get("errors")).isNotEmpty();
            assertThat(c.read()).isEqualTo(RawHttpConnection.End.CLOSED);
        }
    }

    @Test
    void aTransferEncodingOtherThanChunkedIs400NotABodilessRequest() throws Exception {
        try (RawHttpConnection c = connect()) {
            // Netty alone reads this as a rebalance without a body (all defaults), and the body
            // as the next request
            c.send(
                    "POST /rhino/v1/jobs/job-open/operators/op/rebalance HTTP/1.1\r\n"
                            + "Host: localhost\r\nContent-Type: application/json\r\n"
                            + "Transfer-Encoding: gzip\r\n\r\n{\"max-imbalance\": 0.5}");
            RawHttpConnection.Response r = c.answer();
            assertThat(r.status()).as(r.body()).isEqualTo(400);
            assertThat(error(r)).contains("Transfer-Encoding [gzip] is not supported");
            assertThat(c.read()).isEqualTo(RawHttpConnection.End.CLOSED);
        }
        assertThat(operators.reconfigurations().recent("job-open", "op")).isEmpty();
    }

    @Test
    void anOversizedBodyIs413WithAReason() throws Exception {
        String body = "{\"pad\": \"" + "x".repeat(RhinoRestServer.MAX_BODY_BYTES) + "\"}";
        RawHttpConnection.Response r =
                exchange(
                        "POST /rhino/v1/jobs/job-open/operators/op/handovers HTTP/1.1\r\n"
                                + "Host: localhost\r\nContent-Type: application/json\r\n"
                                + "Content-Length: "
                                + body.length()
                                + "\r\n\r\n"
                                + body);
        assertThat(r.status()).isEqualTo(413);
        assertThat(error(r)).contains("larger than " + RhinoRestServer.MAX_BODY_BYTES);
    }

    @Test
    void anOversizedBodyIsAnsweredOnlyOnceItHasArrivedWholeThenTheConnectionCloses()
            throws Exception {
        // clients that read only after sending (the JDK's HttpClient) must find the answer there
        String body = "{\"pad\": \"" + "x".repeat(RhinoRestServer.MAX_BODY_BYTES * 2) + "\"}";
        int half = body.length() / 2;
        try (RawHttpConnection c = new RawHttpConnection(address, 300)) {
            c.send(
                    "POST /rhino/v1/jobs/job-open/operators/op/handovers HTTP/1.1\r\n"
                            + "Host: localhost\r\nContent-Type: application/json\r\n"
                            + "Content-Length: "
                            + body.length()
                            + "\r\n\r\n"
                            + body.substring(0, half));
            assertThat(c.read())
                    .as("an answer before the body ended")
                    .isEqualTo(RawHttpConnection.End.TIMED_OUT);
            c.send(body.substring(half));
            c.readTimeout(10_000);
            expect(c.answer(), 413, "larger than " + RhinoRestServer.MAX_BODY_BYTES);
            assertThat(c.last().closes()).isTrue();
            assertThat(c.read()).isEqualTo(RawHttpConnection.End.CLOSED);
        }
        // the same for a chunked body, which announces no length
        String chunk = "x".repeat(RhinoRestServer.MAX_BODY_BYTES / 2);
        String chunked = Integer.toHexString(chunk.length()) + "\r\n" + chunk + "\r\n";
        try (RawHttpConnection c = new RawHttpConnection(address, 300)) {
            c.send(
                    "POST /rhino/v1/jobs/job-open/operators/op/handovers HTTP/1.1\r\n"
                            + "Host: localhost\r\nContent-Type: application/json\r\n"
                            + "Transfer-Encoding: chunked\r\n\r\n"
                            + chunked.repeat(3));
            assertThat(c.read())
                    .as("an answer before the body ended")
                    .isEqualTo(RawHttpConnection.End.TIMED_OUT);
            c.send(chunked + "0\r\n\r\n");
            c.readTimeout(10_000);
            expect(c.answer(), 413, "larger than " + RhinoRestServer.MAX_BODY_BYTES);
            assertThat(c.read()).isEqualTo(RawHttpConnection.End.CLOSED);
        }
        assertThat(operators.reconfigurations().recent("job-open", "op")).isEmpty();
    }

    @Test
    void aBodyAnnouncedFarOverTheLimitIsRefusedBeforeItIsSent() throws Exception {
        try (RawHttpConnection c = new RawHttpConnection(address, 10_000)) {
            c.send(
                    "POST /rhino/v1/jobs/job-open/operators/op/handovers HTTP/1.1\r\n"
                            + "Host: localhost\r\nContent-Type: application/json\r\n"
                            + "Content-Length: "
                            + (RhinoRestServer.MAX_BODY_BYTES * 16L + 1)
                            + "\r\n\r\n{\"moves\": [");
            expect(c.answer(), 413, "larger than " + RhinoRestServer.MAX_BODY_BYTES);
            assertThat(c.read()).isEqualTo(RawHttpConnection.End.CLOSED);
        }
    }

    @Test
    void anUnsupportedExpectationIs417AndAnOversizedContinueIs413WithReasons() throws Exception {
        RawHttpConnection.Response unsupported =
                exchange(
                        "POST /rhino/v1/jobs/job-open/operators/op/rebalance HTTP/1.1\r\n"
                                + "Host: localhost\r\nContent-Type: application/json\r\n"
                                + "Expect: something-else\r\nContent-Length: 2\r\n\r\n");
        assertThat(unsupported.status()).isEqualTo(417);
        assertThat(error(unsupported)).contains("something-else");

        RawHttpConnection.Response tooLarge =
                exchange(
                        "POST /rhino/v1/jobs/job-open/operators/op/rebalance HTTP/1.1\r\n"
                                + "Host: localhost\r\nContent-Type: application/json\r\n"
                                + "Expect: 100-continue\r\nContent-Length: 1000000\r\n\r\n");
        assertThat(tooLarge.status()).isEqualTo(413);
        assertThat(error(tooLarge)).contains("KiB");
    }

    // ------------------------------------------------------------------ connections

    @Test
    void anIdleConnectionIsClosed() throws Exception {
        try (RawHttpConnection c = connect()) {
            c.send(get("/rhino/v1/jobs/job-open/operators", null));
            assertThat(c.answer().status()).isEqualTo(200);
            long start = System.nanoTime();
            assertThat(c.read())
                    .as("closed by the idle timeout")
                    .isEqualTo(RawHttpConnection.End.CLOSED);
            assertThat(Duration.ofNanos(System.nanoTime() - start))
                    .isBetween(IDLE.minusMillis(200), IDLE.plusSeconds(3));
        }
    }

    @Test
    void aSlowlorisRequestIsAnswered408AndClosed() throws Exception {
        try (RawHttpConnection c = connect()) {
            long start = System.nanoTime();
            byte[] request = get("/rhino/v1/jobs", null).getBytes(StandardCharsets.ISO_8859_1);
            RawHttpConnection.End end = null;
            // one byte every 100 ms: the idle timeout never fires, the request deadline does
            for (int i = 0; i < request.length - 2; i++) {
                try {
                    c.send(new byte[] {request[i]});
                } catch (java.io.IOException closed) {
                    break;
                }
                Thread.sleep(100);
                if (Duration.ofNanos(System.nanoTime() - start).compareTo(REQUEST.multipliedBy(3))
                        > 0) {
                    break;
                }
            }
            end = c.read();
            assertThat(end).isEqualTo(RawHttpConnection.End.ANSWERED);
            assertThat(c.last().status()).isEqualTo(408);
            assertThat(error(c.last())).contains("rhino.rest.request-timeout");
            assertThat(c.read()).isEqualTo(RawHttpConnection.End.CLOSED);
        }
    }

    @Test
    void connectionsBeyondTheCapAreAnswered503AndClosed() throws Exception {
        Thread.sleep(300); // lets the server count the other tests' closed connections out
        List<RawHttpConnection> open = new ArrayList<>();
        try {
            for (int i = 0; i < MAX_CONNECTIONS; i++) {
                RawHttpConnection c = connect();
                open.add(c);
                c.send(get("/rhino/v1/jobs/job-open/operators", null));
                assertThat(c.answer().status()).as("connection %s", i).isEqualTo(200);
            }
            try (RawHttpConnection surplus = connect()) {
                surplus.send(get("/rhino/v1/jobs/job-open/operators", null));
                RawHttpConnection.Response r = surplus.answer();
                assertThat(r.status()).isEqualTo(503);
                assertThat(error(r)).contains("rhino.rest.max-connections");
                assertThat(surplus.read()).isEqualTo(RawHttpConnection.End.CLOSED);
            }
            try (RawHttpConnection silent = connect()) {
                long start = System.nanoTime();
                assertThat(silent.read())
                        .as("a surplus connection that sends nothing")
                        .isEqualTo(RawHttpConnection.End.CLOSED);
                assertThat(Duration.ofNanos(System.nanoTime() - start))
                        .as("closed after the request timeout, before the idle timeout")
                        .isLessThan(IDLE);
            }
        } finally {
            for (RawHttpConnection c : open) {
                c.close();
            }
        }
        Thread.sleep(300);
        assertThat(exchange(get("/rhino/v1/jobs/job-open/operators", null)).status())
                .as("a slot is free again once connections closed")
                .isEqualTo(200);
    }

    // ------------------------------------------------------------------ browsers

    @Test
    void aPostWithoutJsonContentTypeIs415() throws Exception {
        RawHttpConnection.Response r =
                exchange(
                        "POST /rhino/v1/jobs/job-open/operators/op/rebalance HTTP/1.1\r\n"
                                + "Host: localhost\r\nContent-Type: text/plain\r\n"
                                + "Content-Length: 2\r\n\r\n{}");
        assertThat(r.status()).isEqualTo(415);
        assertThat(error(r)).contains("application/json");
        RawHttpConnection.Response none =
                exchange(
                        "POST /rhino/v1/jobs/job-open/operators/op/rebalance HTTP/1.1\r\n"
                                + "Host: localhost\r\nContent-Length: 0\r\n\r\n");
        assertThat(none.status()).isEqualTo(415);
        assertThat(operators.operators().get(3).manager().orElseThrow().currentHandover())
                .isEmpty();
    }

    @Test
    void aLoopbackServerAnswersOnlyRequestsAddressedToLoopback() throws Exception {
        RawHttpConnection.Response rebound =
                exchange("GET /rhino/v1/jobs HTTP/1.1\r\nHost: evil.example:8082\r\n\r\n");
        assertThat(rebound.status()).isEqualTo(403);
        assertThat(error(rebound)).contains("evil.example");
        RawHttpConnection.Response foreignPage =
                exchange(
                        "GET /rhino/v1/jobs HTTP/1.1\r\nHost: localhost\r\n"
                                + "Origin: http://evil.example\r\n\r\n");
        assertThat(foreignPage.status()).isEqualTo(403);
        for (String host : List.of("localhost:8082", "127.0.0.1", "[::1]:8082", "LOCALHOST")) {
            assertThat(
                            exchange(
                                            "GET /rhino/v1/jobs/job-open/operators HTTP/1.1\r\nHost: "
                                                    + host
                                                    + "\r\n\r\n")
                                    .status())
                    .as(host)
                    .isEqualTo(200);
        }
    }

    // ------------------------------------------------------------------ tokens

    @Test
    void eachJobIsReachableOnlyWithItsOwnTokenAndADisabledJobNotAtAll() throws Exception {
        String a = "/rhino/v1/jobs/job-a/operators/op";
        String b = "/rhino/v1/jobs/job-b/operators/op";
        assertThat(exchange(get(a, "token-a")).status()).isEqualTo(200);
        assertThat(exchange(get(b, "token-b")).status()).isEqualTo(200);
        expect(exchange(get(a, "token-b")), 401, "Wrong token for job job-a");
        expect(exchange(get(b, "token-a")), 401, "Wrong token for job job-b");
        expect(exchange(get(a, null)), 401, "Missing token");
        expect(
                post("/rhino/v1/jobs/job-a/operators/op/rebalance", "{}", "token-b"),
                401,
                "Wrong token");
        expect(
                post("/rhino/v1/jobs/job-a/taskmanagers/tm-a/drain", "{}", "token-b"),
                401,
                "Wrong token");
        assertThat(jobA.currentHandover()).isEmpty();

        expect(exchange(get("/rhino/v1/jobs/job-off/operators", null)), 404, "No running");
        expect(
                post("/rhino/v1/jobs/job-off/operators/op/rebalance", "{}", null),
                404,
                "No running");

        JsonNode listedForA = exchange(get("/rhino/v1/jobs", "token-a")).json();
        assertThat(listedForA.get("jobs").findValuesAsText("id"))
                .containsExactly("job-a", "job-ended", "job-open");
        assertThat(exchange(get("/rhino/v1/jobs", null)).json().get("jobs").findValuesAsText("id"))
                .containsExactly("job-ended", "job-open");
    }

    @Test
    void theBearerSchemeIsCaseInsensitiveAndAnotherSchemeIsRefusedWithAReason() throws Exception {
        for (String scheme : List.of("Bearer", "bearer", "BEARER")) {
            RawHttpConnection.Response r =
                    exchange(
                            "GET /rhino/v1/jobs/job-a/operators HTTP/1.1\r\nHost: localhost\r\n"
                                    + "Authorization: "
                                    + scheme
                                    + " token-a\r\n\r\n");
            assertThat(r.status()).as(scheme).isEqualTo(200);
        }
        RawHttpConnection.Response basic =
                exchange(
                        "GET /rhino/v1/jobs/job-a/operators HTTP/1.1\r\nHost: localhost\r\n"
                                + "Authorization: Basic dXNlcjpwYXNz\r\n\r\n");
        assertThat(basic.status()).isEqualTo(401);
        assertThat(error(basic)).contains("'Basic' is not supported");
        assertThat(basic.headers().get("www-authenticate")).contains("Bearer");
    }

    // ------------------------------------------------------------------ refusals: pass or not

    @Test
    void aMoveAfterTheInputEndedIs410WithoutRetryAfter() throws Exception {
        for (int router = 0; router < TestOperators.PARALLELISM; router++) {
            ended.routerInputEnded(router);
        }
        RawHttpConnection.Response r =
                post(
                        "/rhino/v1/jobs/job-open/operators/ended/handovers",
                        "{\"moves\": [{\"vnode\": 0, \"to\": 1}]}",
                        null);
        assertThat(r.status()).as(r.body()).isEqualTo(410);
        assertThat(error(r)).contains("ended").contains("no handover can run any more");
        assertThat(r.headers()).doesNotContainKey("retry-after");
    }

    @Test
    void aDrainAfterTheInputEndedIs410AndStartsNothing() throws Exception {
        for (int router = 0; router < TestOperators.PARALLELISM; router++) {
            endedJob.routerInputEnded(router);
        }
        RawHttpConnection.Response r =
                post("/rhino/v1/jobs/job-ended/taskmanagers/tm-a/drain", "{}", null);
        assertThat(r.status()).as(r.body()).isEqualTo(410);
        assertThat(error(r)).contains("no handover can run any more");
        assertThat(operators.reconfigurations().recent("job-ended", "op")).isEmpty();
    }

    @Test
    void aRequestIdTheManagerAlreadyUsedIs409() throws Exception {
        int owner = usedId.routingTable().ownerOf(0);
        usedId.handover(
                new HandoverId("used-before"),
                HandoverPlan.of(
                        usedId.routingTable().epoch(),
                        List.of(new VnodeMove(0, owner, (owner + 1) % TestOperators.PARALLELISM))));
        usedId.onJobFailure(new IllegalStateException("ends handover used-before"));
        RawHttpConnection.Response r =
                post(
                        "/rhino/v1/jobs/job-open/operators/used-id/handovers",
                        "{\"request-id\": \"used-before\", \"moves\": [{\"vnode\": 1, \"to\": "
                                + (usedId.routingTable().ownerOf(1) + 1) % TestOperators.PARALLELISM
                                + "}]}",
                        null);
        assertThat(r.status()).as(r.body()).isEqualTo(409);
        assertThat(error(r)).contains("already used");
        assertThat(r.headers()).doesNotContainKey("retry-after");
    }

    @Test
    void aMoveWhileTheJobRestartsIs503WithRetryAfter() throws Exception {
        restarting.suspend("gate subtask 1 restarts from checkpoint 3");
        RawHttpConnection.Response r =
                post(
                        "/rhino/v1/jobs/job-open/operators/restarting/handovers",
                        "{\"moves\": [{\"vnode\": 0, \"to\": 1}]}",
                        null);
        assertThat(r.status()).as(r.body()).isEqualTo(503);
        assertThat(r.headers()).containsKey("retry-after");
    }

    // ------------------------------------------------------------------ helpers

    private RawHttpConnection connect() throws Exception {
        return new RawHttpConnection(address, 10_000);
    }

    private RawHttpConnection.Response exchange(String request) throws Exception {
        try (RawHttpConnection c = connect()) {
            c.send(request);
            return c.answer();
        }
    }

    private RawHttpConnection.Response post(String path, String body) throws Exception {
        return post(path, body, null);
    }

    private RawHttpConnection.Response post(String path, String body, String token)
            throws Exception {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        return exchange(
                "POST "
                        + path
                        + " HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                        + (token == null ? "" : "Authorization: Bearer " + token + "\r\n")
                        + "Content-Length: "
                        + bytes.length
                        + "\r\n\r\n"
                        + new String(bytes, StandardCharsets.ISO_8859_1));
    }

    private static String get(String path, String token) {
        return "GET "
                + path
                + " HTTP/1.1\r\nHost: localhost\r\n"
                + (token == null ? "" : "Authorization: Bearer " + token + "\r\n")
                + "\r\n";
    }

    private static String error(RawHttpConnection.Response r) {
        assertThat(r.json()).as("a JSON error body: '%s'", r.body()).isNotNull();
        assertThat(r.json().get("errors")).as(r.body()).isNotEmpty();
        return r.json().get("errors").get(0).asText();
    }

    private static void expect(RawHttpConnection.Response r, int status, String part) {
        assertThat(r.status()).as(r.body()).isEqualTo(status);
        assertThat(error(r)).contains(part);
    }
}
