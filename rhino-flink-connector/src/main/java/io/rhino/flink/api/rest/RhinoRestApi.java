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

import static io.rhino.flink.api.rest.JsonBody.MAPPER;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.rhino.flink.config.RhinoOptions;
import io.rhino.flink.reconfiguration.OperatorView;
import io.rhino.flink.reconfiguration.ReconfigurationStatusView;
import io.rhino.flink.reconfiguration.Reconfigurer;
import io.rhino.flink.reconfiguration.RhinoDirectory;
import io.rhino.handover.operation.OperationKind;
import io.rhino.handover.operation.OperationStep;
import io.rhino.handover.operation.Reconfiguration;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;

/**
 * Rhino's REST resources (see {@code docs/rest-api.md} and {@code /rhino/v1/openapi.json}): reads
 * of jobs, operators, vnodes and reconfigurations; asynchronous reconfigurations (POST → 202 with a
 * request id, GET → status), as Flink's own REST API runs savepoints.
 */
final class RhinoRestApi {

    static final String OPENAPI_RESOURCE = "/io/rhino/flink/api/rest/openapi.json";

    private static final String OPERATOR = "/rhino/v1/jobs/{jobId}/operators/{operator}";
    // how long a 202 waits for the request's record (a file system that hangs delays no longer)
    private static final Duration JOURNAL_WAIT = Duration.ofSeconds(10);

    private final RhinoDirectory directory;
    private final RestAccess access;
    private final Reconfigurer reconfigurer;
    private final double defaultMaxImbalance;
    private final RestRoutes routes;
    private final JsonNode openApi;

    RhinoRestApi(RhinoDirectory directory, double defaultMaxImbalance) {
        this.access = new RestAccess(directory);
        this.directory = access.served();
        this.reconfigurer = new Reconfigurer(this.directory);
        this.defaultMaxImbalance = defaultMaxImbalance;
        this.openApi = readOpenApi();
        this.routes =
                new RestRoutes(this::checkAccess)
                        .add(HttpMethod.GET, "/rhino/v1/openapi.json", call -> ok(openApi))
                        .add(HttpMethod.GET, "/rhino/v1/jobs", this::jobs)
                        .add(HttpMethod.GET, "/rhino/v1/jobs/{jobId}/operators", this::operators)
                        .add(HttpMethod.GET, OPERATOR, this::operator)
                        .add(HttpMethod.GET, OPERATOR + "/handovers", this::recentHandovers)
                        .add(HttpMethod.POST, OPERATOR + "/handovers", this::move)
                        .add(HttpMethod.GET, OPERATOR + "/handovers/{requestId}", this::status)
                        .add(HttpMethod.POST, OPERATOR + "/rebalance", this::rebalance)
                        .add(HttpMethod.POST, OPERATOR + "/rescale", this::rescale)
                        .add(HttpMethod.GET, OPERATOR + "/replication", this::replication)
                        .add(
                                HttpMethod.GET,
                                "/rhino/v1/jobs/{jobId}/taskmanagers",
                                this::taskManagers)
                        .add(
                                HttpMethod.POST,
                                "/rhino/v1/jobs/{jobId}/taskmanagers/{taskManagerId}/drain",
                                this::drain)
                        .add(
                                HttpMethod.GET,
                                "/rhino/v1/jobs/{jobId}/reconfigurations/{requestId}",
                                this::reconfigurationStatus);
    }

    /** Every route, "METHOD template". */
    List<String> routes() {
        return routes.describe();
    }

    /**
     * Answers a request; {@code token} is the bearer token it carried, if any.
     *
     * @throws RestException and the reconfiguration exceptions for refused requests
     */
    RestResponse handle(HttpMethod method, String uri, String body, Optional<String> token) {
        return routes.dispatch(method, uri, body, token);
    }

    /** Every resource of a job needs the job's token; the others are open (see {@link #jobs}). */
    private void checkAccess(RestRoutes.Call call) {
        String jobId = call.parameter("jobId");
        if (jobId != null) {
            access.checkJob(jobId, call.token());
        }
    }

    // ------------------------------------------------------------------ reads

