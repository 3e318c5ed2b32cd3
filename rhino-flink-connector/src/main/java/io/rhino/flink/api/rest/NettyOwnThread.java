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

package io.rhino.flink.api.rest;

import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * Runs Netty work that would otherwise run on the caller's thread (a bootstrap's bind, a group's
 * shutdown) on a short-lived thread of Netty's own. Netty keeps per-thread caches (handler masks,
 * charset encoders) in its thread locals; on the JobManager's RPC threads they would outlive the
 * job, and with Rhino in the job jar they would keep the job's class loader alive. A Netty thread
 * drops them when it ends.
 */
final class NettyOwnThread {

    private NettyOwnThread() {}

    /** Runs {@code work} there and returns its result; what it throws is thrown here. */
    static <T> T call(String name, Supplier<T> work) {
        AtomicReference<T> result = new AtomicReference<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread thread =
                new DefaultThreadFactory(name, true)
                        .newThread(
                                () -> {
                                    try {
                                        result.set(work.get());
                                    } catch (Throwable t) {
                                        failure.set(t);
                                    }
                                });
        thread.start();
        joinUninterruptibly(thread);
        Throwable t = failure.get();
        if (t instanceof RuntimeException e) {
            throw e;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return result.get();
    }

    static void run(String name, Runnable work) {
        call(
                name,
                () -> {
                    work.run();
                    return null;
                });
    }

    /** The work (a bind, a shutdown) is short and must finish: waits, then re-interrupts. */
    private static void joinUninterruptibly(Thread thread) {
        boolean interrupted = false;
        while (true) {
            try {
                thread.join();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
