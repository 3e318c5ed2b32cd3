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

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.IntUnaryOperator;

/**
 * Sends a seeded series of fuzz requests to a REST server, one connection at a time (a connection
 * is reused while the server keeps it open, as a keep-alive client would), and records every
 * violation: a 5xx, a request neither answered nor closed within the bound, a connection announced
 * closed that stays open, a kept-alive connection that answered an error and then ignores the next
 * request.
 */
public final class RestFuzzCampaign {

    /** What a campaign saw. */
    public record Outcome(
            long seed,
            int requests,
            Map<Integer, Integer> statusCounts,
            int closedWithoutAnswer,
            int keptAliveAfterError,
            int validMoves,
            List<String> acceptedMoves,
            List<String> violations) {}

    private final InetSocketAddress address;
    private final Duration answerBound;

    public RestFuzzCampaign(InetSocketAddress address, Duration answerBound) {
        this.address = address;
        this.answerBound = answerBound;
    }

    /**
     * Runs {@code count} requests; {@code afterAcceptedMove} gets the request id of each valid move
     * the server accepted (e.g. to end its handover before the next one).
     */
    public Outcome run(
            long seed,
            int count,
            String job,
            String operator,
            String token,
            IntUnaryOperator ownerOf,
            Consumer<String> afterAcceptedMove)
            throws IOException {
        RestFuzzRequests requests = new RestFuzzRequests(seed, job, operator, token, ownerOf);
        Random reuse = new Random(seed ^ 0x5DEECE66DL);
        Map<Integer, Integer> statuses = new TreeMap<>();
        List<String> violations = new ArrayList<>();
        List<String> accepted = new ArrayList<>();
        int closedWithoutAnswer = 0;
        int keptAliveAfterError = 0;
        int validMoves = 0;
        RawHttpConnection connection = null;
        String previous = null;
        try {
            for (int i = 0; i < count; i++) {
                RestFuzzRequests.Request request = requests.next();
                if (connection == null || !reuse.nextBoolean()) {
                    close(connection);
                    connection = connect();
                }
                try {
                    connection.send(request.bytes());
                } catch (IOException closedWhileSending) {
                    // the server refused the head already and closed: what did it say?
                }
                boolean head = startsWith(request, "HEAD ");
                connection.answersHead(head);
                long start = System.nanoTime();
                RawHttpConnection.End end = connection.read();
                connection.answersHead(false);
                if (end == RawHttpConnection.End.GARBLED) {
                    violations.add(
                            "#"
                                    + i
                                    + " "
                                    + connection.problem()
                                    + " (previous: "
                                    + previous
                                    + "): "
                                    + request.shown());
                    close(connection);
                    connection = null;
                    continue;
                }
                previous = request.kind();
                Duration took = Duration.ofNanos(System.nanoTime() - start);
                if (end == RawHttpConnection.End.TIMED_OUT) {
                    violations.add(
                            "#"
                                    + i
                                    + " neither answered nor closed in "
                                    + took
                                    + ": "
                                    + request.shown());
                    close(connection);
                    connection = null;
                    continue;
                }
                if (end == RawHttpConnection.End.CLOSED) {
                    closedWithoutAnswer++;
                    close(connection);
                    connection = null;
                    continue;
                }
                RawHttpConnection.Response response = connection.last();
                statuses.merge(response.status(), 1, Integer::sum);
                if (response.status() >= 500) {
                    violations.add(
                            "#"
                                    + i
                                    + " answered "
                                    + response.status()
                                    + " "
                                    + response.body()
                                    + ": "
                                    + request.shown());
                }
                if (response.status() >= 400
                        && !(head && response.body().isEmpty())
                        && (response.json() == null || !response.json().has("errors"))) {
                    violations.add(
                            "#"
                                    + i
                                    + " answered "
                                    + response.status()
                                    + " without {\"errors\": [...]}: '"
                                    + response.body()
                                    + "': "
                                    + request.shown());
                }
                if (response.status() == 202 && !request.validMove()) {
                    violations.add(
                            "#" + i + " accepted although not a valid move: " + request.shown());
                }
                if (request.validMove()) {
                    validMoves++;
                    if (response.status() == 202) {
                        accepted.add(request.requestId());
                        afterAcceptedMove.accept(request.requestId());
                    }
                }
                if (response.closes()) {
                    if (connection.read() != RawHttpConnection.End.CLOSED) {
                        violations.add(
                                "#"
                                        + i
                                        + " said 'Connection: close' and stayed open: "
                                        + request.shown());
                    }
                    close(connection);
                    connection = null;
                    continue;
                }
                if (response.status() >= 400 && !request.kind().startsWith("pipelined")) {
                    // kept alive after an error: the next request must be answered
                    keptAliveAfterError++;
                    RawHttpConnection.End next;
                    try {
                        connection.send(
                                "GET /rhino/v1/openapi.json HTTP/1.1\r\nHost: localhost\r\n\r\n");
                        next = connection.read();
                    } catch (IOException closed) {
                        next = RawHttpConnection.End.CLOSED;
                    }
                    if (next == RawHttpConnection.End.GARBLED) {
                        violations.add(
                                "#" + i + " then " + connection.problem() + ": " + request.shown());
                    }
                    if (next == RawHttpConnection.End.TIMED_OUT) {
                        violations.add(
                                "#"
                                        + i
                                        + " kept alive after "
                                        + response.status()
                                        + " but ignored the next request: "
                                        + request.shown());
                    }
                    if (next != RawHttpConnection.End.ANSWERED) {
                        close(connection);
                        connection = null;
                    }
                } else if (request.kind().startsWith("pipelined")) {
                    // the second request is answered, or the connection closed: nothing hangs
                    if (connection.read() == RawHttpConnection.End.TIMED_OUT) {
                        violations.add(
                                "#"
                                        + i
                                        + " left the pipelined request hanging: "
                                        + request.shown());
                    }
                    close(connection);
                    connection = null;
                }
            }
        } finally {
            close(connection);
        }
        return new Outcome(
                seed,
                count,
                statuses,
                closedWithoutAnswer,
                keptAliveAfterError,
                validMoves,
                accepted,
                violations);
    }

    private static boolean startsWith(RestFuzzRequests.Request request, String prefix) {
        byte[] bytes = request.bytes();
        return bytes.length >= prefix.length()
                && new String(bytes, 0, prefix.length(), StandardCharsets.ISO_8859_1)
                        .equals(prefix);
    }

    private RawHttpConnection connect() throws IOException {
        return new RawHttpConnection(address, (int) answerBound.toMillis());
    }

    private static void close(RawHttpConnection connection) throws IOException {
        if (connection != null) {
            connection.close();
        }
    }
}
