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
import io.rhino.core.handover.VnodeMove;
import io.rhino.core.routing.RoutingTable;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongFunction;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drives the live handovers of one Rhino keyed operator and keeps its routing table (design §5,
 * paper §5.3.1). Runs in the JobManager; Flink-free.
 *
 * <p><b>Protocol.</b> For a plan at epoch {@code e} the manager sends one {@link HandoverCommand}
 * for epoch {@code e+1} to all routers through the {@link ProtocolPort}. Each router emits markers,
 * switches its table and acks ({@link #onRouterAck}). Each origin, once aligned, reports its
 * shipped vnodes ({@link #onOriginShipped}); the manager forwards them to their targets at once.
 * Each target reports what it installed ({@link #onTargetInstalled}). When all routers acked and
 * every moved vnode was shipped and installed, the handover is COMPLETED, the routing table becomes
 * {@code table.apply(plan)} and the future returned by {@link #handover} completes. Reports may
 * arrive in any order; the phases still advance in {@link HandoverPhase} order, as far as the
 * reports allow. Reports for unknown or ended handovers are ignored; repeated ones are idempotent.
 * Reports that contradict the running plan throw {@link IllegalArgumentException}.
 *
 * <p><b>Checkpoints.</b> Handovers and checkpoints never overlap: {@link #beforeCheckpoint} defers
 * a checkpoint until the running handover ends, and a handover requested while a checkpoint is in
 * flight is queued until {@link #checkpointEnded}. Deferred checkpoints go before queued handovers.
 *
 * <p><b>Failures.</b> A started handover that does not complete within {@link
 * HandoverManagerOptions#timeout()}, or whose port call throws, fails and the manager calls {@link
 * ProtocolPort#failJob}, since routers may already route by the new epoch. {@link #onJobFailure}
 * fails the running and queued handovers. In every case the table stays at the old epoch until the
 * adapter calls {@link #resetTo} with the restored table; new requests are accepted right away.
 *
 * <p><b>Threading.</b> Every method is thread-safe. State is guarded by one lock; port calls,
 * checkpoint {@code proceed}s and future completions run after the lock is released, one at a time,
 * in the order they were decided. Usually they run on the calling thread before the call returns;
 * if another thread is running such actions at that moment, that thread runs them instead, shortly
 * after the call returned. They may call back into the manager. Callbacks on returned futures run
 * on such a thread and must not block waiting for the manager's progress.
 */
public final class HandoverManager implements AutoCloseable {

    /**
     * Sends protocol commands to subtasks; implemented by the Flink adapter. Called without the
     * manager's lock held, never concurrently, from whichever thread runs the manager's pending
     * actions. If {@code sendToRouters} or {@code sendToTarget} throws, the running handover fails
     * and {@link #failJob} is called, since some subtasks may already have acted on it; unless it
     * throws {@link CommandNotDeliveredException}, which says that no subtask received anything.
     */
    public interface ProtocolPort {

        /** Sends {@code command} to every router subtask. */
        void sendToRouters(HandoverCommand command);

        /** Sends shipped vnodes of handover {@code id} to {@code targetSubtask} to install. */
        void sendToTarget(int targetSubtask, HandoverId id, List<ShippedVnode> vnodes);

        /** Asks Flink to fail and restart the job (used when a handover times out). */
        void failJob(Throwable cause);
    }

    private static final Logger LOG = LoggerFactory.getLogger(HandoverManager.class);

    private final String operatorName;
    private final ProtocolPort port;
    private final ScheduledExecutorService timer;
    private final ActionQueue actions;

    private final Object lock = new Object();

    // Guarded by lock.
    private final HandoverDriver driver;

    /**
     * Creates a manager with nothing in flight.
     *
     * @param operatorName the operator's name, for messages and logs; not blank
     * @param initialTable the routing table in force
     * @param routerParallelism how many router subtasks ack each command, {@code >= 1}
     * @param port sends commands to subtasks
     * @param options timeout and queue settings
     * @param clockMillis time source for durations, e.g. {@code System::currentTimeMillis}
     * @param timer runs the timeout checks; not shut down by {@link #close()}
     */
    public HandoverManager(
            String operatorName,
            RoutingTable initialTable,
            int routerParallelism,
            ProtocolPort port,
            HandoverManagerOptions options,
            LongSupplier clockMillis,
            ScheduledExecutorService timer) {
        Objects.requireNonNull(operatorName, "operatorName: null (expected: the operator's name)");
        if (operatorName.isBlank()) {
            throw new IllegalArgumentException(
                    "operatorName: \"" + operatorName + "\" (expected: a non-blank name)");
        }
        Objects.requireNonNull(initialTable, "initialTable: null (expected: a RoutingTable)");
        if (routerParallelism < 1) {
            throw new IllegalArgumentException(
                    "routerParallelism: " + routerParallelism + " (expected: >= 1)");
        }
        Objects.requireNonNull(options, "options: null (expected: HandoverManagerOptions)");
        Objects.requireNonNull(clockMillis, "clockMillis: null (expected: a clock)");
        this.operatorName = operatorName;
        this.port = Objects.requireNonNull(port, "port: null (expected: a ProtocolPort)");
        this.timer = Objects.requireNonNull(timer, "timer: null (expected: a scheduler)");
        this.actions = new ActionQueue(operatorName);
        this.driver =
                new HandoverDriver(
                        operatorName,
                        initialTable,
                        routerParallelism,
                        options,
                        clockMillis,
                        new QueuedEffects());
        LOG.info(
                "Handover manager of operator '{}' starts at {} with {} routers, {}",
                operatorName,
                initialTable,
                routerParallelism,
                options);
    }

    // ---------------------------------------------------------------- requests

    /**
     * Requests a handover of {@code moves}, planned against the current table (or, if handovers are
     * queued, the table they will produce).
     *
     * @return a future completed with the result once the handover ended, completed or failed; or
     *     already completed exceptionally with {@link InvalidHandoverException} or {@link
     *     HandoverRejectedException} if the request was refused (then nothing changed but {@link
     *     HandoverMetrics#rejected()}), or with {@link IllegalStateException} once closed
     */
    public CompletableFuture<HandoverResult> handover(List<VnodeMove> moves) {
        Objects.requireNonNull(moves, "moves: null (expected: a list of VnodeMove)");
        return submit(HandoverId.random(), epoch -> HandoverPlan.of(epoch, moves));
    }

    /** Requests a handover of {@code plan} under a random id; see {@link #handover(List)}. */
    public CompletableFuture<HandoverResult> handover(HandoverPlan plan) {
        return handover(HandoverId.random(), plan);
    }

    /**
     * Requests a handover of {@code plan} under a caller-chosen id, e.g. one a REST client polls
     * with {@link #status(HandoverId)}; an id already used is refused. See {@link #handover(List)}.
     */
    public CompletableFuture<HandoverResult> handover(HandoverId id, HandoverPlan plan) {
        Objects.requireNonNull(id, "id: null (expected: a HandoverId)");
        Objects.requireNonNull(plan, "plan: null (expected: a HandoverPlan)");
        return submit(id, epoch -> plan);
    }

    /**
     * Checks {@code plan} against the table a request would be validated against now.
     *
     * @throws InvalidHandoverException listing every problem
     */
    public void validate(HandoverPlan plan) {
        Objects.requireNonNull(plan, "plan: null (expected: a HandoverPlan)");
        RoutingTable basis;
        synchronized (lock) {
            basis = driver.tableAfterQueued();
        }
        basis.validate(plan);
    }

    private CompletableFuture<HandoverResult> submit(
            HandoverId id, LongFunction<HandoverPlan> planForEpoch) {
        CompletableFuture<HandoverResult> future = new CompletableFuture<>();
        RuntimeException refusal;
        synchronized (lock) {
            refusal = driver.admit(id, planForEpoch, future);
        }
        actions.runPending();
        return refusal == null ? future : CompletableFuture.failedFuture(refusal);
    }

    // ---------------------------------------------------------------- protocol input

    /**
     * A router switched to the new epoch, emitted its markers and acknowledged the command.
     *
     * @throws IllegalArgumentException if there is no such router subtask
     */
    public void onRouterAck(HandoverId id, int routerSubtask) {
        synchronized (lock) {
            driver.onRouterAck(id, routerSubtask);
        }
        actions.runPending();
    }

    /**
     * An origin received markers from every router and shipped {@code vnodes}: all of its outgoing
     * vnodes, some of them (report the rest later), or none yet (it is aligned). The manager
     * forwards the vnodes it had not seen to their targets, one port call per target.
     *
     * @throws IllegalArgumentException if the report contradicts the running handover's plan;
     *     nothing is recorded then
     */
    public void onOriginShipped(HandoverId id, int originSubtask, List<ShippedVnode> vnodes) {
        Objects.requireNonNull(vnodes, "vnodes: null (expected: a list, maybe empty)");
        synchronized (lock) {
            driver.onOriginShipped(id, originSubtask, vnodes);
        }
        actions.runPending();
    }

    /**
     * A target installed {@code vnodes} and serves them.
     *
     * @throws IllegalArgumentException if a vnode does not move to that target; nothing is recorded
     *     then
     */
    public void onTargetInstalled(HandoverId id, int targetSubtask, Set<Integer> vnodes) {
        Objects.requireNonNull(vnodes, "vnodes: null (expected: a set, maybe empty)");
        synchronized (lock) {
            driver.onTargetInstalled(id, targetSubtask, vnodes);
        }
        actions.runPending();
    }

    // ---------------------------------------------------------------- failures and checkpoints

    /**
     * The job failed (e.g. a subtask crashed): fails the running and queued handovers, each with
     * {@code failedIn} = the phase it was in. The table stays as it is until {@link #resetTo}.
     */
    public void onJobFailure(Throwable cause) {
        Objects.requireNonNull(cause, "cause: null (expected: the job's failure)");
        synchronized (lock) {
            driver.onJobFailure(cause);
        }
        actions.runPending();
    }

    /**
     * Flink restored a checkpoint: {@code restored} replaces the table (it may have a lower epoch),
     * a running or queued handover fails, and checkpoints in flight are forgotten (their
     * notifications belong to the failed execution). Nothing is in flight afterwards.
     *
     * @throws IllegalArgumentException if {@code restored} has another vnode layout
     * @throws IllegalStateException if the manager is closed
     */
    public void resetTo(RoutingTable restored) {
        Objects.requireNonNull(restored, "restored: null (expected: a RoutingTable)");
        synchronized (lock) {
            driver.resetTo(restored);
        }
        actions.runPending();
    }

    /**
     * The job is failing or restarting (or has not started all subtasks yet): fails the running and
     * queued handovers and refuses new requests with a retryable {@link HandoverRejectedException}
     * naming {@code reason}, until {@link #resume}. Idempotent.
     */
    public void suspend(String reason) {
        Objects.requireNonNull(reason, "reason: null (expected: why handovers are refused)");
        synchronized (lock) {
            driver.suspend(reason);
        }
        actions.runPending();
    }

    /**
     * Every subtask runs and the routers route by {@code agreed}: the manager adopts that table and
     * accepts requests again.
     *
     * @throws IllegalArgumentException if {@code agreed} has another vnode layout
     */
    public void resume(RoutingTable agreed) {
        Objects.requireNonNull(agreed, "agreed: null (expected: the routers' RoutingTable)");
        synchronized (lock) {
            driver.resume(agreed);
        }
        actions.runPending();
    }

    /**
     * The input of router {@code routerSubtask} ended: new requests are refused, queued ones fail,
     * and the running handover counts the router's end as its acknowledgement (the gates count it
     * as the router's marker). If every router ended without switching, the running handover fails
     * and nothing changes.
     */
    public void routerInputEnded(int routerSubtask) {
        synchronized (lock) {
            driver.routerInputEnded(routerSubtask);
        }
        actions.runPending();
    }

    /** Why requests are refused now, or empty when the manager accepts them. */
    public Optional<String> suspension() {
        synchronized (lock) {
            return driver.suspension();
        }
    }

    /**
     * Flink wants to checkpoint the operator: runs {@code proceed} now if no handover is running,
     * else when it ends (completed or failed). From then until {@link #checkpointEnded} with the
     * same id no handover starts; requests are queued, not rejected. If the checkpoint ends while
     * still deferred, {@code proceed} never runs.
     *
     * @throws IllegalArgumentException if the checkpoint was already announced and has not ended
     */
    public void beforeCheckpoint(long checkpointId, Runnable proceed) {
        Objects.requireNonNull(proceed, "proceed: null (expected: a Runnable)");
        synchronized (lock) {
            driver.beforeCheckpoint(checkpointId, proceed);
        }
        actions.runPending();
    }

    /**
     * The checkpoint no longer excludes handovers: every subtask will see a handover's commands
     * only after it took the checkpoint (Flink's coordinator gateways guarantee this once the
     * coordinators completed their part). Starts a queued handover if no other checkpoint is in
     * flight. Unknown ids are ignored, and so is a later {@link #checkpointEnded} for the same id.
     */
    public void checkpointTaken(long checkpointId) {
        checkpointEnded(checkpointId);
    }

    /**
     * A checkpoint completed or was aborted; starts a queued handover if no other checkpoint is in
     * flight. Unknown ids are ignored.
     */
    public void checkpointEnded(long checkpointId) {
        synchronized (lock) {
            driver.checkpointEnded(checkpointId);
        }
        actions.runPending();
    }

    /**
     * Fails the running and queued handovers with a "manager closed" cause, cancels their timeouts
     * and lets deferred checkpoints proceed. Idempotent; afterwards requests are refused, reports
     * ignored and checkpoints proceed at once. Does not shut the timer down.
     */
    @Override
    public void close() {
        synchronized (lock) {
            driver.close();
        }
        actions.runPending();
    }

    // ---------------------------------------------------------------- queries

    /** Returns the routing table in force: the last completed handover's, or the restored one. */
    public RoutingTable routingTable() {
        synchronized (lock) {
            return driver.table();
        }
    }

    /** Returns the running handover, else the next queued one, else empty. */
    public Optional<HandoverStatus> currentHandover() {
        synchronized (lock) {
            return driver.currentHandover();
        }
    }

    /** Returns the status of {@code id} while it is running or queued, else empty. */
    public Optional<HandoverStatus> status(HandoverId id) {
        Objects.requireNonNull(id, "id: null (expected: a HandoverId)");
        synchronized (lock) {
            return driver.status(id);
        }
    }

    /** Returns how {@code id} ended, if it is among the last {@code resultHistorySize} to end. */
    public Optional<HandoverResult> result(HandoverId id) {
        Objects.requireNonNull(id, "id: null (expected: a HandoverId)");
        synchronized (lock) {
            return driver.result(id);
        }
    }

    /** Returns a consistent snapshot of the counters and gauges. */
    public HandoverMetrics metrics() {
        synchronized (lock) {
            return driver.metrics();
        }
    }

    /** Returns the operator's name. */
    public String operatorName() {
        return operatorName;
    }

    @Override
    public String toString() {
        synchronized (lock) {
            return "HandoverManager{operator='" + operatorName + "', " + driver + "}";
        }
    }

    // ---------------------------------------------------------------- effects

    private void onTimeout(HandoverId id) {
        synchronized (lock) {
            driver.onTimeout(id);
        }
        actions.runPending();
    }

    /** Runs a port call; if it throws, the running handover cannot go on. */
    private void send(HandoverId id, String what, Runnable call) {
        try {
            call.run();
        } catch (RuntimeException e) {
            synchronized (lock) {
                driver.onSendFailed(id, what, e);
            }
            // The caller is running the pending actions and picks up the new ones.
        }
    }

    /** Turns the driver's decisions into actions run after the lock is released. */
    private final class QueuedEffects implements HandoverEffects {

        @Override
        public void sendToRouters(HandoverCommand command) {
            HandoverId id = command.handoverId();
            actions.add(
                    () ->
                            send(
                                    id,
                                    "sending the command to the routers",
                                    () -> port.sendToRouters(command)));
        }

        @Override
        public void sendToTarget(int targetSubtask, HandoverId id, List<ShippedVnode> vnodes) {
            actions.add(
                    () ->
                            send(
                                    id,
                                    "forwarding vnodes to target " + targetSubtask,
                                    () -> port.sendToTarget(targetSubtask, id, vnodes)));
        }

        @Override
        public void failJob(HandoverFailedException cause) {
            actions.add(() -> port.failJob(cause));
        }

        @Override
        public void complete(CompletableFuture<HandoverResult> future, HandoverResult result) {
            actions.add(() -> future.complete(result));
        }

        @Override
        public void proceed(Runnable proceed) {
            actions.add(proceed);
        }

        @Override
        public ScheduledFuture<?> scheduleTimeout(HandoverId id, long timeoutMillis) {
            try {
                // Scheduling never runs the task inline, so doing it under the lock is safe.
                return timer.schedule(() -> onTimeout(id), timeoutMillis, TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException e) {
                LOG.warn(
                        "Operator '{}': the timer refused the timeout of handover {}, which will"
                                + " have none",
                        operatorName,
                        id,
                        e);
                return null;
            }
        }
    }
}
