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
import io.rhino.flink.state.RestoreSource;
import io.rhino.flink.state.TaskReplicas;
import io.rhino.replication.PeerAddress;
import io.rhino.replication.ReplicationService;
import io.rhino.replication.store.ReplicaStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;
import org.apache.flink.runtime.execution.Environment;
import org.apache.flink.runtime.state.DirectoryStateHandle;
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

    private final Path workDirectory;
    private final PeerReplicaFetcher fetcher;
    private final VnodeReplicaResolver replicas;
    private final RestoreCounts counts = new RestoreCounts();
    private final Queue<Path> assembled = new ConcurrentLinkedQueue<>(); // vnodes restore at once
    private final ReplicaChecksAfterOpen checksAfterOpen; // null: checked before

    private ReplicaRestore(
            ReplicaStore store,
            ReplicationService service,
            List<PeerAddress> holders,
            String operatorPrefix,
            Path workDirectory,
            boolean checkBeforeOpen) {
        this.workDirectory = workDirectory;
        this.fetcher = new PeerReplicaFetcher(store, service, holders, operatorPrefix);
        this.checksAfterOpen = checkBeforeOpen ? null : new ReplicaChecksAfterOpen(store);
        this.replicas =
                new VnodeReplicaResolver(store, fetcher, counts, operatorPrefix, checksAfterOpen);
    }

    /**
     * Restores from {@code store} only, the replicas of {@code operatorPrefix}, assembling RocksDB
     * directories under {@code workDirectory}; every file checked before its vnode opens.
     */
    public static ReplicaRestore from(
            ReplicaStore store, String operatorPrefix, Path workDirectory) {
        return from(store, operatorPrefix, workDirectory, true);
    }

    /**
     * As {@link #from(ReplicaStore, String, Path)}, checking the files before the vnodes open or
     * after ({@link #checkAfterOpen}).
     */
    public static ReplicaRestore from(
            ReplicaStore store,
            String operatorPrefix,
            Path workDirectory,
            boolean checkBeforeOpen) {
        return new ReplicaRestore(
                store, null, List.of(), operatorPrefix, workDirectory, checkBeforeOpen);
    }

    /**
     * Restores from {@code service}'s store, or else from the first of {@code holders} ("host:port"
     * of replication services, in the order the checkpoint names them) that has the replica; every
     * stored file checked before its vnode opens.
     */
    public static ReplicaRestore from(
            ReplicationService service,
            List<String> holders,
            String operatorPrefix,
            Path workDirectory) {
        return from(service, holders, operatorPrefix, workDirectory, true);
    }

    /**
     * As {@link #from(ReplicationService, List, String, Path)}, checking the stored files before
     * the vnodes open or after ({@link #checkAfterOpen}).
     */
    public static ReplicaRestore from(
            ReplicationService service,
            List<String> holders,
            String operatorPrefix,
            Path workDirectory,
            boolean checkBeforeOpen) {
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
                service.store(),
                service,
                List.copyOf(peers),
                operatorPrefix,
                workDirectory,
                checkBeforeOpen);
    }

    /**
     * The replicas the task of {@code env}, of the operator at {@code operatorPrefix}, may restore
     * from: its TaskManager's replication service, if that runs when the task restores (e.g.
     * retaining the replicas of this job's tasks before a failover), with the replicas it keeps or
     * fetches from their holders; stored files checked before the vnodes open if {@code
     * checkBeforeOpen}, else after.
     */
    public static TaskReplicas forTask(
            Environment env, String operatorPrefix, boolean checkBeforeOpen) {
        return (holders, workDirectory) ->
                TaskManagerReplication.serviceOf(TaskManagerReplication.taskManagerName(env))
                        .<RestoreFromReplicas>map(
                                service ->
                                        from(
                                                service,
                                                holders,
                                                operatorPrefix,
                                                workDirectory,
                                                checkBeforeOpen));
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
            long started = System.nanoTime();
            Optional<Map<String, Path>> replica = replicas.replicaOf(vnode, remote);
            long resolved = System.nanoTime();
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
            counts.linked(vnode, bytes);
            // where a restore from a replica spends its time: checking (or fetching) the files,
            // then linking them; opening the instance follows
            LOG.info(
                    "Vnode {} restores checkpoint {} from a replica ({} files, {} bytes linked,"
                            + " none downloaded from the checkpoint storage; {} in {} ms, linked"
                            + " in {} ms)",
                    vnode,
                    remote.getCheckpointId(),
                    replica.get().size(),
                    bytes,
                    checksAfterOpen == null
                            ? "checked or fetched"
                            : "listed (checked after the open) or fetched",
                    (resolved - started) / 1_000_000,
                    (System.nanoTime() - resolved) / 1_000_000);
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

    @Override
    public AutoCloseable checkAfterOpen(String owner, Consumer<String> onDamaged) {
        return checksAfterOpen == null ? () -> {} : checksAfterOpen.start(owner, onDamaged);
    }

    /** The seed of a vnode restored from a replica, for its replication to skip those files. */
    @Override
    public Optional<Seed> seedOf(int vnode) {
        return replicas.seedOf(vnode);
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
        fetcher.prefetch(handlesByVnode, concurrentVnodes);
    }

    @Override
    public Map<Integer, RestoreSource> sources() {
        return counts.sources();
    }

    /** Vnodes restored from replicas so far. */
    @Override
    public int restoredVnodes() {
        return counts.restoredVnodes();
    }

    /** Bytes of the replicas those vnodes were restored from. */
    @Override
    public long linkedBytes() {
        return counts.linkedBytes();
    }

    /** Of those, the vnodes whose replica was fetched from another TaskManager. */
    @Override
    public int fetchedVnodes() {
        return counts.fetchedVnodes();
    }

    /** Bytes fetched from other TaskManagers' replicas. */
    @Override
    public long fetchedBytes() {
        return counts.fetchedBytes();
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
        fetcher.close();
    }
}
