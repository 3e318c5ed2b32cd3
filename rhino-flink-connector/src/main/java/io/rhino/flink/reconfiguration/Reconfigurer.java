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
import io.rhino.core.handover.HandoverId;
import io.rhino.core.handover.HandoverPlan;
import io.rhino.core.handover.InvalidHandoverException;
import io.rhino.core.handover.VnodeMove;
import io.rhino.core.routing.RoutingTable;
import io.rhino.flink.config.RhinoOptions;
import io.rhino.flink.config.RhinoRuntimeSettings;
import io.rhino.handover.HandoverManager;
import io.rhino.handover.HandoverRejectedException;
import io.rhino.handover.HandoverResult;
import io.rhino.handover.operation.OperationKind;
import io.rhino.handover.operation.OperationStep;
import io.rhino.handover.operation.Reconfiguration;
import io.rhino.handover.operation.ReconfigurationConflictException;
import io.rhino.handover.operation.Reconfigurations;
import io.rhino.handover.policy.ClusterModel;
import io.rhino.handover.policy.DrainPolicy;
import io.rhino.handover.policy.RebalancePolicy;
import io.rhino.handover.policy.RescalePolicy;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns reconfiguration requests (move, rebalance, rescale, drain) into handovers: checks them
 * against the operators' current tables, plans them with the pure policies over a {@link
 * ClusterModel} of measured loads, and starts them through the process's {@link Reconfigurations}
 * so that at most one runs per operator. A request refused up front throws {@link
 * ReconfigurationRequestException} or {@link ReconfigurationConflictException} and changes nothing.
 */
public final class Reconfigurer {

    private static final Logger LOG = LoggerFactory.getLogger(Reconfigurer.class);
    private static final Pattern REQUEST_ID = Pattern.compile("[A-Za-z0-9._-]{1,64}");

    /** One requested move: a vnode and its target subtask. */
    public record Move(int vnode, int to) {}

    private final RhinoDirectory directory;

    public Reconfigurer(RhinoDirectory directory) {
        this.directory = directory;
    }

    /** Checks a client's request id. */
    public static String checkRequestId(String requestId) {
        if (requestId == null || !REQUEST_ID.matcher(requestId).matches()) {
            throw ReconfigurationRequestException.invalid(
                    "request-id: \""
                            + requestId
                            + "\" (expected: 1 to 64 of the characters A-Z a-z 0-9 . _ -)");
        }
        return requestId;
    }

    /** The running Rhino operator, or NOT_FOUND naming the running ones. */
    public OperatorView operator(String jobId, String name) {
        List<OperatorView> ofJob = directory.operatorsOf(jobId);
        if (ofJob.isEmpty()) {
            throw ReconfigurationRequestException.notFound(
                    "No running Rhino job '" + jobId + "' in this JobManager");
        }
        return ofJob.stream()
                .filter(o -> o.name().equals(name))
                .findFirst()
                .orElseThrow(
                        () ->
                                ReconfigurationRequestException.notFound(
                                        "Job "
                                                + jobId
                                                + " has no Rhino operator '"
                                                + name
                                                + "'; its Rhino operators: "
                                                + ofJob.stream().map(OperatorView::name).toList()));
    }

    /** The model the policies plan on: the manager's table and the measured loads. */
    public static ClusterModel modelOf(OperatorView operator, RoutingTable table) {
        double[] rates = operator.recordsPerSecond();
        Map<Integer, Double> loads = new HashMap<>();
        double total = 0;
        for (double rate : rates) {
            total += rate;
        }
        if (total <= 0) {
            return new ClusterModel(
                    table,
                    ClusterModel.uniform(table).loadByVnode(),
                    operator.taskManagerBySubtask(),
                    operator.replicaHolders());
        }
        for (int vnode = 0; vnode < rates.length; vnode++) {
            loads.put(vnode, rates[vnode]);
        }
        return new ClusterModel(
                table, loads, operator.taskManagerBySubtask(), operator.replicaHolders());
    }

