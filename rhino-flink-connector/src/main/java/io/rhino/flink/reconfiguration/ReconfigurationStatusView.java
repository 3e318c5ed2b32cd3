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

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rhino.core.handover.HandoverPhase;
import io.rhino.core.handover.VnodeMove;
import io.rhino.handover.HandoverResult;
import io.rhino.handover.HandoverStatus;
import io.rhino.handover.operation.OperationStep;
import io.rhino.handover.operation.Reconfiguration;
import java.util.Locale;
import java.util.Optional;

/**
 * A reconfiguration's status as the REST API serves it and the request journal records it (field
 * names are the API's contract).
 */
public final class ReconfigurationStatusView {

    private ReconfigurationStatusView() {}

    /**
     * Flink's shape of an asynchronous operation, {"status": {"id": ...}, "operation": {...}}, now;
     * a recorded one's as an earlier JobManager recorded it.
     */
    public static ObjectNode of(Reconfiguration reconfiguration, RhinoDirectory directory) {
        if (reconfiguration.recorded().isPresent()) {
            return Json.MAPPER.valueToTree(reconfiguration.recorded().get().view());
        }
        ObjectNode node = Json.MAPPER.createObjectNode();
        node.putObject("status").put("id", reconfiguration.status().name());
        ObjectNode operation = node.putObject("operation");
        operation.put("request-id", reconfiguration.requestId());
        operation.put("kind", reconfiguration.kind().name().toLowerCase(Locale.ROOT));
        operation.put("job", reconfiguration.jobId());
        operation.put("parameters", reconfiguration.parameters());
        operation.put("requested-at", reconfiguration.requestedAtMillis());
        ArrayNode handovers = operation.putArray("handovers");
        for (OperationStep step : reconfiguration.steps()) {
            handovers.add(step(reconfiguration.jobId(), step, directory));
        }
        ArrayNode failures = operation.putArray("failures");
        reconfiguration.failures().forEach(failures::add);
        return node;
    }

    private static ObjectNode step(String jobId, OperationStep step, RhinoDirectory directory) {
        ObjectNode node = Json.MAPPER.createObjectNode();
        node.put("operator", step.operator());
        step.handoverId().ifPresent(id -> node.put("handover-id", id.value()));
        ArrayNode moves = node.putArray("moves");
        for (VnodeMove move : step.moves()) {
            moves.addObject()
                    .put("vnode", move.vnode())
                    .put("from", move.fromSubtask())
                    .put("to", move.toSubtask());
        }
        node.put("status", step.failed() ? "FAILED" : step.isDone() ? "COMPLETED" : "IN_PROGRESS");
        Optional<HandoverResult> result = step.handoverResult();
        if (result.isPresent()) {
            HandoverResult ended = result.get();
            node.put("phase", ended.outcome().name());
            ObjectNode phases = node.putObject("phase-durations-ms");
            ended.phaseDurationsMillis()
                    .forEach((phase, ms) -> phases.put(phase.name().toLowerCase(Locale.ROOT), ms));
            node.put("total-ms", ended.totalMillis());
            if (ended.isCompleted()) {
                node.put("new-epoch", ended.newEpoch());
            }
        } else if (!step.isDone() && step.handoverId().isPresent()) {
            directory
                    .operator(jobId, step.operator())
                    .flatMap(OperatorView::manager)
                    .flatMap(m -> m.status(step.handoverId().get()))
                    .map(HandoverStatus::phase)
                    .map(HandoverPhase::name)
                    .ifPresent(phase -> node.put("phase", phase));
        }
        step.report()
                .ifPresent(report -> node.set("restart", Json.MAPPER.valueToTree(report.report())));
        step.failure().ifPresent(f -> node.put("failure", f));
        return node;
    }
}
