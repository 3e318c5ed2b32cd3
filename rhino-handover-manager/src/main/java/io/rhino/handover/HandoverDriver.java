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

package io.rhino.handover;

import io.rhino.core.handover.HandoverCommand;
import io.rhino.core.handover.HandoverId;
import io.rhino.core.handover.HandoverPhase;
import io.rhino.core.handover.HandoverPlan;
import io.rhino.core.handover.InvalidHandoverException;
import io.rhino.core.routing.RoutingTable;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.function.LongFunction;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The decisions of a {@link HandoverManager}: which handover runs, which wait, when the table
 * changes and when checkpoints may proceed. Every side effect goes through {@link HandoverEffects}.
 *
 * <p>At most one handover runs at a time; accepted requests wait in a queue (only while a
 * checkpoint is in flight, see {@link CheckpointExclusion}) and start in order. A queued plan is
 * validated against the table the handovers ahead of it will produce; if one of those fails, the
 * queued plans that relied on it fail at once.
 *
 * <p>Not thread-safe: the manager calls it under its lock.
 */
final class HandoverDriver {

    private static final Logger LOG = LoggerFactory.getLogger(HandoverManager.class);

    private final String operatorName;
    private final int routerParallelism;
    private final HandoverManagerOptions options;
    private final LongSupplier clockMillis;
    private final HandoverEffects effects;

    private RoutingTable table;
    private RunningHandover running;
    private final HandoverQueue queue = new HandoverQueue();
    private final CheckpointExclusion exclusion = new CheckpointExclusion();
    private final ResultHistory history;
    private final MetricsRecorder metrics = new MetricsRecorder();
    private boolean closed;

    /** Why requests are refused while the job recovers, or null when they are accepted. */
    private String suspendedBecause;

    /** Why requests are refused once the input ended, or null while it has not. */
    private String inputEndedBecause;

    /** Run once no handover runs, after the input ended. */

    /** The started handover; {@code timeoutTask} is null if the timer refused it. */
    private record RunningHandover(
            HandoverProgress progress,
            CompletableFuture<HandoverResult> future,
            ScheduledFuture<?> timeoutTask) {

        HandoverId id() {
            return progress.id();
        }
    }

    HandoverDriver(
            String operatorName,
            RoutingTable initialTable,
            int routerParallelism,
            HandoverManagerOptions options,
            LongSupplier clockMillis,
            HandoverEffects effects) {
        this.operatorName = operatorName;
        this.table = initialTable;
        this.routerParallelism = routerParallelism;
        this.options = options;
        this.clockMillis = clockMillis;
        this.effects = effects;
        this.history = new ResultHistory(options.resultHistorySize());
    }

    // ---------------------------------------------------------------- requests

    /**
     * Accepts the request (queued, and started if nothing is in the way) or refuses it without
     * changing anything but the {@code rejected} counter.
     *
     * @param planForEpoch makes the plan from the epoch it will be validated against
     * @return why the request was refused, or null if it was accepted
     */
    RuntimeException admit(
            HandoverId id,
            LongFunction<HandoverPlan> planForEpoch,
            CompletableFuture<HandoverResult> future) {
        if (closed) {
            return Refusals.closed(operatorName);
        }
        if (suspendedBecause != null) {
            metrics.recordRejected();
            return Refusals.suspended(suspendedBecause, operatorName);
        }
        if (inputEndedBecause != null) {
            metrics.recordRejected();
            return Refusals.inputEnded(inputEndedBecause, operatorName);
        }
        RoutingTable basis = tableAfterQueued();
        HandoverPlan plan = planForEpoch.apply(basis.epoch());
        RuntimeException refusal = conflictWith(id);
        if (refusal == null) {
            try {
                basis.validate(plan);
            } catch (InvalidHandoverException invalid) {
                refusal = invalid;
            }
        }
        if (refusal != null) {
            metrics.recordRejected();
            LOG.info(
                    "Refused handover {} on operator '{}': {}",
                    id,
                    operatorName,
                    refusal.getMessage());
            return refusal;
        }
        queue.add(new HandoverQueue.Entry(id, plan, future, clockMillis.getAsLong()));
        startNextIfPossible();
        if (queue.find(id).isPresent()) {
            LOG.info(
                    "Handover {} on operator '{}' queued until checkpoint {} ends: {}",
                    id,
                    operatorName,
                    oldestCheckpoint(),
                    plan);
        }
        return null;
    }

