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
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Rhino's REST API on the JobManager, for one operator of one job. */
final class RhinoRest {

    private static final Logger LOG = LoggerFactory.getLogger(RhinoRest.class);

    private final int port;
    private final String operatorPath;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    RhinoRest(int port, String jobId, String operator) {
        this.port = port;
        this.operatorPath = "/rhino/v1/jobs/" + jobId + "/operators/" + operator;
    }

    int port() {
        return port;
    }

    private HttpResponse<String> send(String path, String body)
            throws IOException, InterruptedException {
        HttpRequest.Builder request =
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                        .timeout(Duration.ofSeconds(20));
        if (body != null) {
            request.header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body));
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The operator's view, once it is served and RUNNING with every subtask placed. */
    JsonNode awaitRunning(Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        String last = "";
        while (System.nanoTime() < deadline) {
            try {
                HttpResponse<String> response = send(operatorPath, null);
                last = response.statusCode() + " " + response.body();
                if (response.statusCode() == 200) {
                    JsonNode view = FlinkRest.MAPPER.readTree(response.body());
                    if (view.path("state").asText().equals("RUNNING")) {
                        return view;
                    }
                }
            } catch (IOException notServedYet) {
                last = notServedYet.toString();
            }
            Thread.sleep(300);
        }
        throw new AssertionError(operatorPath + " not running after " + timeout + ": " + last);
    }

    JsonNode get(String subPath) throws Exception {
        HttpResponse<String> response = send(operatorPath + subPath, null);
        if (response.statusCode() != 200) {
            throw new IOException(
                    "GET " + subPath + " -> " + response.statusCode() + " " + response.body());
        }
        return FlinkRest.MAPPER.readTree(response.body());
    }

    /**
     * Moves one vnode to a subtask on another TaskManager through {@code POST .../handovers} and
     * waits until the handover completed; returns the move.
     */
    String moveToAnotherTaskManager() throws Exception {
        JsonNode view = awaitRunning(Duration.ofSeconds(120));
        JsonNode vnode = view.get("vnodes").get(0);
        String from = vnode.get("taskmanager").asText();
        int target = -1;
        for (JsonNode subtask : view.get("subtasks")) {
            if (!subtask.get("taskmanager").asText().equals(from)) {
                target = subtask.get("subtask").asInt();
                break;
            }
        }
        if (target < 0) {
            throw new AssertionError("every subtask on " + from + ": " + view);
        }
        String move =
                "{\"moves\": [{\"vnode\": "
                        + vnode.get("id").asInt()
                        + ", \"to\": "
                        + target
                        + "}]}";
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        HttpResponse<String> accepted;
        do {
            accepted = send(operatorPath + "/handovers", move);
            if (accepted.statusCode() == 202) {
                break;
            }
            if (accepted.statusCode() != 503) {
                throw new AssertionError(
                        "handover refused: " + accepted.statusCode() + " " + accepted.body());
            }
            Thread.sleep(500); // starting or a checkpoint in the way: it passes
        } while (System.nanoTime() < deadline);
        String request = FlinkRest.MAPPER.readTree(accepted.body()).get("request-id").asText();
        JsonNode status;
        do {
            Thread.sleep(200);
            status = get("/handovers/" + request);
        } while (status.at("/status/id").asText().equals("IN_PROGRESS")
                && System.nanoTime() < deadline);
        if (!status.at("/status/id").asText().equals("COMPLETED")) {
            throw new AssertionError("handover " + move + " ended as " + status);
        }
        JsonNode after = get("");
        int owner = after.get("vnodes").get(0).get("owner").asInt();
        if (owner != target) {
            throw new AssertionError("vnode owned by " + owner + " after its move to " + target);
        }
        LOG.info("{}: moved {} from {} in {}", operatorPath, move, from, status.get("operation"));
        return move;
    }

    /**
     * Waits until every subtask reports a replicated checkpoint, and returns the TaskManagers of
     * the operator's chains.
     */
    Set<String> awaitReplicated(Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        JsonNode replication = null;
        while (System.nanoTime() < deadline) {
            replication = get("/replication");
            boolean all = replication.get("subtasks").size() > 0;
            Set<String> services = new HashSet<>();
            for (JsonNode subtask : replication.get("subtasks")) {
                all &= subtask.path("last-replicated-checkpoint").asLong(-1) > 0;
                subtask.path("chain").forEach(member -> services.add(member.asText()));
            }
            if (all && !services.isEmpty()) {
                return services;
            }
            Thread.sleep(300);
        }
        throw new AssertionError("not every subtask replicated a checkpoint: " + replication);
    }

    /** The TaskManager addresses of the operator's subtasks. */
    List<String> taskManagerAddresses() throws Exception {
        List<String> addresses = new ArrayList<>();
        for (JsonNode subtask : get("").get("subtasks")) {
            String name = subtask.get("taskmanager").asText();
            addresses.add(name.substring(0, name.indexOf(':')));
        }
        return addresses;
    }
}
