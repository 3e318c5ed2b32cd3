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

import io.rhino.core.handover.HandoverId;
import io.rhino.core.handover.VnodeMove;
import io.rhino.handover.HandoverResult;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * One step of a reconfiguration on one operator: a handover (the moves planned and how they ended),
 * or a restart of the job that another party carries out and reports on (e.g. a rescale past the
 * deployed parallelism, which Flink's scheduler performs).
 *
 * @param operator the Rhino operator
 * @param handoverId the handover's id, or empty when nothing had to move or the step is a restart
 * @param moves the planned moves; empty when the operator already met the goal
 * @param result completes with the handover's result (null for a step without one), or
 *     exceptionally if it was refused or failed
 * @param report how a step that runs no handover goes, for the status; empty for a handover
 */
public record OperationStep(
        String operator,
        Optional<HandoverId> handoverId,
        List<VnodeMove> moves,
        CompletableFuture<HandoverResult> result,
        Optional<StepReport> report) {

    /** What a step that runs no handover reports while it goes and once it ended. */
    @FunctionalInterface
    public interface StepReport {
        /** The step's progress: names to strings, numbers, lists or maps of them. */
        Map<String, Object> report();
    }

    public OperationStep {
        Objects.requireNonNull(operator, "operator");
        Objects.requireNonNull(handoverId, "handoverId");
        moves = List.copyOf(moves);
        Objects.requireNonNull(result, "result");
        Objects.requireNonNull(report, "report");
    }

    /** A handover step. */
    public OperationStep(
            String operator,
            Optional<HandoverId> handoverId,
            List<VnodeMove> moves,
            CompletableFuture<HandoverResult> result) {
        this(operator, handoverId, moves, result, Optional.empty());
    }

    /** A step that runs no handover: {@code result} completes with null once it succeeded. */
    public static OperationStep reported(
            String operator, CompletableFuture<HandoverResult> result, StepReport report) {
        return new OperationStep(
                operator, Optional.empty(), List.of(), result, Optional.of(report));
    }

    /** A step with nothing to move: done at once. */
    public static OperationStep nothingToMove(String operator) {
        return new OperationStep(
                operator, Optional.empty(), List.of(), CompletableFuture.completedFuture(null));
    }

    public boolean isDone() {
        return result.isDone();
    }

    /** Whether this step ended without its moves taking effect. */
    public boolean failed() {
        if (!result.isDone()) {
            return false;
        }
        if (result.isCompletedExceptionally()) {
            return true;
        }
        HandoverResult handover = result.join();
        return handover != null && !handover.isCompleted();
    }

    /** The finished handover's result, if the step ran one and it ended. */
    public Optional<HandoverResult> handoverResult() {
        if (!result.isDone() || result.isCompletedExceptionally()) {
            return Optional.empty();
        }
        return Optional.ofNullable(result.join());
    }

    /** Why the step failed, if it did. */
    public Optional<String> failure() {
        if (!failed()) {
            return Optional.empty();
        }
        if (result.isCompletedExceptionally()) {
            try {
                result.join();
            } catch (RuntimeException e) {
                Throwable cause = e.getCause() != null ? e.getCause() : e;
                return Optional.of(String.valueOf(cause.getMessage()));
            }
        }
        return result.join().failureCause();
    }
}