    /**
     * The table new requests are checked against: the running and queued plans go first. Each
     * queued plan fits the table its predecessors produce (failures of predecessors drop those that
     * relied on them).
     */
    RoutingTable tableAfterQueued() {
        return queue.tableAfter(running == null ? table : table.apply(running.progress().plan()));
    }

    private RuntimeException conflictWith(HandoverId id) {
        if (history.contains(id)
                || (running != null && running.id().equals(id))
                || queue.find(id).isPresent()) {
            return Refusals.idTaken(id, operatorName);
        }
        if (running != null) {
            return Refusals.running(running.id(), running.progress().phase(), operatorName);
        }
        if (!exclusion.mayStartHandover() && queue.size() >= options.maxQueued()) {
            return queue.isEmpty()
                    ? Refusals.noQueue(oldestCheckpoint(), operatorName)
                    : Refusals.queueFull(
                            queue.last().orElseThrow().id(),
                            oldestCheckpoint(),
                            options.maxQueued(),
                            operatorName);
        }
        return null;
    }

    private String oldestCheckpoint() {
        return exclusion.oldestCheckpointInFlight().map(String::valueOf).orElse("(none)");
    }

    private void startNextIfPossible() {
        if (running == null && !closed && exclusion.mayStartHandover() && !queue.isEmpty()) {
            start(queue.poll());
        }
    }

    private void start(HandoverQueue.Entry next) {
        HandoverId id = next.id();
        HandoverPlan plan = next.plan();
        exclusion.handoverStarted();
        HandoverProgress progress = new HandoverProgress(id, plan, routerParallelism, clockMillis);
        ScheduledFuture<?> timeoutTask = effects.scheduleTimeout(id, options.timeout().toMillis());
        running = new RunningHandover(progress, next.future(), timeoutTask);
        metrics.recordStarted();
        HandoverCommand command = new HandoverCommand(id, plan, plan.basedOnEpoch() + 1);
        LOG.info(
                "Starting handover {} on operator '{}': epoch {} -> {}, {} moves {}",
                id,
                operatorName,
                plan.basedOnEpoch(),
                command.newEpoch(),
                plan.moves().size(),
                plan);
        effects.sendToRouters(command);
    }

    // ---------------------------------------------------------------- protocol input

    void onRouterAck(HandoverId id, int routerSubtask) {
        HandoverProgress progress = progressOf(id, "ack of router " + routerSubtask);
        if (progress == null) {
            return;
        }
        boolean fresh = progress.recordRouterAck(routerSubtask);
        LOG.debug(
                "Handover {} on operator '{}': router {} acked{}",
                id,
                operatorName,
                routerSubtask,
                fresh ? "" : " again (ignored)");
        advance();
    }

    void onOriginShipped(HandoverId id, int originSubtask, List<ShippedVnode> vnodes) {
        HandoverProgress progress = progressOf(id, "shipment of origin " + originSubtask);
        if (progress == null) {
            return;
        }
        List<ShippedVnode> fresh = progress.recordShipped(originSubtask, vnodes);
        LOG.debug(
                "Handover {} on operator '{}': origin {} reported {} vnodes, {} of them new",
                id,
                operatorName,
                originSubtask,
                vnodes.size(),
                fresh.size());
        // Forward first: should this report end the handover, targets still get it before the end.
        TreeMap<Integer, List<ShippedVnode>> byTarget = new TreeMap<>();
        for (ShippedVnode vnode : fresh) {
            byTarget.computeIfAbsent(vnode.toSubtask(), t -> new ArrayList<>()).add(vnode);
        }
        byTarget.forEach((target, group) -> effects.sendToTarget(target, id, List.copyOf(group)));
        advance();
    }

