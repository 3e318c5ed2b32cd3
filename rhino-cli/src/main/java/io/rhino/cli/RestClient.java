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

package io.rhino.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** Calls the Rhino REST API: JSON in and out, server errors turned into {@link CliException}. */
final class RestClient {

    static final ObjectMapper MAPPER = new ObjectMapper();

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private final String base;
    private final String token;

    RestClient(String url, String token) {
        this.base = url.replaceAll("/+$", "") + "/rhino/v1";
        this.token = token;
    }

    /** Encodes one path segment (TaskManager ids hold ':' and more). */
    static String segment(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
    }

    JsonNode get(String path) {
        return send("GET", path, null);
    }

    JsonNode post(String path, JsonNode body) {
        return send("POST", path, body);
    }

    private JsonNode send(String method, String path, JsonNode body) {
        HttpRequest.Builder request =
                HttpRequest.newBuilder(URI.create(base + path))
                        .timeout(Duration.ofSeconds(30))
                        .header("Accept", "application/json");
        if (body != null) {
            request.header("Content-Type", "application/json")
                    .method(method, HttpRequest.BodyPublishers.ofString(body.toString()));
        } else {
            request.method(method, HttpRequest.BodyPublishers.noBody());
        }
        if (token != null && !token.isBlank()) {
            request.header("Authorization", "Bearer " + token);
        }
        HttpResponse<String> response;
        try {
            response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (ConnectException e) {
            throw new CliException(
                    CliException.UNREACHABLE,
                    "Cannot connect to "
                            + base
                            + ": is the job running and rhino.rest.port the one given with --url?");
        } catch (IOException e) {
            throw new CliException(
                    CliException.UNREACHABLE, "Request to " + base + " failed: " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CliException(CliException.UNREACHABLE, "Interrupted");
        }
        JsonNode json = parse(response.body());
        if (response.statusCode() >= 400) {
            StringBuilder message = new StringBuilder("HTTP " + response.statusCode());
            if (json != null && json.has("errors")) {
                json.get("errors").forEach(e -> message.append(": ").append(e.asText()));
            } else if (!response.body().isBlank()) {
                message.append(": ").append(response.body());
            }
            throw new CliException(CliException.REFUSED, message.toString());
        }
        return json;
    }

    private static JsonNode parse(String text) {
        if (text == null || text.isBlank()) {
            return null;
        }
        try {
            return MAPPER.readTree(text);
        } catch (IOException notJson) {
            return null;
        }
    }
}