    /** Moves the named vnodes. */
    public Reconfiguration move(String requestId, OperatorView operator, List<Move> moves) {
        checkRequestId(requestId);
        if (moves.isEmpty()) {
            throw ReconfigurationRequestException.invalid(
                    "moves: empty (expected: at least one {\"vnode\": v, \"to\": subtask})");
        }
        String parameters = "moves=" + moves;
        return start(
                requestId,
                OperationKind.MOVE,
                operator,
                parameters,
                table -> planMoves(operator, table, moves));
    }

    /** Moves the fewest vnodes that bring the max/mean subtask load under {@code maxImbalance}. */
    public Reconfiguration rebalance(
            String requestId, OperatorView operator, double maxImbalance, OperationKind kind) {
        checkRequestId(requestId);
        if (!(maxImbalance >= 1.0)) {
            throw ReconfigurationRequestException.invalid(
                    "max-imbalance: " + maxImbalance + " (expected: a max/mean ratio >= 1)");
        }
        return start(
                requestId,
                kind,
                operator,
                "max-imbalance=" + maxImbalance,
                table -> RebalancePolicy.plan(modelOf(operator, table), maxImbalance));
    }

    /** Spreads the vnodes over {@code activeSubtasks} subtasks, moving as few as possible. */
    public Reconfiguration rescale(String requestId, OperatorView operator, int activeSubtasks) {
        return rescale(requestId, operator, activeSubtasks, false);
    }

    /**
     * Spreads the vnodes over {@code activeSubtasks} subtasks: live, moving as few vnodes as
     * possible, within the deployed parallelism; past it, with {@code allowRestart}, by asking
     * Flink's adaptive scheduler to restart the job at that parallelism ({@link RestartRescale}).
     */
    public Reconfiguration rescale(
            String requestId, OperatorView operator, int activeSubtasks, boolean allowRestart) {
        checkRequestId(requestId);
        int limit = operator.parallelism();
        if (activeSubtasks < 1) {
            throw ReconfigurationRequestException.invalid(
                    "active-subtasks: "
                            + activeSubtasks
                            + " (expected: 1.."
                            + limit
                            + ", the operator's deployed parallelism)");
        }
        if (activeSubtasks > limit) {
            if (allowRestart) {
                return restartRescale(requestId, operator, activeSubtasks);
            }
            throw ReconfigurationRequestException.invalid(beyondDeployed(operator, activeSubtasks));
        }
        return start(
                requestId,
                OperationKind.RESCALE,
                operator,
                "active-subtasks=" + activeSubtasks,
                table -> {
                    try {
                        return RescalePolicy.plan(modelOf(operator, table), activeSubtasks);
                    } catch (IllegalArgumentException e) {
                        throw ReconfigurationRequestException.invalid(e.getMessage());
                    }
                });
    }

    /**
     * The refusal of a live rescale past the deployed subtasks, with the two restarts that reach
     * it: Rhino restores its vnodes at any parallelism up to their count.
     */
    private static String beyondDeployed(OperatorView operator, int activeSubtasks) {
        return "active-subtasks: "
                + activeSubtasks
                + " (expected: 1.."
                + operator.parallelism()
                + ", the operator's deployed parallelism). Vnodes move live only among deployed"
                + " subtasks; "
                + activeSubtasks
                + " needs a restart at that parallelism, which keeps every vnode's state: with"
                + " the adaptive scheduler (jobmanager.scheduler: adaptive), raise the upper"
                + " bound of the operator's vertices to "
                + activeSubtasks
                + " with Flink's PUT /jobs/"
                + operator.jobId()
                + "/resource-requirements; otherwise stop the job with a savepoint and resubmit"
                + " it from that savepoint at parallelism "
                + activeSubtasks
                + operator.manager()
                        .map(
                                m ->
                                        " (at most "
                                                + m.routingTable().layout().numVnodes()
                                                + ", the vnode count)")
                        .orElse("")
                + "; or send \"allow-restart\": true to have Rhino ask the adaptive scheduler"
                + " for it";
    }