    void onTargetInstalled(HandoverId id, int targetSubtask, Set<Integer> vnodes) {
        HandoverProgress progress = progressOf(id, "installation on target " + targetSubtask);
        if (progress == null) {
            return;
        }
        Set<Integer> fresh = progress.recordInstalled(targetSubtask, vnodes);
        LOG.debug(
                "Handover {} on operator '{}': target {} installed vnodes {} (new: {})",
                id,
                operatorName,
                targetSubtask,
                vnodes,
                fresh);
        advance();
    }

    /** Returns the running handover's progress if {@code id} is it, else logs and returns null. */
    private HandoverProgress progressOf(HandoverId id, String event) {
        Objects.requireNonNull(id, "id: null (expected: a HandoverId)");
        if (running != null && running.id().equals(id)) {
            return running.progress();
        }
        // Reports for ended handovers, or from before a failover, are expected.
        LOG.debug(
                "Operator '{}': ignoring {} for handover {}, which is not running (running: {})",
                operatorName,
                event,
                id,
                running == null ? "none" : running.id());
        return null;
    }

    private void advance() {
        HandoverProgress progress = running.progress();
        List<HandoverPhase> entered = progress.advance();
        if (!entered.isEmpty()) {
            LOG.debug(
                    "Handover {} on operator '{}' entered {}",
                    progress.id(),
                    operatorName,
                    entered);
        }
        if (progress.phase() == HandoverPhase.COMPLETED) {
            completeRunning();
        }
    }

    // ---------------------------------------------------------------- failures

    /** The timeout of {@code id} fired; ignored if it already ended. */
    void onTimeout(HandoverId id) {
        if (running == null || !running.id().equals(id)) {
            return; // ended just before the timer fired
        }
        HandoverProgress progress = running.progress();
        String cause =
                "timed out after "
                        + options.timeout().toMillis()
                        + " ms in phase "
                        + progress.phase()
                        + " (waiting for: "
                        + progress.waitingFor()
                        + ")";
        failRunning(
                cause,
                new HandoverTimeoutException(id, progress.phase(), rollbackMessage(id, cause)));
    }

    /**
     * A port call for {@code id} threw. If nothing was delivered ({@link
     * CommandNotDeliveredException}) no subtask acted on it and the handover just fails; otherwise
     * routers may have switched, so the job must roll back.
     */
    void onSendFailed(HandoverId id, String what, RuntimeException error) {
        if (running == null || !running.id().equals(id)) {
            LOG.debug(
                    "Operator '{}': {} for ended handover {} failed",
                    operatorName,
                    what,
                    id,
                    error);
            return;
        }
        String cause = what + " failed: " + error;
        if (error instanceof CommandNotDeliveredException) {
            failRunning(cause + "; no subtask received it, retry", null);
            return;
        }
        failRunning(cause, new HandoverFailedException(id, rollbackMessage(id, cause), error));
    }

    private String rollbackMessage(HandoverId id, String cause) {
        return "handover "
                + id
                + " on operator '"
                + operatorName
                + "' "
                + cause
                + "; restarting the job to roll back to the pre-handover checkpoint";
    }

    void onJobFailure(Throwable cause) {
        failAll("the job failed: " + cause);
    }

    /** Replaces the table with a restored one; fails everything and forgets checkpoints. */
    void resetTo(RoutingTable restored) {
        if (closed) {
            throw new IllegalStateException(
                    "handover manager of operator '"
                            + operatorName
                            + "' is CLOSED (expected: open); cannot reset its table");
        }
        checkLayout(restored);
        failAll(
                "the routing table was reset to epoch "
                        + restored.epoch()
                        + " restored from a checkpoint");
        // Notifications of checkpoints of the failed execution may never come.
        exclusion.reset();
        LOG.info(
                "Operator '{}': routing table reset to {} (was {})", operatorName, restored, table);
        table = restored;
    }

    /**
     * The job is failing or restarting: fails the running and queued handovers and refuses new
     * requests, naming {@code reason}, until {@link #resume}.
     */
    void suspend(String reason) {
        if (suspendedBecause == null) {
            LOG.info(
                    "Operator '{}' refuses handovers until it runs again: {}",
                    operatorName,
                    reason);
        }
        suspendedBecause = reason;
        failAll(reason);
    }

