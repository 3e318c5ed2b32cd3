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
import io.rhino.flink.cluster.ProcessCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;

/**
 * A Rhino operator of a job on a {@link ProcessCluster}, driven and observed from outside as an
 * operator's scripts would: Rhino's REST API for its vnodes and moves, Flink's REST API for its
 * metrics.
 */
final class RemoteOperator {

    private final ProcessCluster cluster;
    private final RestCalls rhino;
    private final String jobId;
    private final String path;
    private final int vnodes;

    RemoteOperator(
            ProcessCluster cluster, int rhinoRestPort, String jobId, String operator, int vnodes) {
        this.cluster = cluster;
        this.rhino =
                new RestCalls(
                        "http://" + cluster.jobManagerAddress() + ":" + rhinoRestPort + "/rhino/v1",
                        null);
        this.jobId = jobId;
        this.path = "/jobs/" + jobId + "/operators/" + operator;
        this.vnodes = vnodes;
    }

    RestCalls rhino() {
        return rhino;
    }

    /** {@code /jobs/<job>/operators/<operator>} under Rhino's REST API. */
    String path() {
        return path;
    }

    /** The operator's view: its state, vnodes, owners and their TaskManagers. */
    JsonNode view() throws Exception {
        RestCalls.Reply reply = rhino.get(path);
        assertThat(reply.status()).as(reply.text()).isEqualTo(200);
        return reply.json();
    }

    /**
     * Waits until the operator runs with every vnode on a TaskManager other than {@code lost} (-1:
     * any), riding out a REST server that is not up yet (a JobManager starting).
     */
    JsonNode awaitRunning(int lost, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        String last = "";
        while (System.nanoTime() < deadline) {
            try {
                RestCalls.Reply reply = rhino.get(path);
                last = reply.status() + " " + reply.text();
                if (reply.status() == 200
                        && reply.json().path("state").asText().equals("RUNNING")) {
                    boolean survivorsOnly = true;
                    for (JsonNode vnode : reply.json().get("vnodes")) {
                        // a subtask restarting has not told its TaskManager yet
                        String taskManager = vnode.path("taskmanager").asText();
                        survivorsOnly &=
                                taskManager.contains(":") && taskManagerOf(taskManager) != lost;
                    }
                    if (survivorsOnly) {
                        return reply.json();
                    }
                }
            } catch (IOException notListening) {
                last = notListening.toString();
            }
            Thread.sleep(200);
        }
        throw new AssertionError(
                "Operator not running on TaskManagers other than " + lost + ": " + last);
    }

    /** Moves random vnodes to subtasks on other TaskManagers than their owners', over REST. */
    void moveBetweenTaskManagers(Random random, int moves, String phase) throws Exception {
        for (int move = 0; move < moves; move++) {
            String requestId = phase + "-" + move;
            JsonNode status =
                    rhino.awaitEnd(
                            path + "/handovers/" + startMove(random, requestId),
                            Duration.ofSeconds(60));
            assertThat(status.at("/status/id").asText())
                    .as("move %s: %s", requestId, status)
                    .isEqualTo("COMPLETED");
        }
    }

    /**
     * Asks for a move of a random vnode to a subtask on another TaskManager than its owner's.
     *
     * @return the request id
     */
    String startMove(Random random, String requestId) throws Exception {
        JsonNode operator = view();
        Map<Integer, String> taskManagerBySubtask = new HashMap<>();
        for (JsonNode vnode : operator.get("vnodes")) {
            taskManagerBySubtask.put(vnode.get("owner").asInt(), vnode.get("taskmanager").asText());
        }
        int vnode = random.nextInt(vnodes);
        JsonNode moved = operator.get("vnodes").get(vnode);
        List<Integer> targets = new ArrayList<>();
        taskManagerBySubtask.forEach(
                (subtask, taskManager) -> {
                    if (!taskManager.equals(moved.get("taskmanager").asText())) {
                        targets.add(subtask);
                    }
                });
        assertThat(targets)
                .as("subtasks on other TaskManagers than vnode %d's", vnode)
                .isNotEmpty();
        int target = targets.get(random.nextInt(targets.size()));
        RestCalls.Reply accepted =
                rhino.post(
                        path + "/handovers",
                        "{\"request-id\": \""
                                + requestId
                                + "\", \"moves\": [{\"vnode\": "
                                + vnode
                                + ", \"to\": "
                                + target
                                + "}]}");
        assertThat(accepted.status()).as(accepted.text()).isEqualTo(202);
        return requestId;
    }

    /** The sum over every subtask of the job's vertices of an operator metric. */
    long metricSum(String name) throws Exception {
        long sum = 0;
        for (JsonNode vertex : cluster.get("/jobs/" + jobId).path("vertices")) {
            String metrics =
                    "/jobs/"
                            + jobId
                            + "/vertices/"
                            + vertex.get("id").asText()
                            + "/subtasks/metrics";
            List<String> ids = new ArrayList<>();
            for (JsonNode metric : cluster.get(metrics)) {
                if (metric.get("id").asText().endsWith("." + name)) {
                    ids.add(metric.get("id").asText());
                }
            }
            if (!ids.isEmpty()) {
                for (JsonNode value :
                        cluster.get(metrics + "?agg=sum&get=" + String.join(",", ids))) {
                    sum += (long) value.get("sum").asDouble();
                }
            }
        }
        return sum;
    }

    /** The index of the TaskManager named {@code <address>:<io directory>}. */
    int taskManagerOf(String name) {
        String address = name.substring(0, name.indexOf(':'));
        for (int index = 0; index < cluster.taskManagers(); index++) {
            if (cluster.taskManagerAddress(index).equals(address)) {
                return index;
            }
        }
        throw new AssertionError("TaskManager " + name + " is not one of the cluster's");
    }

    /** Lines of the committed part files; in-progress and pending files start with a dot. */
    static List<String> committedLines(Path output) throws IOException {
        List<String> lines = new ArrayList<>();
        try (Stream<Path> files = Files.walk(output)) {
            for (Path file : files.filter(Files::isRegularFile).sorted().toList()) {
                if (!file.getFileName().toString().startsWith(".")) {
                    lines.addAll(Files.readAllLines(file));
                }
            }
        }
        return lines;
    }
}