    /**
     * The jobs the caller may see: those whose token it carries and those without one. A caller
     * that may see none of the running jobs is told so with 401.
     */
    private RestResponse jobs(RestRoutes.Call call) {
        Map<String, List<String>> operatorsByJob = new TreeMap<>();
        for (OperatorView operator : directory.operators()) {
            operatorsByJob
                    .computeIfAbsent(operator.jobId(), j -> new ArrayList<>())
                    .add(operator.name());
        }
        boolean anyRunning = !operatorsByJob.isEmpty();
        operatorsByJob.keySet().removeIf(job -> !access.admits(job, call.token()));
        if (anyRunning && operatorsByJob.isEmpty()) {
            throw BearerToken.unauthorized(
                    (call.token().isPresent() ? "Wrong token" : "Missing token")
                            + ": no running job takes it; send 'Authorization: Bearer <token>'"
                            + " with a job's rhino.rest.auth-token");
        }
        ArrayNode jobs = MAPPER.createArrayNode();
        operatorsByJob.forEach(
                (job, names) -> {
                    ObjectNode node = jobs.addObject().put("id", job);
                    ArrayNode operators = node.putArray("operators");
                    new TreeSet<>(names).forEach(operators::add);
                });
        ObjectNode body = MAPPER.createObjectNode();
        body.set("jobs", jobs);
        return ok(body);
    }

    private RestResponse operators(RestRoutes.Call call) {
        String jobId = call.parameter("jobId");
        List<OperatorView> operators = directory.operatorsOf(jobId);
        if (operators.isEmpty()) {
            throw RestException.notFound("No running Rhino job '" + jobId + "' in this JobManager");
        }
        ObjectNode body = MAPPER.createObjectNode();
        ArrayNode array = body.putArray("operators");
        operators.forEach(operator -> array.add(JsonViews.operator(operator)));
        return ok(body);
    }

    private RestResponse operator(RestRoutes.Call call) {
        return ok(JsonViews.operator(operatorOf(call)));
    }

    private RestResponse recentHandovers(RestRoutes.Call call) {
        OperatorView operator = operatorOf(call);
        ObjectNode body = MAPPER.createObjectNode();
        ArrayNode array = body.putArray("handovers");
        for (Reconfiguration r :
                directory.reconfigurations().recent(operator.jobId(), operator.name())) {
            array.add(ReconfigurationStatusView.of(r, directory));
        }
        return ok(body);
    }

    private RestResponse status(RestRoutes.Call call) {
        OperatorView operator = operatorOf(call);
        String requestId = call.parameter("requestId");
        return directory
                .reconfigurations()
                .get(requestId)
                .filter(r -> r.jobId().equals(operator.jobId()))
                .filter(r -> r.operators().contains(operator.name()))
                .map(r -> ok(ReconfigurationStatusView.of(r, directory)))
                .orElseThrow(
                        () ->
                                unknownRequest(
                                        requestId,
                                        "of operator '" + operator.name() + "'",
                                        operator.jobId()));
    }

    private RestResponse reconfigurationStatus(RestRoutes.Call call) {
        String jobId = call.parameter("jobId");
        String requestId = call.parameter("requestId");
        return directory
                .reconfigurations()
                .get(requestId)
                .filter(r -> r.jobId().equals(jobId))
                .map(r -> ok(ReconfigurationStatusView.of(r, directory)))
                .orElseThrow(() -> unknownRequest(requestId, "of job " + jobId, jobId));
    }

    /**
     * A request id this JobManager does not know: ended too long ago, never accepted, or accepted
     * by an earlier JobManager of the job that recorded it nowhere (without {@code
     * rhino.rest.request-journal.dir} requests live in the JobManager's memory and end with it), so
     * the caller learns where to read what happened.
     */
    private static RestException unknownRequest(String requestId, String of, String jobId) {
        return RestException.notFound(
                "No reconfiguration '"
                        + requestId
                        + "' "
                        + of
                        + " in this JobManager. It keeps the last 1000 ended requests; a request"
                        + " an earlier JobManager of the job accepted is known here only if the"
                        + " job sets "
                        + RhinoOptions.REST_REQUEST_JOURNAL_DIR.key()
                        + " (otherwise it ended with that JobManager). Read the operators'"
                        + " parallelism and routing at GET /rhino/v1/jobs/"
                        + jobId
                        + "/operators to see where it left them.");
    }

    private RestResponse replication(RestRoutes.Call call) {
        return ok(JsonViews.replication(operatorOf(call)));
    }

