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

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import java.util.function.IntUnaryOperator;

/**
 * Generates the fuzz campaign's requests, seeded: mostly malformed HTTP, paths, headers, JSON,
 * tokens and hosts, a few valid reads and, rarely, a valid move. Each request is raw bytes with the
 * kind it belongs to, so that a failure names what was sent.
 */
final class RestFuzzRequests {

    /** One generated request: its kind, its bytes, and whether it is a valid move. */
    record Request(String kind, byte[] bytes, boolean validMove, String requestId) {
        String shown() {
            String text = new String(bytes, StandardCharsets.ISO_8859_1);
            return kind + ": " + (text.length() > 300 ? text.substring(0, 300) + "..." : text);
        }
    }

    private static final List<String> METHODS =
            List.of(
                    "GET",
                    "POST",
                    "PUT",
                    "DELETE",
                    "PATCH",
                    "HEAD",
                    "OPTIONS",
                    "TRACE",
                    "get",
                    "G\u0000T",
                    "CONNECT",
                    "PRI",
                    "XYZ",
                    "");
    private static final List<String> VERSIONS =
            List.of(
                    "HTTP/1.1",
                    "HTTP/1.0",
                    "HTTP/1.2",
                    "HTTP/2.0",
                    "HTTP/0.9",
                    "HTTPS/1.1",
                    "http/1.1",
                    "HTTP/1.1 extra",
                    "");
    private static final List<String> ESCAPES =
            List.of(
                    "%",
                    "%z",
                    "%zz",
                    "%E2%80%AE",
                    "%E2%80%AEx%",
                    "%00",
                    "%ff",
                    "%C0%AF",
                    "%2F",
                    "%25",
                    "%%",
                    "%u1234",
                    "..",
                    ".",
                    "\u00e9",
                    "%F0%9F%98%80",
                    "%80");
    private static final List<String> BODIES =
            List.of(
                    "{",
                    "{\"moves\": [{\"vnode\": 0, \"to\": 1}]} trailing",
                    "{\"moves\": [], \"moves\": [{\"vnode\": 0, \"to\": 1}]}",
                    "{\"max-imbalance\": 1e400}",
                    "{\"max-imbalance\": -1e400}",
                    "{\"max-imbalance\": NaN}",
                    "{\"max-imbalance\": Infinity}",
                    "{\"max-imbalance\": \"1.5\"}",
                    "{\"max-imbalance\": 0.999999999999}",
                    "{\"active-subtasks\": 1e10}",
                    "{\"active-subtasks\": 99999999999999999999}",
                    "{\"active-subtasks\": -1}",
                    "{\"active-subtasks\": 2.5}",
                    "{\"active-subtasks\": null}",
                    "{\"moves\": [{\"vnode\": -1, \"to\": 1}]}",
                    "{\"moves\": [{\"vnode\": 2147483648, \"to\": 1}]}",
                    "{\"moves\": [{\"vnode\": 0, \"to\": 1}, {\"vnode\": 0, \"to\": 2}]}",
                    "{\"moves\": [{\"vnode\": 0}]}",
                    "{\"moves\": [null]}",
                    "{\"moves\": {}}",
                    "{\"request-id\": \"\", \"moves\": [{\"vnode\": 0, \"to\": 1}]}",
                    "{\"request-id\": \"" + "x".repeat(65) + "\"}",
                    "{\"request-id\": 7}",
                    "{\"request-id\": \"a\\u0000b\"}",
                    "{\"unknown\": true}",
                    "[]",
                    "null",
                    "\"text\"",
                    "42",
                    "{\"a\": \"\\ud800\"}",
                    "\u00ef\u00bb\u00bf{}",
                    "{\"moves\": [" + "[".repeat(2_000) + "]}",
                    "{\"max-imbalance\": 1" + "0".repeat(5_000) + "}",
                    "{/* comment */}",
                    "{'single': 1}",
                    "{\"x\": 1,}");

    private static final String REFUSED = "{\"max-imbalance\": 0.5}";

    private final Random random;
    private final long seed;
    private final String job;
    private final String operator;
    private final String token;
    private final IntUnaryOperator ownerOf;
    private int moves;

    RestFuzzRequests(
            long seed, String job, String operator, String token, IntUnaryOperator ownerOf) {
        this.random = new Random(seed);
        this.seed = seed;
        this.ownerOf = ownerOf;
        this.job = job;
        this.operator = operator;
        this.token = token;
    }

    Request next() {
        int pick = random.nextInt(100);
        if (pick < 8) {
            return validRead();
        }
        if (pick < 9) {
            return validMove();
        }
        if (pick < 20) {
            return path();
        }
        if (pick < 28) {
            return requestLine();
        }
        if (pick < 45) {
            return headers();
        }
        if (pick < 65) {
            return body();
        }
        if (pick < 73) {
            return authorization();
        }
        if (pick < 80) {
            return hostAndOrigin();
        }
        if (pick < 86) {
            return contentType();
        }
        if (pick < 90) {
            return expectation();
        }
        if (pick < 95) {
            return pipelined();
        }
        return randomBytes();
    }