    /**
     * A rescale past the deployed parallelism: checks Flink runs the job on the adaptive scheduler
     * and reads its requirements here, so that a request it cannot carry out is refused at once;
     * the new requirements go to Flink from the rescale's own thread, never under the registry's
     * lock.
     */
    private Reconfiguration restartRescale(
            String requestId, OperatorView operator, int parallelism) {
        HandoverManager manager = readyManager(operator);
        int vnodes = manager.routingTable().layout().numVnodes();
        if (parallelism > vnodes) {
            throw ReconfigurationRequestException.invalid(
                    "active-subtasks: "
                            + parallelism
                            + " (expected: at most "
                            + vnodes
                            + ", the operator's vnode count: a subtask owns at least one vnode)");
        }
        RhinoRuntimeSettings.Rescale settings =
                operator.rescaleSettings().orElseThrow(() -> starting(operator));
        URI endpoint =
                settings.flinkRest()
                        .orElseThrow(
                                () ->
                                        ReconfigurationRequestException.invalid(
                                                "\"allow-restart\": true needs Flink's REST"
                                                        + " endpoint: set "
                                                        + RhinoOptions.RESCALE_FLINK_REST_ADDRESS
                                                                .key()
                                                        + " in the job's configuration (e.g."
                                                        + " http://localhost:8081). "
                                                        + beyondDeployed(operator, parallelism)));
        String vertex = operator.gateVertexId().orElseThrow(() -> starting(operator));
        FlinkRest flink = new FlinkRest(endpoint);
        JsonNode requirements = raisedRequirements(flink, operator, vertex, parallelism);
        return directory
                .reconfigurations()
                .start(
                        requestId,
                        OperationKind.RESCALE,
                        operator.jobId(),
                        List.of(operator.name()),
                        "active-subtasks=" + parallelism + ", allow-restart",
                        () -> {
                            RestartRescale rescale =
                                    new RestartRescale(
                                            directory,
                                            flink,
                                            operator,
                                            parallelism,
                                            settings.restartTimeout().toMillis(),
                                            System::currentTimeMillis);
                            rescale.start(requirements);
                            return List.of(
                                    OperationStep.reported(
                                            operator.name(), rescale.result(), rescale));
                        });
    }

    /** The job's requirements from Flink with the gate's vertex raised, or why there are none. */
    private static JsonNode raisedRequirements(
            FlinkRest flink, OperatorView operator, String vertex, int parallelism) {
        JsonNode current;
        try {
            current = flink.get(RestartRequirements.path(operator.jobId()));
        } catch (FlinkRest.FlinkRestException e) {
            if (e.getMessage().contains("does not support changing the parallelism")) {
                throw ReconfigurationRequestException.invalid(
                        "\"allow-restart\": true needs Flink's adaptive scheduler, and job "
                                + operator.jobId()
                                + " runs on another ("
                                + e.getMessage()
                                + "). Start the job with jobmanager.scheduler: adaptive, or stop"
                                + " it with a savepoint and resubmit it from that savepoint at"
                                + " parallelism "
                                + parallelism);
            }
            if (e.status() == 404) {
                throw ReconfigurationRequestException.notFound(
                        "Flink at "
                                + flink.endpoint()
                                + " does not know job "
                                + operator.jobId()
                                + ": "
                                + RhinoOptions.RESCALE_FLINK_REST_ADDRESS.key()
                                + " must name the REST endpoint of this job's JobManager ("
                                + e.getMessage()
                                + ")");
            }
            throw new ReconfigurationRequestException(
                    ReconfigurationRequestException.Reason.UNAVAILABLE,
                    e.getMessage()
                            + "; check "
                            + RhinoOptions.RESCALE_FLINK_REST_ADDRESS.key()
                            + " and retry");
        }
        try {
            return RestartRequirements.raised(current, vertex, parallelism);
        } catch (IllegalArgumentException e) {
            throw new ReconfigurationRequestException(
                    ReconfigurationRequestException.Reason.UNAVAILABLE, e.getMessage());
        }
    }

