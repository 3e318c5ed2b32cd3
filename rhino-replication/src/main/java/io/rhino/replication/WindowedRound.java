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

package io.rhino.replication;

import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * A replication round sent a few files at a time from the caller's thread, which reads each file's
 * checksum as it starts it. Files then complete one after another instead of all near the end, so a
 * round that times out or fails leaves its first files stored along the whole chain, and says
 * which: a vnode whose new files take longer than one round may take then gets further with each
 * round instead of starting again every time. Each round keeps only its own few files in flight, so
 * the rounds of several subtasks sharing a connection share it file by file.
 *
 * <p>Like {@link RoundWait}, a caller that stops waiting (timeout or interrupt) cancels the files
 * in flight. After the first failed file no further file starts; the round fails once the files in
 * flight ended.
 */
public final class WindowedRound {

    private WindowedRound() {}

    private record Ended(String path, Throwable failure) {}

    /**
     * Replicates {@code files} (relative path to local file) down {@code chain}, at most {@code
     * filesAtOnce} at a time, within {@code timeoutMillis} for the whole round.
     *
     * @param stored told, on a Netty thread, of each file every member stored, also when the round
     *     fails later
     */
    public static void replicate(
            ReplicationService service,
            Map<String, Path> files,
            List<PeerAddress> chain,
            int filesAtOnce,
            long timeoutMillis,
            Consumer<String> stored)
            throws InterruptedException, ExecutionException, TimeoutException {
        if (filesAtOnce < 1) {
            throw new IllegalArgumentException("filesAtOnce must be at least 1: " + filesAtOnce);
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        Deque<Map.Entry<String, Path>> pending = new ArrayDeque<>(files.entrySet());
        Map<String, CompletableFuture<Void>> inFlight = new LinkedHashMap<>();
        BlockingQueue<Ended> ended = new LinkedBlockingQueue<>();
        List<Throwable> failures = new ArrayList<>();
        try {
            while (!inFlight.isEmpty() || (failures.isEmpty() && !pending.isEmpty())) {
                while (failures.isEmpty() && inFlight.size() < filesAtOnce && !pending.isEmpty()) {
                    Map.Entry<String, Path> next = pending.poll();
                    String path = next.getKey();
                    CompletableFuture<Void> file = service.replicate(next.getValue(), path, chain);
                    inFlight.put(path, file);
                    file.whenComplete(
                            (ok, failure) -> {
                                try {
                                    if (failure == null) {
                                        stored.accept(path);
                                    }
                                } finally {
                                    // the caller waits for this, whatever the listener did
                                    ended.add(new Ended(path, failure));
                                }
                            });
                }
                long left = deadline - System.nanoTime();
                Ended done = left > 0 ? ended.poll(left, TimeUnit.NANOSECONDS) : null;
                if (done == null) {
                    throw new TimeoutException(
                            "replicating "
                                    + files.size()
                                    + " files to "
                                    + chain
                                    + " took longer than "
                                    + timeoutMillis
                                    + " ms ("
                                    + pending.size()
                                    + " not started, "
                                    + inFlight.size()
                                    + " in flight)");
                }
                inFlight.remove(done.path());
                if (done.failure() != null) {
                    failures.add(done.failure());
                }
            }
        } catch (InterruptedException | TimeoutException e) {
            inFlight.values().forEach(file -> file.cancel(false));
            throw e;
        }
        if (!failures.isEmpty()) {
            ExecutionException failed = new ExecutionException(failures.get(0));
            failures.subList(1, failures.size()).forEach(failed::addSuppressed);
            throw failed;
        }
    }
}
