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

package io.rhino.benchmarks.scenarios;

import com.fasterxml.jackson.databind.JsonNode;
import io.rhino.flink.cluster.ProcessCluster;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A job on a process cluster, through Flink's REST API: its status, tasks and checkpoints. */
final class BedJob {

    private static final Logger LOG = LoggerFactory.getLogger(BedJob.class);

    private static final Set<String> ENDED = Set.of("FAILED", "CANCELED", "FINISHED");

    private final JsonHttp rest;
    private final String id;

    BedJob(ProcessCluster cluster, String id) {
        this.rest = new JsonHttp(cluster.restAddress());
        this.id = id;
    }

    String id() {
        return id;
    }

    /** The latest timestamps of the job's INITIALIZING and RUNNING over the subtasks of a task. */
    record TaskTimes(long lastInitializing, long lastRunning) {}

    /**
     * Waits until every source task whose name starts with {@code "Source: " + prefix} finished and
     * a checkpoint triggered after that completed, logging the checkpointed size every 10 s.
     */
    void awaitFill(String prefix, String system, Duration timeout) throws Exception {
        long start = System.currentTimeMillis();
        long deadline = start + timeout.toMillis();
        long logged = start;
        while (!sourcesFinished(prefix)) {
            failIfEnded();
            if (System.currentTimeMillis() > deadline) {
                throw new IllegalStateException(
                        system + ": the fill did not end within " + timeout);
            }
            if (System.currentTimeMillis() - logged >= 10_000) {
                logged = System.currentTimeMillis();
                LOG.info(
                        "{}: filling, {} MB checkpointed after {} s",
                        system,
                        latestCheckpointStateSize() >> 20,
                        (logged - start) / 1000);
            }
            Thread.sleep(1_000);
        }
        long filled = System.currentTimeMillis();
        while (latestCheckpointTriggered() < filled) {
            failIfEnded();
            if (System.currentTimeMillis() > deadline) {
                throw new IllegalStateException(
                        system + ": no checkpoint after the fill within " + timeout);
            }
            Thread.sleep(500);
        }
        LOG.info(
                "{}: filled {} MB of state in {} s",
                system,
                latestCheckpointStateSize() >> 20,
                (System.currentTimeMillis() - start) / 1000);
    }

    private boolean sourcesFinished(String prefix) throws Exception {
        boolean found = false;
        for (JsonNode vertex : details().path("vertices")) {
            if (vertex.path("name").asText().startsWith("Source: " + prefix)) {
                found = true;
                if (!vertex.path("status").asText().equals("FINISHED")) {
                    return false;
                }
            }
        }
        if (!found) {
            throw new IllegalStateException("Job " + id + " has no source " + prefix + "...");
        }
        return true;
    }

    long completedCheckpoints() throws Exception {
        return checkpoints().at("/counts/completed").asLong();
    }