    private static ReconfigurationRequestException starting(OperatorView operator) {
        return new ReconfigurationRequestException(
                ReconfigurationRequestException.Reason.UNAVAILABLE,
                "Rhino operator '" + operator.name() + "' is starting; retry in a few seconds");
    }

    /** Moves every vnode of every Rhino operator of the job off one TaskManager. */
    public Reconfiguration drain(String requestId, String jobId, String taskManager) {
        checkRequestId(requestId);
        List<OperatorView> ofJob = directory.operatorsOf(jobId);
        if (ofJob.isEmpty()) {
            throw ReconfigurationRequestException.notFound(
                    "No running Rhino job '" + jobId + "' in this JobManager");
        }
        List<OperatorView> touched = new ArrayList<>();
        Set<String> known = new java.util.TreeSet<>();
        for (OperatorView operator : ofJob) {
            known.addAll(operator.taskManagerBySubtask().values());
            if (operator.taskManagerBySubtask().containsValue(taskManager)) {
                touched.add(operator);
            }
        }
        if (touched.isEmpty()) {
            throw ReconfigurationRequestException.notFound(
                    "No subtask of a Rhino operator of job "
                            + jobId
                            + " runs on TaskManager '"
                            + taskManager
                            + "'; its TaskManagers: "
                            + known);
        }
        List<String> names = touched.stream().map(OperatorView::name).toList();
        return directory
                .reconfigurations()
                .start(
                        requestId,
                        OperationKind.DRAIN,
                        jobId,
                        names,
                        "taskmanager=" + taskManager,
                        () -> {
                            List<Launch> launches = new ArrayList<>();
                            for (OperatorView operator : touched) {
                                HandoverManager manager = readyManager(operator);
                                RoutingTable table = manager.routingTable();
                                List<VnodeMove> moves;
                                try {
                                    moves = DrainPolicy.plan(modelOf(operator, table), taskManager);
                                } catch (IllegalArgumentException e) {
                                    throw ReconfigurationRequestException.invalid(e.getMessage());
                                }
                                launches.add(new Launch(operator, manager, table, moves));
                            }
                            List<OperationStep> steps = new ArrayList<>();
                            for (Launch launch : launches) {
                                steps.add(launch.submit(requestId));
                            }
                            // refused by every manager (e.g. every input ended): nothing started
                            if (steps.stream()
                                    .allMatch(step -> step.result().isCompletedExceptionally())) {
                                refuseIfRefusedAtOnce(steps.get(0));
                            }
                            return steps;
                        });
    }

    @FunctionalInterface
    private interface Planner {
        List<VnodeMove> plan(RoutingTable table);
    }

    private record Launch(
            OperatorView operator,
            HandoverManager manager,
            RoutingTable table,
            List<VnodeMove> moves) {

        OperationStep submit(String requestId) {
            if (moves.isEmpty()) {
                return OperationStep.nothingToMove(operator.name());
            }
            HandoverId id = new HandoverId(requestId);
            CompletableFuture<HandoverResult> result =
                    manager.handover(id, HandoverPlan.of(table.epoch(), moves));
            LOG.info(
                    "Reconfiguration {} of Rhino operator '{}' of job {}: handover of {}",
                    requestId,
                    operator.name(),
                    operator.jobId(),
                    moves);
            return new OperationStep(operator.name(), Optional.of(id), moves, result);
        }
    }

    private Reconfiguration start(
            String requestId,
            OperationKind kind,
            OperatorView operator,
            String parameters,
            Planner planner) {
        return directory
                .reconfigurations()
                .start(
                        requestId,
                        kind,
                        operator.jobId(),
                        List.of(operator.name()),
                        parameters,
                        () -> {
                            HandoverManager manager = readyManager(operator);
                            RoutingTable table = manager.routingTable();
                            OperationStep step =
                                    new Launch(operator, manager, table, planner.plan(table))
                                            .submit(requestId);
                            refuseIfRefusedAtOnce(step);
                            return List.of(step);
                        });
    }

