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
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A reconfiguration requested over the REST API or by the auto-balancer: its request, the handovers
 * it runs and, derived from them, its status. One that an earlier JobManager of the job ran is
 * {@link #recordedAs} (what that JobManager last wrote of it) or, for a restart-based rescale this
 * one follows to its end, {@link #withSteps} that follow it here.
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
    private final Optional<Recorded> recorded;

    /**
     * What an earlier JobManager recorded of a reconfiguration it ran.
     *
     * @param status its status as recorded, or as concluded when the record ended in progress
     * @param failures why it failed, if it did
     * @param view its status as that JobManager served it: names to strings, numbers, booleans,
     *     lists or maps of them
     */
    public record Recorded(Status status, List<String> failures, Map<String, Object> view) {
        public Recorded {
            Objects.requireNonNull(status, "status");
            failures = List.copyOf(failures);
            view = Collections.unmodifiableMap(new LinkedHashMap<>(view)); // keeps the order
        }
    }

    /**
     * @param parameters the request's own parameters in a canonical form (e.g. the moves): a
     *     request repeated with the same id is the same request only if these match
     */
    public Reconfiguration(
            String requestId,
            OperationKind kind,
            String jobId,
            List<String> operators,
            String parameters,
            long requestedAtMillis,
            List<OperationStep> steps) {
        this(requestId, kind, jobId, operators, parameters, requestedAtMillis, steps, null);
    }

    private Reconfiguration(
            String requestId,
            OperationKind kind,
            String jobId,
            List<String> operators,
            String parameters,
            long requestedAtMillis,
            List<OperationStep> steps,
            Recorded recorded) {
        this.requestId = Objects.requireNonNull(requestId, "requestId");
        this.kind = Objects.requireNonNull(kind, "kind");
        this.jobId = Objects.requireNonNull(jobId, "jobId");
        this.operators = List.copyOf(operators);
        this.parameters = Objects.requireNonNull(parameters, "parameters");
        this.requestedAtMillis = requestedAtMillis;
        this.steps = List.copyOf(steps);
        this.recorded = Optional.ofNullable(recorded);
    }

    /** This request with {@code steps} that run it here (e.g. one taken over from a record). */
    public Reconfiguration withSteps(List<OperationStep> steps) {
        return new Reconfiguration(
                requestId, kind, jobId, operators, parameters, requestedAtMillis, steps, null);
    }

    /** This request as an earlier JobManager recorded it; it runs no step here. */
    public Reconfiguration recordedAs(Recorded recorded) {
        return new Reconfiguration(
                requestId,
                kind,
                jobId,
                operators,
                parameters,
                requestedAtMillis,
                List.of(),
                Objects.requireNonNull(recorded, "recorded"));
    }

    /** What an earlier JobManager recorded, if this reconfiguration is only that record. */
    public Optional<Recorded> recorded() {
        return recorded;
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

    /**
     * FAILED as soon as one step failed; COMPLETED once every step completed; a recorded one's
     * status as recorded.
     */
    public Status status() {
        if (recorded.isPresent()) {
            return recorded.get().status();
        }
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
        if (recorded.isPresent()) {
            return recorded.get().failures();
        }
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