    /**
     * Every subtask runs again and the routers route by {@code agreed}: adopts it (it may be older
     * than the table of a handover that completed after the restored checkpoint) and accepts
     * requests again. Checkpoints in flight are kept: new ones may have begun already.
     */
    void resume(RoutingTable agreed) {
        checkLayout(agreed);
        if (!agreed.equals(table)) {
            LOG.info(
                    "Operator '{}': the restarted routers route by {}; the manager had {}",
                    operatorName,
                    agreed,
                    table);
            table = agreed;
        }
        if (suspendedBecause != null) {
            LOG.info("Operator '{}' accepts handovers again at {}", operatorName, table);
        }
        suspendedBecause = null;
        inputEndedBecause = null; // a restored job reads its input again
    }

    /**
     * The input of router {@code routerSubtask} ended: new requests are refused and queued ones
     * fail (they would start after routers stopped reading). The running handover, if any, counts
     * the router's end as its acknowledgement (its gates count it as its marker); if every router
     * ended without switching, no gate knows the handover and it fails, changing nothing.
     */
    void routerInputEnded(int routerSubtask) {
        String reason = "the input of router subtask " + routerSubtask + " ended";
        if (inputEndedBecause == null) {
            LOG.info("Operator '{}' starts no more handovers: {}", operatorName, reason);
            inputEndedBecause = reason;
            queue.removeAll()
                    .forEach(queued -> endBeforeStart(queued, "the input ended: " + reason));
        }
        if (running == null) {
            return;
        }
        HandoverProgress progress = running.progress();
        progress.recordRouterEnded(routerSubtask);
        if (progress.noRouterSwitched()) {
            failRunning("the input ended before any router switched; nothing changed", null);
            return;
        }
        advance();
    }

    Optional<String> suspension() {
        return Optional.ofNullable(suspendedBecause);
    }

    private void checkLayout(RoutingTable restored) {
        if (!restored.layout().equals(table.layout())) {
            throw new IllegalArgumentException(
                    "restored: "
                            + restored
                            + " with "
                            + restored.layout()
                            + " (expected: "
                            + table.layout()
                            + " of operator '"
                            + operatorName
                            + "')");
        }
    }

    void close() {
        if (closed) {
            return;
        }
        closed = true;
        failAll(
                "manager closed: the handover manager of operator '"
                        + operatorName
                        + "' was closed");
        LOG.info("Handover manager of operator '{}' closed", operatorName);
    }

    private void failAll(String cause) {
        // Queued first: ending the running one would start the next queued one.
        queue.removeAll().forEach(queued -> endBeforeStart(queued, cause));
        if (running != null) {
            failRunning(cause, null);
        }
    }

    // ---------------------------------------------------------------- checkpoints

    void beforeCheckpoint(long checkpointId, Runnable proceed) {
        if (closed) {
            effects.proceed(proceed);
        } else if (exclusion.checkpointRequested(checkpointId, proceed).isPresent()) {
            LOG.debug("Operator '{}': checkpoint {} proceeds", operatorName, checkpointId);
            effects.proceed(proceed);
        } else {
            LOG.info(
                    "Operator '{}': checkpoint {} waits for handover {} (phase {}) to end",
                    operatorName,
                    checkpointId,
                    running.id(),
                    running.progress().phase());
        }
    }

    void checkpointEnded(long checkpointId) {
        CheckpointExclusion.CheckpointEnd end = exclusion.checkpointEnded(checkpointId);
        LOG.debug("Operator '{}': checkpoint {} ended ({})", operatorName, checkpointId, end);
        startNextIfPossible();
    }

    // ---------------------------------------------------------------- endings

