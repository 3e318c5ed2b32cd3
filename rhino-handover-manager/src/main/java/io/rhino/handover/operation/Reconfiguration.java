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

package io.rhino.handover.operation;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A reconfiguration requested over the REST API or by the auto-balancer: its request, the handovers
 * it runs and, derived from them, its status.
 */
public final class Reconfiguration {

    /** A reconfiguration's status, named as Flink's asynchronous REST operations name theirs. */
    public enum Status {
        IN_PROGRESS,
        COMPLETED,
        FAILED
    }

    private final String requestId;
    private final OperationKind kind;
    private final String jobId;
    private final List<String> operators;
    private final String parameters;
    private final long requestedAtMillis;
    private final List<OperationStep> steps;

    /**
     * @param parameters the request's own parameters in a canonical form (e.g. the moves): a
     *     request repeated with the same id is the same request only if these match
     */
    Reconfiguration(
            String requestId,
            OperationKind kind,
            String jobId,
            List<String> operators,
            String parameters,
            long requestedAtMillis,
            List<OperationStep> steps) {
        this.requestId = Objects.requireNonNull(requestId, "requestId");
        this.kind = Objects.requireNonNull(kind, "kind");
        this.jobId = Objects.requireNonNull(jobId, "jobId");
        this.operators = List.copyOf(operators);
        this.parameters = Objects.requireNonNull(parameters, "parameters");
        this.requestedAtMillis = requestedAtMillis;
        this.steps = List.copyOf(steps);
    }

    public String requestId() {
        return requestId;
    }

    public OperationKind kind() {
        return kind;
    }

    public String jobId() {
        return jobId;
    }

    public List<String> operators() {
        return operators;
    }

    public String parameters() {
        return parameters;
    }

    public long requestedAtMillis() {
        return requestedAtMillis;
    }

    public List<OperationStep> steps() {
        return steps;
    }

    /** FAILED as soon as one step failed; COMPLETED once every step completed. */
    public Status status() {
        boolean allDone = true;
        for (OperationStep step : steps) {
            if (step.failed()) {
                return Status.FAILED;
            }
            allDone &= step.isDone();
        }
        return allDone ? Status.COMPLETED : Status.IN_PROGRESS;
    }

    /** Why it failed: one line per failed step. */
    public List<String> failures() {
        List<String> failures = new ArrayList<>();
        for (OperationStep step : steps) {
            step.failure().ifPresent(f -> failures.add("operator '" + step.operator() + "': " + f));
        }
        return failures;
    }

    boolean touches(String job, String operator) {
        return jobId.equals(job) && operators.contains(operator);
    }

    boolean isSameRequest(
            OperationKind otherKind,
            String otherJob,
            List<String> otherOperators,
            String otherParameters) {
        return kind == otherKind
                && jobId.equals(otherJob)
                && operators.equals(otherOperators)
                && parameters.equals(otherParameters);
    }
}
