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

import io.rhino.core.handover.HandoverId;
import io.rhino.flink.handover.StateTransfer;
import io.rhino.flink.state.VnodeKeyedStateBackend;
import io.rhino.flink.state.VnodeKeyedStateBackend.PreparedVnode;
import io.rhino.handover.ShippedVnode;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionService;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntUnaryOperator;
import org.apache.flink.util.concurrent.ExecutorThreadFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a gate's side of moving vnodes on a few threads of its own, several vnodes at once: the
 * origin's shipments (a RocksDB checkpoint per vnode, and for a transfer between TaskManagers the
 * send of what the target lacks) and the target's opening of the incoming RocksDB instances (links
 * or downloads, Flink's restore, RocksDB's open). Each mostly waits for the disk (syncs, file
 * opens, manifest writes) or a peer, so a few threads shorten a handover of many vnodes even on few
 * cores. Each vnode's backend is touched by one thread at a time: the task thread waits for the
 * shipments, and the instances being opened are not part of the backend until the task thread
 * adopts them (meanwhile it goes on with its other vnodes). Instances still opening when the gate
 * closes are dropped once open.
 */
final class VnodeTransfers {

    private static final Logger LOG = LoggerFactory.getLogger(VnodeTransfers.class);
    private static final long STOP_WAIT_SECONDS = 30;

    private final String name;
    private final int threads;
    private final List<CompletableFuture<List<PreparedVnode>>> opening = new ArrayList<>();
    private ThreadPoolExecutor pool;