    // ------------------------------------------------------------------ kinds

    private Request validRead() {
        String path =
                pickOf(
                        List.of(
                                "/rhino/v1/jobs",
                                "/rhino/v1/openapi.json",
                                jobPath() + "/operators",
                                operatorPath(),
                                operatorPath() + "/handovers",
                                operatorPath() + "/replication",
                                jobPath() + "/taskmanagers"));
        return request("valid-read", "GET", path, headers(true, null), null);
    }

    private Request validMove() {
        String id = "fuzz-move-" + seed + "-" + moves++;
        int vnode = random.nextInt(16);
        int to = (ownerOf.applyAsInt(vnode) + 1 + random.nextInt(3)) % 4;
        String body =
                "{\"request-id\": \""
                        + id
                        + "\", \"moves\": [{\"vnode\": "
                        + vnode
                        + ", \"to\": "
                        + to
                        + "}]}";
        return new Request(
                "valid-move",
                raw("POST", operatorPath() + "/handovers", headers(true, "application/json"), body),
                true,
                id);
    }

    private Request path() {
        StringBuilder path = new StringBuilder(random.nextBoolean() ? "/rhino/v1/jobs/" : "/");
        int segments = 1 + random.nextInt(6);
        for (int i = 0; i < segments; i++) {
            if (random.nextInt(3) == 0) {
                path.append(pickOf(List.of(job, operator, "operators", "handovers", "drain")));
            } else {
                path.append(pickOf(ESCAPES)).append(random.nextInt(100));
            }
            path.append(random.nextInt(5) == 0 ? "//" : "/");
        }
        if (random.nextInt(10) == 0) {
            path.append("a".repeat(5_000)); // longer than the request line may be
        }
        if (random.nextInt(4) == 0) {
            path.append("?").append(pickOf(ESCAPES)).append("=").append(pickOf(ESCAPES));
        }
        String method = random.nextBoolean() ? "GET" : "POST";
        return request("path", method, path.toString(), headers(true, "application/json"), REFUSED);
    }

    private Request requestLine() {
        String method = pickOf(METHODS);
        String version = pickOf(VERSIONS);
        String target =
                pickOf(
                        List.of(
                                operatorPath(),
                                "*",
                                "http://evil.example/rhino/v1/jobs",
                                "rhino/v1/jobs",
                                "",
                                " ",
                                operatorPath() + " " + operatorPath()));
        String line = method + " " + target + (version.isEmpty() ? "" : " " + version);
        return new Request(
                "request-line", bytes(line + "\r\n" + headers(true, null) + "\r\n"), false, null);
    }

    private Request headers() {
        String base = headers(true, "application/json");
        // a body the API refuses if it gets that far: only the valid moves may start anything
        String framed = "Content-Length: " + REFUSED.length() + "\r\n";
        String body = random.nextBoolean() ? REFUSED : "16\r\n" + REFUSED + "\r\n0\r\n\r\n";
        String extra =
                switch (random.nextInt(12)) {
                    case 0 ->
                            framed + "X-Big: " + "b".repeat(9_000 + random.nextInt(4_000)) + "\r\n";
                    case 1 -> framed + "NoColonHere\r\n";
                    case 2 -> framed + "Bad\u0000Name: x\r\n";
                    case 3 -> "Content-Length: 2\r\nContent-Length: 5\r\n";
                    case 4 -> "Content-Length: -1\r\n";
                    case 5 -> "Content-Length: abc\r\n";
                    case 6 -> "Transfer-Encoding: chunked, gzip\r\n";
                    case 7 -> "Transfer-Encoding: chunked\r\nContent-Length: 2\r\n";
                    case 8 -> "Transfer-Encoding: gzip\r\n";
                    case 9 -> framed + " folded: continuation\r\n";
                    case 10 -> framed + "X-Many: 1\r\n".repeat(200 + random.nextInt(300));
                    default -> "Content-Length: 99999999999999999999\r\n";
                };
        String head = "POST " + operatorPath() + "/rebalance HTTP/1.1\r\n" + base + extra + "\r\n";
        return new Request("headers", bytes(head + body), false, null);
    }

    private Request body() {
        String path =
                pickOf(
                        List.of(
                                operatorPath() + "/handovers",
                                operatorPath() + "/rebalance",
                                operatorPath() + "/rescale",
                                jobPath() + "/taskmanagers/tm-a/drain"));
        String body = pickOf(BODIES);
        if (random.nextInt(8) == 0) {
            // cut short, never to nothing: an empty body is a valid request (all defaults)
            body = body.substring(0, 1 + random.nextInt(body.length()));
        }
        if (random.nextInt(20) == 0) {
            body = "{\"pad\": \"" + "p".repeat(RhinoRestServer.MAX_BODY_BYTES) + "\"}";
        }
        return request("body", "POST", path, headers(true, "application/json"), body);
    }

