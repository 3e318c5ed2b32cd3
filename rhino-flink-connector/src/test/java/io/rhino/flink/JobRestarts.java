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
import io.rhino.flink.cluster.ProcessCluster;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Restarts of a job on a {@link ProcessCluster}, seen through Flink's REST API. */
final class JobRestarts {

    private static final Logger LOG = LoggerFactory.getLogger(JobRestarts.class);

    private JobRestarts() {}

    /**
     * The sum of the attempt numbers of the job's subtasks: it grows with every restart, of a
     * region as of the whole job (whose status stays RUNNING through a region failover).
     */
    static long restarts(ProcessCluster cluster, String jobId) throws Exception {
        long attempts = 0;
        for (JsonNode vertex : cluster.get("/jobs/" + jobId).path("vertices")) {
            String path = "/jobs/" + jobId + "/vertices/" + vertex.get("id").asText();
            for (JsonNode subtask : cluster.get(path).path("subtasks")) {
                attempts += subtask.path("attempt").asLong();
            }
        }
        return attempts;
    }

    /**
     * Waits until the job restarted more often than {@code before}, or finished, for at most {@code
     * timeout}.
     *
     * @return whether it restarted (or finished)
     */
    static boolean awaitRestartAfter(
            ProcessCluster cluster, String jobId, long before, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (restarts(cluster, jobId) > before || cluster.jobStatus(jobId).equals("FINISHED")) {
                return true;
            }
            Thread.sleep(100);
        }
        LOG.info("Job {} did not restart within {}", jobId, timeout);
        return false;
    }

    /**
     * Waits until the job restarted after {@code restartsBefore} and some task of it is deploying
     * or initializing (restoring its state), or runs again (the restore was too quick to catch).
     */
    static void awaitRestoring(
            ProcessCluster cluster, String jobId, long restartsBefore, Duration restartTimeout)
            throws Exception {
        awaitRestartAfter(cluster, jobId, restartsBefore, restartTimeout);
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (System.nanoTime() < deadline) {
            JsonNode job = cluster.get("/jobs/" + jobId);
            String state = job.path("state").asText();
            int restoring = 0;
            int running = 0;
            for (JsonNode vertex : job.path("vertices")) {
                restoring += vertex.at("/tasks/DEPLOYING").asInt();
                restoring += vertex.at("/tasks/INITIALIZING").asInt();
                running += vertex.at("/tasks/RUNNING").asInt();
            }
            if (state.equals("FINISHED") || (state.equals("RUNNING") && restoring + running > 0)) {
                return;
            }
            Thread.sleep(20);
        }
        throw new AssertionError("Job " + jobId + " did not restart after a TaskManager kill");
    }

    /** Waits until every task of the job runs (its restore done), or the job finished. */
    static void awaitAllRunning(ProcessCluster cluster, String jobId, Duration timeout)
            throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        String last = "";
        while (System.nanoTime() < deadline) {
            JsonNode job = cluster.get("/jobs/" + jobId);
            String state = job.path("state").asText();
            boolean all = state.equals("RUNNING");
            for (JsonNode vertex : job.path("vertices")) {
                all &= vertex.path("status").asText().equals("RUNNING");
            }
            if (all || state.equals("FINISHED")) {
                return;
            }
            last = state;
            Thread.sleep(50);
        }
        throw new AssertionError("Job " + jobId + " not running within " + timeout + ": " + last);
    }
}
