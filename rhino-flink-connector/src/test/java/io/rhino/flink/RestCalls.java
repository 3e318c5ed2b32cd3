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

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Calls Rhino's REST API over real HTTP with the JDK's client, as a script or autoscaler would. */
final class RestCalls {

    /** A response: status, parsed JSON body (null if empty or not JSON) and raw text. */
    record Reply(int status, JsonNode json, String text, HttpResponse<String> raw) {}

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final HttpClient client =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String base;
    private final String token;

    RestCalls(String base, String token) {
        this.base = base;
        this.token = token;
    }

    Reply get(String path) throws Exception {
        return send("GET", path, null, token);
    }

    Reply post(String path, String body) throws Exception {
        return send("POST", path, body, token);
    }

    Reply send(String method, String path, String body, String withToken) throws Exception {
        HttpRequest.Builder request =
                HttpRequest.newBuilder(URI.create(base + path))
                        .timeout(Duration.ofSeconds(30))
                        .method(
                                method,
                                body == null
                                        ? HttpRequest.BodyPublishers.noBody()
                                        : HttpRequest.BodyPublishers.ofString(body))
                        .header("Content-Type", "application/json");
        if (withToken != null) {
            request.header("Authorization", "Bearer " + withToken);
        }
        HttpResponse<String> response =
                client.send(request.build(), HttpResponse.BodyHandlers.ofString());
        JsonNode json = null;
        try {
            json = response.body().isEmpty() ? null : MAPPER.readTree(response.body());
        } catch (Exception notJson) {
            // not JSON: a failure the caller's assertion names with the text
        }
        return new Reply(response.statusCode(), json, response.body(), response);
    }

    /** Polls a reconfiguration's status until it ended; returns the last status document. */
    JsonNode awaitEnd(String statusPath, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            Reply reply = get(statusPath);
            if (reply.status() != 200) {
                throw new AssertionError(
                        "GET " + statusPath + " -> " + reply.status() + " " + reply.text());
            }
            String status = reply.json().at("/status/id").asText();
            if (!status.equals("IN_PROGRESS")) {
                return reply.json();
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError(
                        "still IN_PROGRESS after " + timeout + ": " + reply.text());
            }
            Thread.sleep(100);
        }
    }
}