    private void completeRunning() {
        RunningHandover ended = endRunning();
        table = table.apply(ended.progress().plan());
        HandoverResult result = HandoverResult.completed(ended.progress().machine());
        LOG.info(
                "Handover {} on operator '{}' completed in {} ms, routing table now at epoch {};"
                        + " phase durations (ms): {}",
                result.id(),
                operatorName,
                result.totalMillis(),
                table.epoch(),
                result.phaseDurationsMillis());
        finish(ended.future(), result);
        releaseCheckpointsAndStartNext();
    }

    /** Fails the running handover; {@code jobFailure} is passed to failJob unless null. */
    private void failRunning(String cause, HandoverFailedException jobFailure) {
        RunningHandover ended = endRunning();
        ended.progress().machine().fail(cause);
        HandoverResult result = HandoverResult.failed(ended.progress().machine());
        LOG.info(
                "Handover {} on operator '{}' failed in phase {} after {} ms, routing table stays"
                        + " at epoch {}: {}",
                result.id(),
                operatorName,
                result.failedIn().orElseThrow(),
                result.totalMillis(),
                table.epoch(),
                cause);
        if (jobFailure != null) {
            // Before any released checkpoint proceeds: Flink should roll back, not snapshot.
            effects.failJob(jobFailure);
        }
        finish(ended.future(), result);
        // Queued plans made for the table this handover would have produced cannot run.
        queue.dropThoseThatNoLongerFit(
                table,
                (queued, stale) ->
                        endBeforeStart(
                                queued,
                                "the plan no longer fits the routing table: "
                                        + stale.getMessage()));
        releaseCheckpointsAndStartNext();
    }

    private RunningHandover endRunning() {
        RunningHandover ended = running;
        running = null;
        if (ended.timeoutTask() != null) {
            ended.timeoutTask().cancel(false);
        }
        return ended;
    }

    private void endBeforeStart(HandoverQueue.Entry queued, String cause) {
        LOG.info(
                "Handover {} on operator '{}' failed before it started: {}",
                queued.id(),
                operatorName,
                cause);
        finish(
                queued.future(),
                HandoverResult.failedBeforeStart(queued.id(), queued.plan(), cause));
    }

    private void finish(CompletableFuture<HandoverResult> future, HandoverResult result) {
        history.add(result);
        metrics.recordEnded(result);
        effects.complete(future, result);
    }

    private void releaseCheckpointsAndStartNext() {
        List<Runnable> released = exclusion.handoverEnded();
        if (!released.isEmpty()) {
            LOG.debug(
                    "Operator '{}': {} deferred checkpoints proceed",
                    operatorName,
                    released.size());
        }
        released.forEach(effects::proceed);
        startNextIfPossible();
    }

    // ---------------------------------------------------------------- queries

    RoutingTable table() {
        return table;
    }

    Optional<HandoverStatus> currentHandover() {
        if (running != null) {
            return Optional.of(statusOf(running));
        }
        return queue.first().map(this::statusOf);
    }

    Optional<HandoverStatus> status(HandoverId id) {
        if (running != null && running.id().equals(id)) {
            return Optional.of(statusOf(running));
        }
        return queue.find(id).map(this::statusOf);
    }

    Optional<HandoverResult> result(HandoverId id) {
        return history.get(id);
    }

    HandoverMetrics metrics() {
        return metrics.snapshot(table.epoch(), running != null, queue.size());
    }

    private HandoverStatus statusOf(RunningHandover handover) {
        HandoverProgress progress = handover.progress();
        return new HandoverStatus(
                progress.id(),
                progress.plan(),
                progress.phase(),
                false,
                progress.machine().totalMillis());
    }

    private HandoverStatus statusOf(HandoverQueue.Entry queued) {
        return new HandoverStatus(
                queued.id(),
                queued.plan(),
                HandoverPhase.REQUESTED,
                true,
                Math.max(0, clockMillis.getAsLong() - queued.requestedAtMillis()));
    }

    @Override
    public String toString() {
        return "table="
                + table
                + ", running="
                + (running == null ? "none" : running.id() + " in " + running.progress().phase())
                + ", queued="
                + queue.size()
                + ", "
                + exclusion
                + (suspendedBecause != null ? ", SUSPENDED" : "")
                + (closed ? ", CLOSED" : "");
    }
}
