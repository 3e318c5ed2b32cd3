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

package io.rhino.flink.state;

import io.rhino.flink.state.VnodeKeyedStateBackend.PreparedVnode;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.util.concurrent.ExecutorThreadFactory;
import org.apache.flink.util.function.SupplierWithException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Restores a subtask's vnodes several at once: each vnode's RocksDB instance (download or links,
 * Flink's restore, RocksDB's open) opens on a thread of its own, and the task thread adopts them in
 * order. A subtask that lost its TaskManager downloads all its vnodes, one instance each; one after
 * the other, their downloads and opens add up, while they mostly wait for the disk or the network.
 *
 * <p>Safe off the task thread for the same reason as a handover's opens ({@link
 * VnodeKeyedStateBackend#prepareInstalls}): an instance is not part of the backend until the task
 * thread adopts it, and the task thread only waits meanwhile. If one vnode fails (or the task is
 * cancelled), the vnodes not started yet are not opened, those opening are waited for and dropped,
 * and the first failure is thrown; the caller disposes the backend with the vnodes already adopted.
 */
final class ParallelVnodeRestore {

    private static final Logger LOG = LoggerFactory.getLogger(ParallelVnodeRestore.class);

    /** How long a failed restore waits for the opens still running before it gives up on them. */
    static final long ABANDON_WAIT_MILLIS = 60_000;

    /**
     * A vnode to restore, and where its state comes from: {@code handles} is called on the task
     * thread just before the vnode's open starts (a replica's may wait for its fetch).
     */
    record Planned(
            int vnode, SupplierWithException<Collection<KeyedStateHandle>, Exception> handles) {}

    private final String name;
    private final int threads;

    /**
     * @param name names the threads and the log lines (operator and subtask)
     * @param threads how many vnodes open at once; 1 opens them on the task thread
     */
    ParallelVnodeRestore(String name, int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be positive, got " + threads);
        }
        this.name = name;
        this.threads = threads;
    }

    /** Installs {@code vnodes} into {@code backend}, in their order; on the task thread. */
    void restore(VnodeKeyedStateBackend<?> backend, List<Planned> vnodes) throws Exception {
        if (vnodes.isEmpty()) {
            return; // a standby subtask
        }
        long start = System.nanoTime();
        int atOnce = Math.min(threads, vnodes.size());
        if (atOnce == 1) {
            for (Planned planned : vnodes) {
                backend.installVnode(planned.vnode(), planned.handles().get());
            }
        } else {
            restoreConcurrently(backend, vnodes, atOnce);
        }
        LOG.info(
                "{} restored {} vnodes in {} ms, {} at a time",
                name,
                vnodes.size(),
                (System.nanoTime() - start) / 1_000_000,
                atOnce);
    }

    private void restoreConcurrently(
            VnodeKeyedStateBackend<?> backend, List<Planned> vnodes, int atOnce) throws Exception {
        ExecutorService pool =
                Executors.newFixedThreadPool(
                        atOnce, new ExecutorThreadFactory("rhino-restore-" + name));
        AtomicBoolean abandoned = new AtomicBoolean();
        // completes exceptionally with the first vnode's failure, so the task thread stops waiting
        // for a slow vnode when a later one has already failed
        CompletableFuture<Void> firstFailure = new CompletableFuture<>();
        List<CompletableFuture<PreparedVnode>> opening = new ArrayList<>();
        int adopted = 0;
        try {
            for (Planned planned : vnodes) {
                Collection<KeyedStateHandle> handles = planned.handles().get();
                CompletableFuture<PreparedVnode> open =
                        CompletableFuture.supplyAsync(
                                () -> open(backend, planned.vnode(), handles, abandoned), pool);
                open.whenComplete(
                        (ignored, failure) -> {
                            if (failure != null) {
                                firstFailure.completeExceptionally(failure);
                            }
                        });
                opening.add(open);
            }
            for (CompletableFuture<PreparedVnode> open : opening) {
                CompletableFuture.anyOf(open, firstFailure).get();
                PreparedVnode prepared = open.join();
                adopted++;
                backend.adoptVnode(prepared);
            }
        } catch (Throwable failure) {
            abandoned.set(true);
            dropOpening(opening.subList(adopted, opening.size()));
            throw rootOf(failure);
        } finally {
            pool.shutdown();
        }
    }

    private PreparedVnode open(
            VnodeKeyedStateBackend<?> backend,
            int vnode,
            Collection<KeyedStateHandle> handles,
            AtomicBoolean abandoned) {
        if (abandoned.get()) {
            throw new CancellationException("the restore of another vnode failed");
        }
        long start = System.nanoTime();
        try {
            List<PreparedVnode> prepared =
                    backend.prepareInstalls(target -> target.installVnode(vnode, handles));
            LOG.debug(
                    "{} opened vnode {} in {} ms",
                    name,
                    vnode,
                    (System.nanoTime() - start) / 1_000_000);
            return prepared.get(0);
        } catch (Exception e) {
            throw new CompletionException(e);
        }
    }

    /**
     * Waits for the opens still running (a while, whatever interrupts) and drops what they opened:
     * the backend is disposed next, which must not leave instances opening into it.
     */
    private void dropOpening(List<CompletableFuture<PreparedVnode>> opens) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ABANDON_WAIT_MILLIS);
        boolean interrupted = Thread.interrupted();
        for (CompletableFuture<PreparedVnode> open : opens) {
            while (true) {
                try {
                    open.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)
                            .discard();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException | CancellationException e) {
                    break; // opened nothing
                } catch (TimeoutException e) {
                    LOG.warn(
                            "{}: a vnode still opens {} ms after the restore failed; it is"
                                    + " dropped once open",
                            name,
                            ABANDON_WAIT_MILLIS);
                    open.thenAccept(PreparedVnode::discard);
                    break;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private static Exception rootOf(Throwable failure) {
        Throwable cause = failure;
        while ((cause instanceof ExecutionException || cause instanceof CompletionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (cause instanceof Exception exception) {
            return exception;
        }
        if (cause instanceof Error error) {
            throw error;
        }
        return new Exception(cause);
    }
}
