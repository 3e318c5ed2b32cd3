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
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.annotation.Nullable;
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
     * A vnode to restore, and where its state comes from: {@code handles} is called just before the
     * vnode's open starts, on the thread that opens it, several vnodes at once (a replica's may
     * wait for its fetch, or read every file to check it), so it must be safe to call concurrently.
     * If opening from them fails and {@code fallback} is given (the checkpoint storage's handles
     * behind a task-local copy), the vnode opens from those instead, as Flink falls back from a
     * task-local alternative to the remote one: a damaged local copy must not fail every restore.
     */
    record Planned(
            int vnode,
            SupplierWithException<Collection<KeyedStateHandle>, Exception> handles,
            @Nullable Collection<KeyedStateHandle> fallback) {

        Planned(int vnode, SupplierWithException<Collection<KeyedStateHandle>, Exception> handles) {
            this(vnode, handles, null);
        }
    }

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

    /**
     * Installs {@code vnodes} into {@code backend}, in their order; on the task thread. Returns the
     * vnodes that opened from their fallback. If it fails (or the task is cancelled), the vnodes
     * opening are dropped and those installed so far stay in {@code backend}, which the caller
     * disposes.
     */
    Set<Integer> restore(VnodeKeyedStateBackend<?> backend, List<Planned> vnodes) throws Exception {
        Set<Integer> fellBack = ConcurrentHashMap.newKeySet();
        if (vnodes.isEmpty()) {
            return fellBack; // a standby subtask
        }
        long start = System.nanoTime();
        int atOnce = Math.min(threads, vnodes.size());
        if (atOnce == 1) {
            for (Planned planned : vnodes) {
                Collection<KeyedStateHandle> handles = planned.handles().get();
                try {
                    backend.installVnode(planned.vnode(), handles);
                } catch (Exception e) {
                    backend.installVnode(planned.vnode(), fallbackAfter(planned, e, fellBack));
                }
            }
        } else {
            restoreConcurrently(backend, vnodes, atOnce, fellBack);
        }
        LOG.info(
                "{} restored {} vnodes in {} ms, {} at a time",
                name,
                vnodes.size(),
                (System.nanoTime() - start) / 1_000_000,
                atOnce);
        return fellBack;
    }

    /** The fallback of a vnode whose open failed with {@code failure}; rethrows without one. */
    private Collection<KeyedStateHandle> fallbackAfter(
            Planned planned, Exception failure, Set<Integer> fellBack) throws Exception {
        if (planned.fallback() == null) {
            throw failure;
        }
        LOG.warn(
                "{}: vnode {} did not open from its task-local copy; it restores from the"
                        + " checkpoint storage instead",
                name,
                planned.vnode(),
                failure);
        fellBack.add(planned.vnode());
        return planned.fallback();
    }

    private void restoreConcurrently(
            VnodeKeyedStateBackend<?> backend,
            List<Planned> vnodes,
            int atOnce,
            Set<Integer> fellBack)
            throws Exception {
        ExecutorService pool =
                Executors.newFixedThreadPool(
                        atOnce, new ExecutorThreadFactory("rhino-restore-" + name));
        AtomicBoolean abandoned = new AtomicBoolean();
        // threads waiting for a vnode's handles (a fetch from a peer): a failed or cancelled
        // restore interrupts them, as a cancel interrupted the task thread that used to wait
        Set<Thread> resolving = ConcurrentHashMap.newKeySet();
        // completes exceptionally with the first vnode's failure, so the task thread stops waiting
        // for a slow vnode when a later one has already failed
        CompletableFuture<Void> firstFailure = new CompletableFuture<>();
        List<CompletableFuture<PreparedVnode>> opening = new ArrayList<>();
        int adopted = 0;
        try {
            for (Planned planned : vnodes) {
                // the handles too: checking a replica's files reads them all, so vnodes check at
                // once
                CompletableFuture<PreparedVnode> open =
                        CompletableFuture.supplyAsync(
                                () -> open(backend, planned, abandoned, resolving, fellBack), pool);
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
            resolving.forEach(Thread::interrupt);
            dropOpening(opening.subList(adopted, opening.size()));
            throw rootOf(failure);
        } finally {
            pool.shutdown();
        }
    }

    private PreparedVnode open(
            VnodeKeyedStateBackend<?> backend,
            Planned planned,
            AtomicBoolean abandoned,
            Set<Thread> resolving,
            Set<Integer> fellBack) {
        int vnode = planned.vnode();
        long start = System.nanoTime();
        try {
            Collection<KeyedStateHandle> handles;
            resolving.add(Thread.currentThread());
            try {
                // after registering: a failure that came first is seen here, a later one interrupts
                if (abandoned.get()) {
                    throw new CancellationException("the restore of another vnode failed");
                }
                handles = planned.handles().get();
            } finally {
                resolving.remove(Thread.currentThread());
                Thread.interrupted(); // an interrupt meant for the wait, not for the open
            }
            if (abandoned.get()) {
                throw new CancellationException("the restore of another vnode failed");
            }
            PreparedVnode prepared;
            try {
                prepared = openFrom(backend, vnode, handles);
            } catch (Exception e) {
                prepared = openFrom(backend, vnode, fallbackAfter(planned, e, fellBack));
            }
            LOG.debug(
                    "{} opened vnode {} in {} ms",
                    name,
                    vnode,
                    (System.nanoTime() - start) / 1_000_000);
            return prepared;
        } catch (Exception e) {
            throw new CompletionException(e);
        }
    }

    private static PreparedVnode openFrom(
            VnodeKeyedStateBackend<?> backend, int vnode, Collection<KeyedStateHandle> handles)
            throws Exception {
        return backend.prepareInstalls(target -> target.installVnode(vnode, handles)).get(0);
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