    /** A manager that can start a handover now, or why not. */
    private static HandoverManager readyManager(OperatorView operator) {
        HandoverManager manager =
                operator.manager()
                        .orElseThrow(
                                () ->
                                        new ReconfigurationRequestException(
                                                ReconfigurationRequestException.Reason.UNAVAILABLE,
                                                "Rhino operator '"
                                                        + operator.name()
                                                        + "' is starting; retry in a few seconds"));
        Optional<String> suspension = manager.suspension();
        if (suspension.isPresent()) {
            throw new ReconfigurationRequestException(
                    ReconfigurationRequestException.Reason.UNAVAILABLE,
                    "Rhino operator '"
                            + operator.name()
                            + "' takes no handover now ("
                            + suspension.get()
                            + "); retry once the job runs");
        }
        manager.currentHandover()
                .ifPresent(
                        running -> {
                            throw new ReconfigurationConflictException(
                                    "handover '"
                                            + running.id()
                                            + "' still runs on operator '"
                                            + operator.name()
                                            + "'; wait for it to end and retry");
                        });
        return manager;
    }

    /** Turns a request the manager refused at once into the matching request error. */
    private static void refuseIfRefusedAtOnce(OperationStep step) {
        CompletableFuture<HandoverResult> result = step.result();
        if (!result.isCompletedExceptionally()) {
            return;
        }
        try {
            result.join();
        } catch (CompletionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof InvalidHandoverException) {
                throw ReconfigurationRequestException.invalid(cause.getMessage());
            }
            if (cause instanceof HandoverRejectedException rejected) {
                throw new ReconfigurationRequestException(reasonOf(rejected), cause.getMessage());
            }
            if (cause instanceof IllegalStateException) {
                // the manager closed: its coordinator ended with the job
                throw new ReconfigurationRequestException(
                        ReconfigurationRequestException.Reason.GONE, cause.getMessage());
            }
            throw new ReconfigurationRequestException(
                    ReconfigurationRequestException.Reason.UNAVAILABLE, String.valueOf(cause));
        }
    }

    /** 503 only for what passes; an id taken or an ended input answer for good. */
    private static ReconfigurationRequestException.Reason reasonOf(
            HandoverRejectedException rejected) {
        return switch (rejected.reason()) {
            case BUSY, ID_TAKEN -> ReconfigurationRequestException.Reason.CONFLICT;
            case INPUT_ENDED -> ReconfigurationRequestException.Reason.GONE;
            case CHECKPOINT, SUSPENDED -> ReconfigurationRequestException.Reason.UNAVAILABLE;
        };
    }

    private static List<VnodeMove> planMoves(
            OperatorView operator, RoutingTable table, List<Move> moves) {
        int numVnodes = table.layout().numVnodes();
        Set<Integer> seen = new HashSet<>();
        List<VnodeMove> planned = new ArrayList<>();
        for (Move move : moves) {
            if (move.vnode() < 0 || move.vnode() >= numVnodes) {
                throw ReconfigurationRequestException.notFound(
                        "vnode "
                                + move.vnode()
                                + " does not exist; operator '"
                                + operator.name()
                                + "' has vnodes 0.."
                                + (numVnodes - 1));
            }
            if (move.to() < 0 || move.to() >= table.parallelism()) {
                throw ReconfigurationRequestException.notFound(
                        "subtask "
                                + move.to()
                                + " does not exist; operator '"
                                + operator.name()
                                + "' has subtasks 0.."
                                + (table.parallelism() - 1));
            }
            if (!seen.add(move.vnode())) {
                throw ReconfigurationRequestException.invalid(
                        "vnode " + move.vnode() + " is moved twice in one request");
            }
            int owner = table.ownerOf(move.vnode());
            if (owner == move.to()) {
                throw ReconfigurationRequestException.invalid(
                        "vnode "
                                + move.vnode()
                                + " is already owned by subtask "
                                + owner
                                + "; move it to another subtask");
            }
            planned.add(new VnodeMove(move.vnode(), owner, move.to()));
        }
        return planned;
    }
}
