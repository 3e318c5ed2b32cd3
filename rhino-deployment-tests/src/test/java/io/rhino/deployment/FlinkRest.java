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

package io.rhino.deployment;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

/** Flink's REST API of a session cluster: jar upload and run, job status, cancel, metrics. */
final class FlinkRest {

    static final ObjectMapper MAPPER = new ObjectMapper();

    private final String address;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    FlinkRest(String address) {
        this.address = address;
    }

    JsonNode get(String path) throws IOException, InterruptedException {
        HttpResponse<String> response =
                http.send(
                        HttpRequest.newBuilder(URI.create(address + path))
                                .timeout(Duration.ofSeconds(20))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IOException(
                    "GET " + path + " -> " + response.statusCode() + " " + response.body());
        }
        return MAPPER.readTree(response.body());
    }

    /** {@code POST /jars/upload}, as the web UI and {@code flink run} against REST do. */
    String upload(Path jar) throws IOException, InterruptedException {
        String boundary = "----rhino" + UUID.randomUUID();
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.write(
                ("--"
                                + boundary
                                + "\r\nContent-Disposition: form-data; name=\"jarfile\"; filename=\""
                                + jar.getFileName()
                                + "\"\r\nContent-Type: application/x-java-archive\r\n\r\n")
                        .getBytes(StandardCharsets.UTF_8));
        body.write(Files.readAllBytes(jar));
        body.write(("\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.UTF_8));
        HttpResponse<String> response =
                http.send(
                        HttpRequest.newBuilder(URI.create(address + "/jars/upload"))
                                .timeout(Duration.ofSeconds(60))
                                .header("Content-Type", "multipart/form-data; boundary=" + boundary)
                                .POST(HttpRequest.BodyPublishers.ofByteArray(body.toByteArray()))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IOException("jar upload -> " + response.statusCode() + " " + response.body());
        }
        String file = MAPPER.readTree(response.body()).get("filename").asText();
        return Path.of(file).getFileName().toString();
    }

    /** {@code POST /jars/{id}/run}: runs the jar's main class there; returns the job id. */
    String run(String jarId, List<String> arguments) throws IOException, InterruptedException {
        ObjectNode request = MAPPER.createObjectNode();
        request.putArray("programArgsList")
                .addAll(arguments.stream().map(MAPPER.getNodeFactory()::textNode).toList());
        HttpResponse<String> response =
                http.send(
                        HttpRequest.newBuilder(URI.create(address + "/jars/" + jarId + "/run"))
                                .timeout(Duration.ofSeconds(120))
                                .header("Content-Type", "application/json")
                                .POST(HttpRequest.BodyPublishers.ofString(request.toString()))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IOException("jar run -> " + response.statusCode() + " " + response.body());
        }
        return MAPPER.readTree(response.body()).get("jobid").asText();
    }

    /** {@code PATCH /jobs/{id}?mode=cancel}, then waits until the job is CANCELED. */
    void cancel(String jobId, Duration timeout) throws Exception {
        HttpResponse<String> response =
                http.send(
                        HttpRequest.newBuilder(
                                        URI.create(address + "/jobs/" + jobId + "?mode=cancel"))
                                .timeout(Duration.ofSeconds(20))
                                .method("PATCH", HttpRequest.BodyPublishers.noBody())
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 202) {
            throw new IOException(
                    "cancel " + jobId + " -> " + response.statusCode() + " " + response.body());
        }
        awaitStatus(jobId, "CANCELED", timeout);
    }

    String status(String jobId) throws IOException, InterruptedException {
        return get("/jobs/" + jobId).path("state").asText();
    }

    void awaitStatus(String jobId, String expected, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        String status = "";
        while (System.nanoTime() < deadline) {
            status = status(jobId);
            if (status.equals(expected)) {
                return;
            }
            if (status.equals("FAILED")) {
                throw new AssertionError(
                        "Job " + jobId + " failed: " + get("/jobs/" + jobId + "/exceptions"));
            }
            Thread.sleep(250);
        }
        throw new AssertionError(
                "Job " + jobId + " is " + status + ", not " + expected + " after " + timeout);
    }

    /** The sum of an operator metric over every subtask of every vertex of the job. */
    long metricSum(String jobId, String name) throws IOException, InterruptedException {
        long sum = 0;
        for (JsonNode vertex : get("/jobs/" + jobId).path("vertices")) {
            String metrics =
                    "/jobs/"
                            + jobId
                            + "/vertices/"
                            + vertex.get("id").asText()
                            + "/subtasks/metrics";
            List<String> ids = new java.util.ArrayList<>();
            for (JsonNode metric : get(metrics)) {
                if (metric.get("id").asText().endsWith("." + name)) {
                    ids.add(metric.get("id").asText());
                }
            }
            if (!ids.isEmpty()) {
                for (JsonNode value : get(metrics + "?agg=sum&get=" + String.join(",", ids))) {
                    sum += (long) value.get("sum").asDouble();
                }
            }
        }
        return sum;
    }
}
