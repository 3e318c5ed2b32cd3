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
import io.rhino.flink.api.rest.RhinoRestServer;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import org.apache.flink.api.common.JobID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One {@code POST /rhino/v1/jobs/{job}/operators/{op}/rescale} with {@code "allow-restart": true}
 * on the REST server of this JVM's JobManager, followed under its request id until it completed.
 * Keeps what Rhino reported of a restart: its phase durations, the restored checkpoint and where
 * each vnode's state came from.
 */
final class RhinoRescaleRequest {

    private static final Logger LOG = LoggerFactory.getLogger(RhinoRescaleRequest.class);
    private static final Duration POLL = Duration.ofMillis(50);

    /** Figure name prefix of the vnodes restored from each source, e.g. "vnodes from replica". */
    static final String VNODES_FROM = "vnodes from ";

    private final JobID jobId;
    private final String operator;
    private final int target;
    private final String requestId = "rescale-" + UUID.randomUUID();
    private volatile JsonNode restart;

    RhinoRescaleRequest(JobID jobId, String operator, int target) {
        this.jobId = jobId;
        this.operator = operator;
        this.target = target;
    }

    /** Asks for the rescale; returns when Rhino says it completed (epoch ms). */
    long send() throws Exception {
        InetSocketAddress address =
                RhinoRestServer.address()
                        .orElseThrow(
                                () -> new IllegalStateException("Rhino's REST server runs not"));
        JsonHttp rhino =
                new JsonHttp("http://127.0.0.1:" + address.getPort() + "/rhino/v1/jobs/" + jobId);
        rhino.send(
                "POST",
                "/operators/" + operator + "/rescale",
                "{\"active-subtasks\": "
                        + target
                        + ", \"allow-restart\": true, \"request-id\": \""
                        + requestId
                        + "\"}");
        long deadline = System.nanoTime() + RestartRescaleRun.TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            JsonNode status = rhino.get("/reconfigurations/" + requestId);
            String state = status.at("/status/id").asText();
            if (state.equals("COMPLETED")) {
                long completed = System.currentTimeMillis();
                JsonNode report = status.at("/operation/handovers/0/restart");
                restart = report.isMissingNode() ? null : report;
                LOG.info("Rhino's rescale of {} to {} completed: {}", operator, target, status);
                return completed;
            }
            if (!state.equals("IN_PROGRESS")) {
                throw new IllegalStateException("Rhino's rescale ended " + state + ": " + status);
            }
            Thread.sleep(POLL.toMillis());
        }
        throw new IllegalStateException(
                "Rhino's rescale did not complete in " + RestartRescaleRun.TIMEOUT);
    }

    /** Rhino's own phase durations of a restart, e.g. "rhino downtime"; none for a live one. */
    Map<String, Duration> reportedPhases() {
        Map<String, Duration> phases = new LinkedHashMap<>();
        JsonNode report = restart;
        if (report == null) {
            return phases;
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = report.path("phase-durations-ms").fields();
                it.hasNext(); ) {
            Map.Entry<String, JsonNode> phase = it.next();
            phases.put("rhino " + phase.getKey(), Duration.ofMillis(phase.getValue().asLong()));
        }
        return phases;
    }

    /** How many vnodes came from each restore source, per Rhino's report of the restart. */
    Map<String, Double> figures() {
        Map<String, Double> figures = new LinkedHashMap<>();
        JsonNode report = restart;
        if (report == null) {
            return figures;
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = report.path("restored-from").fields();
                it.hasNext(); ) {
            Map.Entry<String, JsonNode> source = it.next();
            figures.put(VNODES_FROM + source.getKey(), source.getValue().asDouble());
        }
        return figures;
    }
}