    private RestResponse taskManagers(RestRoutes.Call call) {
        String jobId = call.parameter("jobId");
        List<OperatorView> operators = directory.operatorsOf(jobId);
        if (operators.isEmpty()) {
            throw RestException.notFound("No running Rhino job '" + jobId + "' in this JobManager");
        }
        Map<String, Map<String, List<Integer>>> subtasks = new TreeMap<>();
        for (OperatorView operator : operators) {
            operator.taskManagerBySubtask()
                    .forEach(
                            (subtask, tm) ->
                                    subtasks.computeIfAbsent(tm, t -> new TreeMap<>())
                                            .computeIfAbsent(
                                                    operator.name(), o -> new ArrayList<>())
                                            .add(subtask));
        }
        ObjectNode body = MAPPER.createObjectNode();
        ArrayNode array = body.putArray("taskmanagers");
        subtasks.forEach(
                (tm, byOperator) -> {
                    ObjectNode node = array.addObject().put("id", tm);
                    node.set("subtasks", MAPPER.valueToTree(byOperator));
                });
        return ok(body);
    }

    // ------------------------------------------------------------------ reconfigurations

    private RestResponse move(RestRoutes.Call call) {
        OperatorView operator = operatorOf(call);
        JsonBody body = JsonBody.parse(call.body(), Set.of("moves", "request-id"));
        List<Reconfigurer.Move> moves = new ArrayList<>();
        for (JsonBody move : body.requiredObjects("moves", Set.of("vnode", "to"))) {
            moves.add(new Reconfigurer.Move(move.requiredInt("vnode"), move.requiredInt("to")));
        }
        return accepted(reconfigurer.move(requestId(body), operator, moves));
    }

    private RestResponse rebalance(RestRoutes.Call call) {
        OperatorView operator = operatorOf(call);
        JsonBody body = JsonBody.parse(call.body(), Set.of("max-imbalance", "request-id"));
        double maxImbalance = body.optionalNumber("max-imbalance").orElse(defaultMaxImbalance);
        return accepted(
                reconfigurer.rebalance(
                        requestId(body), operator, maxImbalance, OperationKind.REBALANCE));
    }

    private RestResponse rescale(RestRoutes.Call call) {
        OperatorView operator = operatorOf(call);
        JsonBody body =
                JsonBody.parse(
                        call.body(), Set.of("active-subtasks", "allow-restart", "request-id"));
        boolean allowRestart = body.optionalBoolean("allow-restart").orElse(false);
        Reconfiguration rescale =
                reconfigurer.rescale(
                        requestId(body),
                        operator,
                        body.requiredInt("active-subtasks"),
                        allowRestart);
        OperationStep step = rescale.steps().get(0);
        if (step.report().isPresent()) {
            // a restart closes the job's operators, whose leases keep this server up: its status
            // must still answer meanwhile, on the same port (a live rescale needs no such hold)
            RhinoRestServer.keepRunningUntil(step.result());
        }
        return accepted(rescale);
    }

    private RestResponse drain(RestRoutes.Call call) {
        JsonBody body = JsonBody.parse(call.body(), Set.of("request-id"));
        return accepted(
                reconfigurer.drain(
                        requestId(body), call.parameter("jobId"), call.parameter("taskManagerId")));
    }

    // ------------------------------------------------------------------ helpers

    private OperatorView operatorOf(RestRoutes.Call call) {
        return reconfigurer.operator(call.parameter("jobId"), call.parameter("operator"));
    }

    private static String requestId(JsonBody body) {
        return Reconfigurer.checkRequestId(
                body.optionalString("request-id").orElseGet(() -> UUID.randomUUID().toString()));
    }

    /** 202 once the request is recorded in its job's request journal, if the job keeps one. */
    private RestResponse accepted(Reconfiguration reconfiguration) {
        directory.awaitRecorded(reconfiguration, JOURNAL_WAIT);
        ObjectNode body = MAPPER.createObjectNode();
        body.put("request-id", reconfiguration.requestId());
        ArrayNode operators = body.putArray("operators");
        reconfiguration.operators().forEach(operators::add);
        return RestResponse.of(HttpResponseStatus.ACCEPTED, body);
    }

    private static RestResponse ok(JsonNode body) {
        return RestResponse.of(HttpResponseStatus.OK, body);
    }

    static ObjectNode errors(String... messages) {
        ObjectNode body = MAPPER.createObjectNode();
        ArrayNode errors = body.putArray("errors");
        for (String message : messages) {
            errors.add(message);
        }
        return body;
    }

    private static JsonNode readOpenApi() {
        try (InputStream in = RhinoRestApi.class.getResourceAsStream(OPENAPI_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("Missing resource " + OPENAPI_RESOURCE);
            }
            return MAPPER.readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
