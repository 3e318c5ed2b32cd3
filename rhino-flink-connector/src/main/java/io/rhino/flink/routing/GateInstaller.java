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

package io.rhino.flink.routing;

import io.rhino.flink.events.InstallVnodesEvent;
import io.rhino.flink.events.TargetInstalledEvent;
import io.rhino.flink.handover.StateTransfer;
import io.rhino.flink.state.VnodeKeyedStateBackend;
import io.rhino.flink.state.VnodeKeyedStateBackend.PreparedVnode;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;
import org.apache.flink.api.common.operators.MailboxExecutor;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.execution.CancelTaskException;
import org.apache.flink.runtime.operators.coordination.OperatorEventGateway;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.util.ExceptionUtils;
import org.apache.flink.util.function.ThrowingConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The target's side of a handover: opens the shipped vnodes' instances off the task thread, then,
 * in the task's mailbox, adopts them, replays their held-back records and tells the coordinator.
 */
final class GateInstaller<T> {

    private static final Logger LOG = LoggerFactory.getLogger(GateInstaller.class);

    private final String operator;
    private final int subtask;
    private final Supplier<VnodeKeyedStateBackend<?>> backends;
    private final VnodeTransfers transfers;
    private final StateTransfer transfer;
    private final MailboxExecutor mailbox;
    private final ProcessingTimerWakeup timerWakeup;
    private final IncomingVnodeBuffer<T> incoming;
    private final ThrowingConsumer<StreamRecord<T>, Exception> replay;
    private final Counter spilledBytes;
    private final GateAlignment alignment;
    private final OperatorEventGateway coordinator;

    /**
     * @param mailbox runs the adoption on the task thread, at the priority of coordinator events
     * @param replay where the held-back records of installed vnodes go
     * @param spilledBytes counts the bytes of replayed records that had spilled to disk
     */
    GateInstaller(
            String operator,
            int subtask,
            Supplier<VnodeKeyedStateBackend<?>> backends,
            VnodeTransfers transfers,
            StateTransfer transfer,
            MailboxExecutor mailbox,
            ProcessingTimerWakeup timerWakeup,
            IncomingVnodeBuffer<T> incoming,
            ThrowingConsumer<StreamRecord<T>, Exception> replay,
            Counter spilledBytes,
            GateAlignment alignment,
            OperatorEventGateway coordinator) {
        this.operator = operator;
        this.subtask = subtask;
        this.backends = backends;
        this.transfers = transfers;
        this.transfer = transfer;
        this.mailbox = mailbox;
        this.timerWakeup = timerWakeup;
        this.incoming = incoming;
        this.replay = replay;
        this.spilledBytes = spilledBytes;
        this.alignment = alignment;
        this.coordinator = coordinator;
    }

    /**
     * Opens the incoming vnodes' instances on the handover threads while this task goes on with the
     * records of its other vnodes (those of the incoming ones wait in the buffer, and no checkpoint
     * starts before the handover ends), then adopts them in the mailbox.
     */
    void start(InstallVnodesEvent event) {
        LOG.debug("{} gate {} installs {}", operator, subtask, event);
        long start = System.nanoTime();
        VnodeKeyedStateBackend<?> backend = backends.get();
        CompletableFuture<List<PreparedVnode>> prepared =
                transfers.open(backend, event.vnodes(), transfer);
        prepared.whenComplete(
                (vnodes, failure) ->
                        mailbox.execute(
                                () -> finish(event, prepared, start),
                                "install vnodes of handover %s",
                                event.handoverId()));
    }

    private void finish(
            InstallVnodesEvent event, CompletableFuture<List<PreparedVnode>> prepared, long start) {
        transfers.forget(prepared);
        try {
            install(event, prepared.join(), start);
        } catch (Throwable e) {
            Throwable failure =
                    e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
            LOG.error("{} gate {} failed to install {}", operator, subtask, event, failure);
            // A CancelTaskException anywhere in the cause would make Flink treat this failure as
            // a cancellation and swallow it; the job must fail and roll back instead.
            Throwable cause =
                    ExceptionUtils.findThrowable(failure, CancelTaskException.class).isPresent()
                            ? new RuntimeException(ExceptionUtils.stringifyException(failure))
                            : failure;
            throw new IllegalStateException(
                    "Rhino gate of '"
                            + operator
                            + "' subtask "
                            + subtask
                            + " could not install vnodes of handover "
                            + event.handoverId(),
                    cause);
        }
    }

    private void install(InstallVnodesEvent event, List<PreparedVnode> prepared, long start)
            throws Exception {
        VnodeKeyedStateBackend<?> backend = backends.get();
        Set<Integer> vnodes = new TreeSet<>();
        // The installed vnodes bring their timers; the keyed operator's timer services must
        // wake up for processing-time ones earlier than what they wait for.
        try {
            timerWakeup.install(
                    () -> {
                        for (PreparedVnode vnode : prepared) {
                            backend.adoptVnode(vnode);
                            vnodes.add(vnode.vnode());
                        }
                    });
        } catch (Exception e) {
            for (PreparedVnode vnode : prepared) {
                if (!vnodes.contains(vnode.vnode())) {
                    vnode.discard();
                }
            }
            throw e;
        }
        long installMillis = (System.nanoTime() - start) / 1_000_000;
        LOG.info(
                "{} gate {} installed vnodes {} in {} ms",
                operator,
                subtask,
                vnodes,
                installMillis);
        long spilled = incoming.spilledBytes();
        int replayed = incoming.release(vnodes, replay);
        spilledBytes.inc(spilled);
        alignment.onInstalled(event.handoverId(), vnodes);
        LOG.debug(
                "{} gate {} installed {}, replayed {} ({} bytes had spilled to disk)",
                operator,
                subtask,
                vnodes,
                replayed,
                spilled);
        coordinator.sendEventToCoordinator(
                new TargetInstalledEvent(event.handoverId(), vnodes, installMillis, replayed));
    }
}
