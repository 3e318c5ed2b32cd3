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

import io.rhino.flink.state.FileLinks;
import io.rhino.flink.state.RestoreFromReplicas;
import io.rhino.flink.state.TaskReplicas;
import io.rhino.replication.PeerAddress;
import io.rhino.replication.ReplicationService;
import io.rhino.replication.store.ReplicaStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.apache.flink.runtime.execution.Environment;
import org.apache.flink.runtime.state.DirectoryStateHandle;
import org.apache.flink.runtime.state.IncrementalKeyedStateHandle.HandleAndLocalPath;
import org.apache.flink.runtime.state.IncrementalLocalKeyedStateHandle;
import org.apache.flink.runtime.state.IncrementalRemoteKeyedStateHandle;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.util.FileUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Restores vnodes from the replicas on this TaskManager instead of the checkpoint storage: the
 * failover of the Rhino design, where a subtask that lands on a member of its old replica chain
 * finds its state on the local disk.
 *
 * <p>A vnode is restored from its replica when this TaskManager holds the replica's listing of the
 * very checkpoint Flink restores, every file it names, and the same SST files (by name and size) as
 * Flink's handle. A subtask that landed elsewhere fetches the replica from a service that holds it
 * (the checkpoint's manifest names them), verified at both ends, into a scratch area of this
 * TaskManager's store: a copy between peers instead of a download from the checkpoint storage. The
 * replica's files are linked into a RocksDB directory described by a local handle with the remote
 * handle's identity and shared files, so the next incremental checkpoint still reuses the files
 * already in the checkpoint storage. Flink's small metadata file is read from the checkpoint
 * storage as before. Anything else falls back to Flink's handle.
 */
public final class ReplicaRestore implements RestoreFromReplicas {

    private static final Logger LOG = LoggerFactory.getLogger(ReplicaRestore.class);

    /**
     * Vnodes prefetched at once. One: every file of a vnode is fetched at once already, so more
     * vnodes at a time only delay the first one the subtask opens (measured with {@code
     * ReplicaFetchBenchmark}), and each file must arrive within the replication timeout.
     */
    static final int CONCURRENT_FETCHES = 1;

    private final ReplicaStore store;
    private final ReplicationService service; // null: this store only
    private final List<PeerAddress> holders;
    private final String operatorPrefix;
    private final Path workDirectory;

    // under the operator's prefix: a fetch stays within the scope its peers authenticate in
    private final String fetchDirectory;
    private final List<Path> assembled = new ArrayList<>();
    private final Map<Integer, Seed> seeds = new HashMap<>();
    private final Map<Integer, CompletableFuture<Optional<Fetched>>> prefetched = new HashMap<>();
    private int restoredVnodes;
    private long linkedBytes;
    private int fetchedVnodes;
    private long fetchedBytes;

    private ReplicaRestore(
            ReplicaStore store,
            ReplicationService service,
            List<PeerAddress> holders,
            String operatorPrefix,
            Path workDirectory) {
        this.store = store;
        this.service = service;
        this.holders = holders;
        this.operatorPrefix = operatorPrefix;
        this.workDirectory = workDirectory;
        this.fetchDirectory = operatorPrefix + "/_fetched/" + UUID.randomUUID();
    }

    /**
     * Restores from {@code store} only, the replicas of {@code operatorPrefix}, assembling RocksDB
     * directories under {@code workDirectory}.
     */
    public static ReplicaRestore from(
            ReplicaStore store, String operatorPrefix, Path workDirectory) {
        return new ReplicaRestore(store, null, List.of(), operatorPrefix, workDirectory);
    }

    /**
     * Restores from {@code service}'s store, or else from the first of {@code holders} ("host:port"
     * of replication services, in the order the checkpoint names them) that has the replica.
     */
    public static ReplicaRestore from(
            ReplicationService service,
            List<String> holders,
            String operatorPrefix,
            Path workDirectory) {
        List<PeerAddress> peers = new ArrayList<>();
        for (String holder : holders) {
            try {
                PeerAddress peer = PeerAddress.parse(holder);
                if (!peer.equals(service.address())) {
                    peers.add(peer);
                }
            } catch (IllegalArgumentException e) {
                LOG.warn("Ignoring replica holder '{}': {}", holder, e.getMessage());
            }
        }
        return new ReplicaRestore(
                service.store(), service, List.copyOf(peers), operatorPrefix, workDirectory);
    }

    /**
     * The replicas the task of {@code env}, of the operator at {@code operatorPrefix}, may restore
     * from: its TaskManager's replication service, if that runs when the task restores (e.g.
     * retaining the replicas of this job's tasks before a failover), with the replicas it keeps or
     * fetches from their holders.
     */
    public static TaskReplicas forTask(Environment env, String operatorPrefix) {
        return (holders, workDirectory) ->
                TaskManagerReplication.serviceOf(TaskManagerReplication.taskManagerName(env))
                        .<RestoreFromReplicas>map(
                                service -> from(service, holders, operatorPrefix, workDirectory));
    }

    /**
     * The handles to restore {@code vnode} from: one local handle over its replica, or {@code
     * handles} if no usable replica is here.
     */
    @Override
    public List<KeyedStateHandle> handlesFor(int vnode, List<KeyedStateHandle> handles) {
        if (handles.size() != 1
                || !(handles.get(0) instanceof IncrementalRemoteKeyedStateHandle remote)) {
            return handles;
        }
        try {
            Optional<Map<String, Path>> replica = replicaOf(vnode, remote);
            if (replica.isEmpty()) {
                return handles;
            }
            Path db =
                    Files.createDirectories(
                            workDirectory.resolve(
                                    "restore-vnode-"
                                            + vnode
                                            + "-chk-"
                                            + remote.getCheckpointId()
                                            + "-"
                                            + System.nanoTime()));
            assembled.add(db);
            long bytes = 0;
            for (Map.Entry<String, Path> file : replica.get().entrySet()) {
                FileLinks.linkOrCopy(file.getValue(), db.resolve(file.getKey()));
                bytes += Files.size(file.getValue());
            }
            restoredVnodes++;
            linkedBytes += bytes;
            LOG.info(
                    "Vnode {} restores checkpoint {} from a replica ({} files, {} bytes linked,"
                            + " none downloaded from the checkpoint storage)",
                    vnode,
                    remote.getCheckpointId(),
                    replica.get().size(),
                    bytes);
            return List.of(
                    new IncrementalLocalKeyedStateHandle(
                            remote.getBackendIdentifier(),
                            remote.getCheckpointId(),
                            DirectoryStateHandle.forPathWithSize(db),
                            remote.getKeyGroupRange(),
                            remote.getMetaDataStateHandle(),
                            remote.getSharedState()));
        } catch (IOException e) {
            LOG.warn(
                    "Vnode {}: the replica of checkpoint {} on this TaskManager is unusable ({});"
                            + " restoring from the checkpoint storage",
                    vnode,
                    remote.getCheckpointId(),
                    e.toString());
            return handles;
        }
    }

    /** The seed of a vnode restored from a replica, for its replication to skip those files. */
    @Override
    public Optional<Seed> seedOf(int vnode) {
        return Optional.ofNullable(seeds.get(vnode));
    }

    /** A replica fetched from a holder: its files by RocksDB file name, as listed, and bytes. */
    private record Fetched(Map<String, Path> files, List<String> listed, long bytes) {}

    /** Remembers the listed SST files of the one instance directory they share, if they do. */
    private void rememberSeed(int vnode, List<String> listed) {
        Set<String> directories = new HashSet<>();
        Set<String> sstFiles = new HashSet<>();
        for (String file : listed) {
            int slash = file.lastIndexOf('/');
            if (file.endsWith(".sst") && slash > 0) {
                directories.add(file.substring(0, slash));
                sstFiles.add(file.substring(slash + 1));
            }
        }
        if (directories.size() == 1) {
            seeds.put(vnode, new Seed(directories.iterator().next(), Set.copyOf(sstFiles)));
        }
    }

    /** The replica's files by RocksDB file name, if it is whole and matches Flink's handle. */
    private Optional<Map<String, Path>> replicaOf(
            int vnode, IncrementalRemoteKeyedStateHandle remote) throws IOException {
        String vnodeDirectory = ReplicaListing.vnodeDirectory(operatorPrefix, vnode);
        Optional<Path> listingFile =
                store.file(ReplicaListing.path(vnodeDirectory, remote.getCheckpointId()));
        Map<String, Path> files;
        List<String> listedFiles;
        if (listingFile.isPresent()) {
            files = new HashMap<>();
            listedFiles = ReplicaListing.read(listingFile.get()).files();
            for (String listed : listedFiles) {
                Optional<Path> file = store.file(vnodeDirectory + "/" + listed);
                if (file.isEmpty()) {
                    return unusable(vnode, remote, "it lacks " + listed);
                }
                // a copy damaged on this disk since it arrived: never restored from
                if (!store.verify(vnodeDirectory + "/" + listed)) {
                    return unusable(vnode, remote, listed + " is damaged (checksum mismatch)");
                }
                files.put(fileName(listed), file.get());
            }
        } else {
            Optional<Fetched> fetched = fetch(vnode, vnodeDirectory, remote);
            if (fetched.isEmpty()) {
                return Optional.empty();
            }
            files = fetched.get().files();
            listedFiles = fetched.get().listed();
        }
        // Flink's snapshot and the replica's capture are two RocksDB checkpoints of the same
        // instance, taken one after the other in the synchronous phase: the same data. Their SST
        // sets differ only if a compaction ended in between, and a file name of one instance
        // always means the same contents; a size that differs means a damaged copy.
        for (HandleAndLocalPath shared : remote.getSharedState()) {
            Path file = files.get(shared.getLocalPath());
            long size = shared.getStateSize();
            if (file != null && size > 0 && Files.size(file) != size) {
                return unusable(
                        vnode,
                        remote,
                        shared.getLocalPath()
                                + " has "
                                + Files.size(file)
                                + " bytes, Flink's copy "
                                + size);
            }
        }
        if (files.keySet().stream().noneMatch(name -> name.startsWith("MANIFEST"))) {
            return unusable(vnode, remote, "it has no RocksDB MANIFEST");
        }
        rememberSeed(vnode, listedFiles);
        return Optional.of(files);
    }

    /**
     * Starts fetching the replicas of those of {@code handlesByVnode}'s vnodes that this
     * TaskManager does not hold, in the order given, {@link #CONCURRENT_FETCHES} vnode at a time:
     * the next vnodes arrive while the first ones open, instead of one fetch after each open.
     * {@link #handlesFor} then waits for a vnode's fetch only if it has not arrived yet.
     */
    @Override
    public void prefetch(Map<Integer, List<KeyedStateHandle>> handlesByVnode) {
        prefetch(handlesByVnode, CONCURRENT_FETCHES);
    }

    /** As {@link #prefetch(Map)}, {@code concurrentVnodes} vnodes at a time (for benchmarks). */
    public void prefetch(
            Map<Integer, List<KeyedStateHandle>> handlesByVnode, int concurrentVnodes) {
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
    private Optional<Fetched> fetch(
            int vnode, String vnodeDirectory, IncrementalRemoteKeyedStateHandle remote) {
        CompletableFuture<Optional<Fetched>> fetch = prefetched.get(vnode);
        if (fetch == null) {
            fetch = fetchFrom(0, vnode, vnodeDirectory, remote);
            prefetched.put(vnode, fetch);
        }
        try {
            Optional<Fetched> fetched = fetch.get();
            fetched.ifPresent(
                    replica -> {
                        fetchedVnodes++;
                        fetchedBytes += replica.bytes();
                    });
            return fetched;
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
                files.put(fileName(file), path);
                bytes += Files.size(path);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new Fetched(files, listed, bytes);
    }

    private static String fileName(String listed) {
        return listed.substring(listed.lastIndexOf('/') + 1);
    }

    private static Optional<Map<String, Path>> unusable(
            int vnode, IncrementalRemoteKeyedStateHandle remote, String why) {
        LOG.info(
                "Vnode {}: this TaskManager's replica of checkpoint {} is not used: {}",
                vnode,
                remote.getCheckpointId(),
                why);
        return Optional.empty();
    }

    /** Vnodes restored from replicas so far. */
    @Override
    public int restoredVnodes() {
        return restoredVnodes;
    }

    /** Bytes of the replicas those vnodes were restored from. */
    @Override
    public long linkedBytes() {
        return linkedBytes;
    }

    /** Of those, the vnodes whose replica was fetched from another TaskManager. */
    @Override
    public int fetchedVnodes() {
        return fetchedVnodes;
    }

    /** Bytes fetched from other TaskManagers' replicas. */
    @Override
    public long fetchedBytes() {
        return fetchedBytes;
    }

    /**
     * Deletes the assembled directories and the fetched copies; restored instances keep their own
     * links.
     */
    @Override
    public void close() {
        for (Path db : assembled) {
            FileUtils.deleteDirectoryQuietly(db.toFile());
        }
        assembled.clear();
        if (service != null) {
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
    }

    private void deleteFetched() {
        try {
            store.deleteTree(fetchDirectory);
        } catch (IOException e) {
            LOG.warn("Could not delete fetched replicas {}: {}", fetchDirectory, e.toString());
        }
    }
}
