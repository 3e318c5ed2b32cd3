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

package io.rhino.flink.replication;

import io.rhino.replication.PeerAddress;
import io.rhino.replication.ReplicationService;
import io.rhino.replication.store.ReplicaStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import org.apache.flink.runtime.state.IncrementalRemoteKeyedStateHandle;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fetches the files a vnode's replica listing names from the first peer that holds them whole, into
 * a scratch area of this TaskManager's store, ahead of time or when asked, and deletes them when
 * the restore ends.
 */
final class PeerReplicaFetcher {

    private static final Logger LOG = LoggerFactory.getLogger(PeerReplicaFetcher.class);

    /** A replica fetched from a holder: its files by RocksDB file name, as listed, and bytes. */
    record Fetched(Map<String, Path> files, List<String> listed, long bytes) {}

    private final ReplicaStore store;
    private final ReplicationService service; // null: this store only
    private final List<PeerAddress> holders;
    private final String operatorPrefix;

    // under the operator's prefix: a fetch stays within the scope its peers authenticate in
    private final String fetchDirectory;
    // vnodes restore on several threads at once
    private final Map<Integer, CompletableFuture<Optional<Fetched>>> prefetched =
            new ConcurrentHashMap<>();

    PeerReplicaFetcher(
            ReplicaStore store,
            ReplicationService service,
            List<PeerAddress> holders,
            String operatorPrefix) {
        this.store = store;
        this.service = service;
        this.holders = holders;
        this.operatorPrefix = operatorPrefix;
        this.fetchDirectory = operatorPrefix + "/_fetched/" + UUID.randomUUID();
    }

    /**
     * Starts fetching the replicas of those of {@code handlesByVnode}'s vnodes that this
     * TaskManager does not hold, in the order given, {@code concurrentVnodes} vnodes at a time.
     */
    void prefetch(Map<Integer, List<KeyedStateHandle>> handlesByVnode, int concurrentVnodes) {
        if (concurrentVnodes < 1) {
            throw new IllegalArgumentException(
                    "At least one vnode must be fetched at a time, got " + concurrentVnodes);
        }
        if (holders.isEmpty()) {
            return;
        }
        List<CompletableFuture<?>> lanes = new ArrayList<>();
        int queued = 0;
        for (Map.Entry<Integer, List<KeyedStateHandle>> entry : handlesByVnode.entrySet()) {
            int vnode = entry.getKey();
            List<KeyedStateHandle> handles = entry.getValue();
            if (prefetched.containsKey(vnode)
                    || handles.size() != 1
                    || !(handles.get(0) instanceof IncrementalRemoteKeyedStateHandle remote)) {
                continue;
            }
            String vnodeDirectory = ReplicaListing.vnodeDirectory(operatorPrefix, vnode);
            if (store.file(ReplicaListing.path(vnodeDirectory, remote.getCheckpointId()))
                    .isPresent()) {
                continue; // held here: linked, not fetched
            }
            int lane = queued++ % concurrentVnodes;
            CompletableFuture<?> previous =
                    lane < lanes.size() ? lanes.get(lane) : CompletableFuture.completedFuture(null);
            CompletableFuture<Optional<Fetched>> fetched =
                    previous.handle((ignored, failure) -> null)
                            .thenCompose(ignored -> fetchFrom(0, vnode, vnodeDirectory, remote));
            prefetched.put(vnode, fetched);
            if (lane < lanes.size()) {
                lanes.set(lane, fetched);
            } else {
                lanes.add(fetched);
            }
        }
    }

    /**
     * The fetched replica of the restored checkpoint, from the first holder that has it whole:
     * prefetched, or fetched now. Empty if none has.
     */
    Optional<Fetched> fetch(
            int vnode, String vnodeDirectory, IncrementalRemoteKeyedStateHandle remote) {
        CompletableFuture<Optional<Fetched>> fetch =
                prefetched.computeIfAbsent(
                        vnode, absent -> fetchFrom(0, vnode, vnodeDirectory, remote));
        try {
            return fetch.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        } catch (ExecutionException e) {
            LOG.info("Vnode {}: no replica fetched: {}", vnode, e.getCause().toString());
            return Optional.empty();
        }
    }

    /**
     * Fetches the replica from the holder at {@code index} or, if it has none whole, from the next
     * ones: its listing, then every file it names, at once.
     */
    private CompletableFuture<Optional<Fetched>> fetchFrom(
            int index, int vnode, String vnodeDirectory, IncrementalRemoteKeyedStateHandle remote) {
        if (index >= holders.size()) {
            return CompletableFuture.completedFuture(Optional.empty());
        }
        PeerAddress holder = holders.get(index);
        long checkpoint = remote.getCheckpointId();
        String target = fetchDirectory + "/vnode-" + vnode + "-from-" + index;
        long started = System.nanoTime();
        return service.fetch(
                        holder,
                        ReplicaListing.path(vnodeDirectory, checkpoint),
                        target + "/listing")
                .thenCompose(
                        ignored -> {
                            List<String> listed = readListing(target + "/listing").files();
                            List<CompletableFuture<Void>> transfers = new ArrayList<>();
                            for (String file : listed) {
                                transfers.add(
                                        service.fetch(
                                                holder,
                                                vnodeDirectory + "/" + file,
                                                target + "/" + file));
                            }
                            return CompletableFuture.allOf(
                                            transfers.toArray(CompletableFuture[]::new))
                                    .thenApply(done -> fetched(target, listed));
                        })
                .thenApply(
                        fetched -> {
                            LOG.info(
                                    "Vnode {}: fetched the replica of checkpoint {} from {} ({}"
                                            + " files, {} bytes, {} ms)",
                                    vnode,
                                    checkpoint,
                                    holder,
                                    fetched.files().size(),
                                    fetched.bytes(),
                                    (System.nanoTime() - started) / 1_000_000);
                            return Optional.of(fetched);
                        })
                .exceptionallyCompose(
                        failure -> {
                            Throwable cause =
                                    failure instanceof CompletionException
                                                    && failure.getCause() != null
                                            ? failure.getCause()
                                            : failure;
                            LOG.info(
                                    "Vnode {}: no replica of checkpoint {} from {}: {}",
                                    vnode,
                                    checkpoint,
                                    holder,
                                    cause.getMessage());
                            return fetchFrom(index + 1, vnode, vnodeDirectory, remote);
                        });
    }

    private ReplicaListing readListing(String path) {
        try {
            return ReplicaListing.read(store.file(path).orElseThrow());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Fetched fetched(String target, List<String> listed) {
        Map<String, Path> files = new HashMap<>();
        long bytes = 0;
        try {
            for (String file : listed) {
                Path path = store.file(target + "/" + file).orElseThrow();
                files.put(ReplicaListing.fileName(file), path);
                bytes += Files.size(path);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new Fetched(files, listed, bytes);
    }

    /** Deletes the fetched copies, and what prefetches still running write once they end. */
    void close() {
        if (service == null) {
            return;
        }
        deleteFetched();
        // a restore that failed may leave prefetches running: delete what they write, too
        CompletableFuture<?>[] running =
                prefetched.values().stream()
                        .filter(fetch -> !fetch.isDone())
                        .toArray(CompletableFuture[]::new);
        if (running.length > 0) {
            CompletableFuture.allOf(running).whenComplete((ended, failure) -> deleteFetched());
        }
    }

    private void deleteFetched() {
        try {
            store.deleteTree(fetchDirectory);
        } catch (IOException e) {
            LOG.warn("Could not delete fetched replicas {}: {}", fetchDirectory, e.toString());
        }
    }
}