    void awaitCompletedCheckpoints(long count, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (completedCheckpoints() < count) {
            failIfEnded();
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        "Job " + id + ": fewer than " + count + " checkpoints after " + timeout);
            }
            Thread.sleep(500);
        }
    }

    /** The full state size of the latest completed checkpoint; 0 before the first. */
    long latestCheckpointStateSize() throws Exception {
        return checkpoints().at("/latest/completed/state_size").asLong(0);
    }

    private long latestCheckpointTriggered() throws Exception {
        return checkpoints().at("/latest/completed/trigger_timestamp").asLong(0);
    }

    /**
     * The latest completed checkpoint as a failure would find it: when it was triggered (a restore
     * replays the input from there), how long it took end to end, and the slowest subtask of task
     * {@code name} in each part of it; with the durations of the checkpoints completed before it.
     */
    record CheckpointTimings(
            long id,
            long triggeredMillis,
            long durationMillis,
            long maxSyncMillis,
            long maxAsyncMillis,
            long maxAlignmentMillis,
            long maxStartDelayMillis,
            List<Long> recentDurationsMillis) {}

    CheckpointTimings latestCheckpointTimings(String name) throws Exception {
        JsonNode checkpoints = checkpoints();
        JsonNode latest = checkpoints.at("/latest/completed");
        long checkpointId = latest.path("id").asLong();
        List<Long> recent = new ArrayList<>();
        for (JsonNode listed : checkpoints.path("history")) {
            if (listed.path("status").asText().equals("COMPLETED")) {
                recent.add(listed.path("end_to_end_duration").asLong());
            }
        }
        JsonNode subtasks =
                rest.get(
                        "/jobs/"
                                + id
                                + "/checkpoints/details/"
                                + checkpointId
                                + "/subtasks/"
                                + vertexId(name));
        long sync = 0;
        long async = 0;
        long alignment = 0;
        long startDelay = 0;
        for (JsonNode subtask : subtasks.path("subtasks")) {
            sync = Math.max(sync, subtask.at("/checkpoint/sync").asLong(0));
            async = Math.max(async, subtask.at("/checkpoint/async").asLong(0));
            alignment = Math.max(alignment, subtask.at("/alignment/duration").asLong(0));
            startDelay = Math.max(startDelay, subtask.path("start_delay").asLong(0));
        }
        return new CheckpointTimings(
                checkpointId,
                latest.path("trigger_timestamp").asLong(),
                latest.path("end_to_end_duration").asLong(),
                sync,
                async,
                alignment,
                startDelay,
                recent);
    }

    /** The name of the task that runs keyed operator {@code operator} (its gate's, for Rhino). */
    String taskName(String operator) throws Exception {
        List<String> names = new ArrayList<>();
        details().path("vertices").forEach(vertex -> names.add(vertex.path("name").asText()));
        return TaskManagerPlacement.keyedTaskName(names, operator)
                .orElseThrow(
                        () ->
                                new IllegalStateException(
                                        "No task of job " + id + " runs " + operator));
    }

    /**
     * The index of the process cluster's TaskManager that runs {@code subtask} of task {@code name}
     * (the cluster names its TaskManagers' resources {@code taskmanager-<index>}).
     */
    int taskManagerIndexOf(String name, int subtask) throws Exception {
        JsonNode vertex = rest.get("/jobs/" + id + "/vertices/" + vertexId(name));
        String resource = vertex.path("subtasks").get(subtask).path("taskmanager-id").asText();
        if (!resource.startsWith("taskmanager-")) {
            throw new IllegalStateException(name + "[" + subtask + "] runs on " + resource);
        }
        return Integer.parseInt(resource.substring("taskmanager-".length()));
    }

    /**
     * Waits until the job's status is ({@code is}) or is not {@code status}, polling every 20 ms;
     * returns when it saw that (epoch ms).
     */
    long awaitStatus(String status, boolean is, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            // the status handler asks the dispatcher; the job details come from a cache
            String current = rest.get("/jobs/" + id + "/status").path("status").asText();
            if (current.equals(status) == is) {
                return System.currentTimeMillis();
            }
            if (ENDED.contains(current)) {
                throw new IllegalStateException("Job " + id + " ended as " + current);
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("Job " + id + " still " + current);
            }
            Thread.sleep(20);
        }
    }

    /** Waits until every task of the job runs (or finished, as the fill's sources have). */
    void awaitAllTasksRunning(Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            boolean all = true;
            for (JsonNode vertex : details().path("vertices")) {
                String status = vertex.path("status").asText();
                all &= status.equals("RUNNING") || status.equals("FINISHED");
            }
            if (all) {
                return;
            }
            failIfEnded();
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        "Job " + id + ": tasks not running after " + timeout);
            }
            Thread.sleep(20);
        }
    }

    /** The latest INITIALIZING and RUNNING timestamps of the current attempts of a task. */
    TaskTimes taskTimes(String name) throws Exception {
        JsonNode times = rest.get("/jobs/" + id + "/vertices/" + vertexId(name) + "/subtasktimes");
        long initializing = 0;
        long running = 0;
        for (JsonNode subtask : times.path("subtasks")) {
            initializing = Math.max(initializing, subtask.at("/timestamps/INITIALIZING").asLong(0));
            running = Math.max(running, subtask.at("/timestamps/RUNNING").asLong(0));
        }
        return new TaskTimes(initializing, running);
    }

    /**
     * Stops the job with a native savepoint under {@code directory} ({@code POST /jobs/:id/stop});
     * returns the savepoint's location once written.
     */
    String stopWithSavepoint(String directory, Duration timeout) throws Exception {
        JsonNode accepted =
                rest.send(
                        "POST",
                        "/jobs/" + id + "/stop",
                        "{\"targetDirectory\": \""
                                + directory
                                + "\", \"drain\": false, \"formatType\": \"NATIVE\"}");
        String trigger = accepted.path("request-id").asText();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            JsonNode status = rest.get("/jobs/" + id + "/savepoints/" + trigger);
            if (status.at("/status/id").asText().equals("COMPLETED")) {
                JsonNode operation = status.path("operation");
                if (operation.has("location")) {
                    return operation.get("location").asText();
                }
                throw new IllegalStateException(
                        "Stop-with-savepoint of " + id + " failed: " + operation);
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException("No savepoint of " + id + " within " + timeout);
    }

    /** Cancels the job and waits until it is cancelled. */
    void cancel(Duration timeout) throws Exception {
        rest.send("PATCH", "/jobs/" + id + "?mode=cancel", null);
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!details().path("state").asText().equals("CANCELED")) {
            if (System.nanoTime() > deadline) {
                LOG.warn("Job {} not cancelled after {}", id, timeout);
                return;
            }
            Thread.sleep(200);
        }
    }

    /**
     * The sum over the subtasks of task {@code name} of every operator metric {@code metric}
     * (Flink's REST names them {@code <operator>.<metric>}); 0 where no operator reports it. Flink
     * serves the values it fetched last, every {@code metrics.fetcher.update-interval}.
     */
    long operatorMetricSum(String name, String metric) throws Exception {
        String path = "/jobs/" + id + "/vertices/" + vertexId(name) + "/subtasks/metrics";
        List<String> ids = new ArrayList<>();
        for (JsonNode listed : rest.get(path)) {
            String metricId = listed.path("id").asText();
            if (metricId.endsWith("." + metric)) {
                ids.add(metricId);
            }
        }
        if (ids.isEmpty()) {
            return 0;
        }
        String get = URLEncoder.encode(String.join(",", ids), StandardCharsets.UTF_8);
        long sum = 0;
        for (JsonNode value : rest.get(path + "?agg=sum&get=" + get)) {
            sum += (long) value.path("sum").asDouble();
        }
        return sum;
    }

    private String vertexId(String name) throws Exception {
        for (JsonNode vertex : details().path("vertices")) {
            if (vertex.path("name").asText().equals(name)) {
                return vertex.path("id").asText();
            }
        }
        throw new IllegalStateException("Job " + id + " has no task " + name);
    }

    private void failIfEnded() throws Exception {
        String status = details().path("state").asText();
        if (ENDED.contains(status)) {
            throw new IllegalStateException("Job " + id + " ended as " + status);
        }
    }

    private JsonNode details() throws Exception {
        return rest.get("/jobs/" + id);
    }

    private JsonNode checkpoints() throws Exception {
        return rest.get("/jobs/" + id + "/checkpoints");
    }
}