    /**
     * @param name names the threads and the log lines (operator and subtask)
     * @param threads how many vnodes ship or open at once
     */
    VnodeTransfers(String name, int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be positive, got " + threads);
        }
        this.name = name;
        this.threads = threads;
    }

    /** Hears of each vnode's shipment on the task thread, as soon as that vnode is shipped. */
    @FunctionalInterface
    interface ShipmentListener {
        void shipped(int vnode, StateTransfer.Shipment shipment) throws Exception;
    }

    /**
     * Ships {@code vnodes} out of {@code backend} with {@code transfer}, several at once, and waits
     * for all of them; on the task thread, which must not touch these vnodes meanwhile. Each
     * shipment goes to {@code listener} on this thread as soon as it completes, in the order they
     * complete, so that its target can start opening it while the others still ship.
     *
     * @throws Exception a vnode's failure or the listener's (the other shipments are interrupted)
     */
    void ship(
            VnodeKeyedStateBackend<?> backend,
            List<Integer> vnodes,
            IntUnaryOperator targetOf,
            HandoverId handover,
            StateTransfer transfer,
            ShipmentListener listener)
            throws Exception {
        CompletionService<Shipped> completed = new ExecutorCompletionService<>(pool());
        List<Future<Shipped>> each = new ArrayList<>();
        for (int vnode : vnodes) {
            each.add(
                    completed.submit(
                            () ->
                                    new Shipped(
                                            vnode,
                                            transfer.ship(
                                                    backend,
                                                    vnode,
                                                    targetOf.applyAsInt(vnode),
                                                    handover))));
        }
        try {
            for (int i = 0; i < each.size(); i++) {
                Shipped shipped = completed.take().get();
                listener.shipped(shipped.vnode(), shipped.shipment());
            }
        } catch (ExecutionException e) {
            stopShipping(each);
            throw e.getCause() instanceof Exception cause ? cause : e;
        } catch (Exception e) {
            // cancelled task (interrupt: a stuck send or export stops too) or failed report
            stopShipping(each);
            throw e;
        }
    }

    private record Shipped(int vnode, StateTransfer.Shipment shipment) {}

    /**
     * Interrupts the shipments and waits a while for them to end: the backend may be disposed next,
     * which must not close a RocksDB instance under an export still running.
     */
    private void stopShipping(List<? extends Future<?>> shipments) {
        shipments.forEach(shipment -> shipment.cancel(true));
        ThreadPoolExecutor stopping = pool;
        pool = null;
        stopping.shutdown();
        boolean interrupted = Thread.interrupted();
        try {
            if (!stopping.awaitTermination(STOP_WAIT_SECONDS, TimeUnit.SECONDS)) {
                LOG.warn(
                        "{}: shipments still running {} s after they were stopped",
                        name,
                        STOP_WAIT_SECONDS);
            }
        } catch (InterruptedException e) {
            interrupted = true;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Opens {@code vnodes} into {@code backend} with {@code transfer}'s installs. Completes with
     * every opened instance, or fails with the first failure after dropping those that opened.
     */
    CompletableFuture<List<PreparedVnode>> open(
            VnodeKeyedStateBackend<?> backend, List<ShippedVnode> vnodes, StateTransfer transfer) {
        ThreadPoolExecutor threads = pool();
        List<CompletableFuture<Opened>> each = new ArrayList<>();
        for (ShippedVnode vnode : vnodes) {
            each.add(
                    CompletableFuture.supplyAsync(
                            () -> openOne(backend, vnode, transfer), threads));
        }
        CompletableFuture<List<PreparedVnode>> all =
                CompletableFuture.allOf(each.toArray(CompletableFuture[]::new))
                        .handle((ignored, failure) -> collect(each, failure));
        // the shipments' leftovers go once every vnode opened, not between the opens
        all.whenComplete((ignored, failure) -> deleteLeftovers(each, threads));
        opening.add(all);
        return all;
    }

    /** The open ended and its outcome reached the task thread. */
    void forget(CompletableFuture<List<PreparedVnode>> open) {
        opening.remove(open);
    }

    /** Drops what is still opening (once open) and stops the threads; the gate is closing. */
    void close() {
        for (CompletableFuture<List<PreparedVnode>> open : opening) {
            open.thenAccept(vnodes -> vnodes.forEach(PreparedVnode::discard));
        }
        opening.clear();
        if (pool != null) {
            pool.shutdown();
            pool = null;
        }
    }

    /** A vnode's opened instances and what its shipment left behind. */
    private record Opened(List<PreparedVnode> vnodes, StateTransfer.Leftovers leftovers) {}

    private Opened openOne(
            VnodeKeyedStateBackend<?> backend, ShippedVnode vnode, StateTransfer transfer) {
        long start = System.nanoTime();
        try {
            AtomicReference<StateTransfer.Leftovers> leftovers =
                    new AtomicReference<>(StateTransfer.Leftovers.none());
            List<PreparedVnode> opened =
                    backend.prepareInstalls(
                            target ->
                                    leftovers.set(
                                            transfer.install(
                                                    target, vnode.vnode(), vnode.payload())));
            LOG.debug(
                    "{} opened vnode {} in {} ms",
                    name,
                    vnode.vnode(),
                    (System.nanoTime() - start) / 1_000_000);
            return new Opened(opened, leftovers.get());
        } catch (Exception e) {
            throw new CompletionException(e);
        }
    }

    /** Every opened instance, or, if one vnode failed, none: those opened are dropped. */
    private static List<PreparedVnode> collect(
            List<CompletableFuture<Opened>> each, Throwable failure) {
        if (failure == null) {
            List<PreparedVnode> opened = new ArrayList<>();
            each.forEach(vnode -> opened.addAll(vnode.join().vnodes()));
            return opened;
        }
        for (CompletableFuture<Opened> vnode : each) {
            if (!vnode.isCompletedExceptionally()) {
                vnode.join().vnodes().forEach(PreparedVnode::discard);
            }
        }
        throw failure instanceof CompletionException completion
                ? completion
                : new CompletionException(failure);
    }

    /**
     * Deletes, on the transfer threads, what the installed vnodes' shipments left behind; inline
     * when the threads are gone (the gate closed meanwhile).
     */
    private void deleteLeftovers(List<CompletableFuture<Opened>> each, ThreadPoolExecutor threads) {
        for (CompletableFuture<Opened> vnode : each) {
            if (vnode.isCompletedExceptionally()) {
                continue;
            }
            StateTransfer.Leftovers leftovers = vnode.join().leftovers();
            Runnable delete =
                    () -> {
                        try {
                            leftovers.delete();
                        } catch (Exception e) {
                            LOG.warn(
                                    "{} could not delete what the shipment of an installed vnode"
                                            + " left behind: {}",
                                    name,
                                    e.toString());
                        }
                    };
            try {
                threads.execute(delete);
            } catch (RejectedExecutionException closed) {
                delete.run();
            }
        }
    }

    private ThreadPoolExecutor pool() {
        if (pool == null) {
            pool =
                    new ThreadPoolExecutor(
                            threads,
                            threads,
                            60,
                            TimeUnit.SECONDS,
                            new LinkedBlockingQueue<>(),
                            new ExecutorThreadFactory("rhino-handover-" + name));
            // handovers are rare: no idle threads between them
            pool.allowCoreThreadTimeOut(true);
        }
        return pool;
    }
}