    private Request authorization() {
        String value =
                pickOf(
                        List.of(
                                "Bearer wrong",
                                "Bearer",
                                "Bearer ",
                                "Basic dXNlcjpwYXNz",
                                "bearer " + token,
                                "BEARER  " + token + "  ",
                                "Bearer " + token + "x",
                                "Bearer " + token.substring(1),
                                "Token " + token,
                                "Bearer " + "t".repeat(4_000),
                                ""));
        String headers = headers(false, null) + "Authorization: " + value + "\r\n";
        return request("authorization", "GET", operatorPath(), headers, null);
    }

    private Request hostAndOrigin() {
        String host =
                pickOf(
                        List.of(
                                "evil.example",
                                "localhost.evil.example",
                                "127.0.0.1.nip.io",
                                "[::1",
                                "",
                                "localhost:notaport",
                                "0x7f.1",
                                "2130706433",
                                "[::ffff:127.0.0.1]"));
        String origin =
                pickOf(
                        List.of(
                                "",
                                "http://evil.example",
                                "null",
                                "file://",
                                "http://localhost:3000",
                                "http://[::1]:1",
                                "not a uri"));
        String headers =
                "Host: "
                        + host
                        + "\r\nAuthorization: Bearer "
                        + token
                        + "\r\n"
                        + (origin.isEmpty() ? "" : "Origin: " + origin + "\r\n");
        String method = random.nextBoolean() ? "GET" : "POST";
        String path = method.equals("GET") ? operatorPath() : operatorPath() + "/rebalance";
        return request(
                "host-origin",
                method,
                path,
                headers + "Content-Type: application/json\r\n",
                REFUSED);
    }

    private Request contentType() {
        String type =
                pickOf(
                        List.of(
                                "text/plain",
                                "application/x-www-form-urlencoded",
                                "multipart/form-data; boundary=x",
                                "application/jsonx",
                                "json",
                                "",
                                "application/json; charset=utf-8",
                                "APPLICATION/JSON",
                                "application/json;;"));
        String headers =
                headers(true, null) + (type.isEmpty() ? "" : "Content-Type: " + type + "\r\n");
        return request(
                "content-type",
                "POST",
                operatorPath() + "/rebalance",
                headers,
                "{\"max-imbalance\": 0.5}");
    }

    private Request expectation() {
        String expect = pickOf(List.of("100-continue", "something", "100-Continue", ""));
        int length = random.nextBoolean() ? REFUSED.length() : 10_000_000;
        String head =
                "POST "
                        + operatorPath()
                        + "/rebalance HTTP/1.1\r\n"
                        + headers(true, "application/json")
                        + "Expect: "
                        + expect
                        + "\r\nContent-Length: "
                        + length
                        + "\r\n\r\n";
        return new Request(
                "expect", bytes(head + (length == REFUSED.length() ? REFUSED : "")), false, null);
    }

    private Request pipelined() {
        Request first = random.nextBoolean() ? headers() : body();
        byte[] second = raw("GET", operatorPath(), headers(true, null), null);
        byte[] both = new byte[first.bytes().length + second.length];
        System.arraycopy(first.bytes(), 0, both, 0, first.bytes().length);
        System.arraycopy(second, 0, both, first.bytes().length, second.length);
        return new Request("pipelined(" + first.kind() + ")", both, false, null);
    }

    private Request randomBytes() {
        byte[] bytes = new byte[1 + random.nextInt(2_000)];
        random.nextBytes(bytes);
        if (random.nextBoolean()) {
            bytes[bytes.length - 1] = '\n';
        }
        return new Request("random-bytes", bytes, false, null);
    }

    // ------------------------------------------------------------------ helpers

    private Request request(String kind, String method, String path, String headers, String body) {
        return new Request(kind, raw(method, path, headers, body), false, null);
    }

    private static byte[] raw(String method, String path, String headers, String body) {
        byte[] content = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
        String head =
                method
                        + " "
                        + path
                        + " HTTP/1.1\r\n"
                        + headers
                        + (body == null ? "" : "Content-Length: " + content.length + "\r\n")
                        + "\r\n";
        byte[] headBytes = bytes(head);
        byte[] all = new byte[headBytes.length + content.length];
        System.arraycopy(headBytes, 0, all, 0, headBytes.length);
        System.arraycopy(content, 0, all, headBytes.length, content.length);
        return all;
    }

    private String headers(boolean withToken, String contentType) {
        return "Host: localhost\r\n"
                + (withToken ? "Authorization: Bearer " + token + "\r\n" : "")
                + (contentType == null ? "" : "Content-Type: " + contentType + "\r\n");
    }

    private String jobPath() {
        return "/rhino/v1/jobs/" + job;
    }

    private String operatorPath() {
        return jobPath() + "/operators/" + operator;
    }

    private <T> T pickOf(List<T> options) {
        return options.get(random.nextInt(options.size()));
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.ISO_8859_1);
    }
}
