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

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The few calls of Flink's own REST API a restart-based rescale needs: read and set a job's
 * resource requirements (FLIP-291), read its status and checkpoints. Each call waits at most {@link
 * #TIMEOUT}: the endpoint is the JobManager's own, so a slow answer means something is wrong.
 */
final class FlinkRest {

    static final Duration TIMEOUT = Duration.ofSeconds(5);

    /** Flink answered with an error status, or could not be reached. */
    static final class FlinkRestException extends Exception {
        private static final long serialVersionUID = 1L;
        private final int status;

        FlinkRestException(int status, String message) {
            super(message);
            this.status = status;
        }

        /** The HTTP status Flink answered with; 0 if it could not be reached. */
        int status() {
            return status;
        }
    }

    private final URI endpoint;
    // One client per rescale, not per class: a client's selector thread runs until the client is
    // unreachable and keeps the context class loader it started with. A static one would pin the
    // job's class loader for as long as the process lives where Rhino sits in the job's jar.
    private final HttpClient client =
            HttpClient.newBuilder()
                    .connectTimeout(TIMEOUT)
                    .followRedirects(HttpClient.Redirect.NEVER)
                    .build();

    FlinkRest(URI endpoint) {
        this.endpoint = endpoint;
    }

    URI endpoint() {
        return endpoint;
    }

    JsonNode get(String path) throws FlinkRestException {
        return send(HttpRequest.newBuilder(uri(path)).GET(), path);
    }

    JsonNode put(String path, JsonNode body) throws FlinkRestException {
        return sendJson("PUT", path, body);
    }

    JsonNode post(String path, JsonNode body) throws FlinkRestException {
        return sendJson("POST", path, body);
    }

    private JsonNode sendJson(String method, String path, JsonNode body) throws FlinkRestException {
        return send(
                HttpRequest.newBuilder(uri(path))
                        .header("Content-Type", "application/json")
                        .method(method, HttpRequest.BodyPublishers.ofString(body.toString())),
                method + " " + path);
    }

    private URI uri(String path) {
        return URI.create(endpoint + path);
    }

    private JsonNode send(HttpRequest.Builder request, String what) throws FlinkRestException {
        HttpResponse<String> response;
        try {
            response =
                    client.send(
                            request.timeout(TIMEOUT).build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new FlinkRestException(
                    0, "Flink's REST endpoint " + endpoint + " did not answer " + what + ": " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new FlinkRestException(0, "interrupted while calling " + what);
        }
        JsonNode body = parse(response.body());
        if (response.statusCode() / 100 != 2) {
            throw new FlinkRestException(
                    response.statusCode(),
                    "Flink answered "
                            + what
                            + " with "
                            + response.statusCode()
                            + ": "
                            + errorsOf(body, response.body()));
        }
        return body;
    }

    private static JsonNode parse(String text) {
        if (text == null || text.isBlank()) {
            return Json.MAPPER.createObjectNode();
        }
        try {
            return Json.MAPPER.readTree(text);
        } catch (IOException e) {
            return Json.MAPPER.createObjectNode().put("text", text);
        }
    }

    /**
     * Flink's error bodies are {"errors": ["...", ...]}, an error often a stack trace behind a
     * first line such as "<Exception on server side:": the reason is its first exception's message.
     */
    private static String errorsOf(JsonNode body, String raw) {
        JsonNode errors = body.get("errors");
        if (errors == null || !errors.isArray() || errors.isEmpty()) {
            return raw == null ? "" : raw.strip();
        }
        StringBuilder reasons = new StringBuilder();
        for (JsonNode error : errors) {
            String reason = reasonOf(error.asText());
            if (!reason.isEmpty()) {
                reasons.append(reasons.length() == 0 ? "" : "; ").append(reason);
            }
        }
        return reasons.toString();
    }

    private static String reasonOf(String error) {
        for (String line : (Iterable<String>) error.lines()::iterator) {
            Matcher thrown = THROWN.matcher(line);
            if (thrown.matches()) {
                String message = thrown.group(2);
                // "CompletionException: java.lang.UnsupportedOperationException: The ..."
                for (Matcher nested = THROWN.matcher(message);
                        nested.matches();
                        nested = THROWN.matcher(message)) {
                    message = nested.group(2);
                }
                return message.strip();
            }
        }
        return error.lines().findFirst().orElse("").strip();
    }

    private static final Pattern THROWN =
            Pattern.compile("\\s*(?:Caused by: )?([\\w.$]+(?:Exception|Error)): (.*)");
}
