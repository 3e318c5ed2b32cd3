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
import io.rhino.flink.state.LiveInstanceFiles;
import io.rhino.flink.state.PathSegment;
import io.rhino.flink.state.VnodeReplication;
import io.rhino.replication.PeerAddress;
import io.rhino.replication.ReplicationService;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.apache.flink.runtime.state.CheckpointableKeyedStateBackend;
import org.apache.flink.util.FileUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Replicates a subtask's vnode checkpoints along its chain. In the checkpoint's synchronous phase
 * each vnode's live RocksDB files are captured as a RocksDB checkpoint (hard links, milliseconds);
 * in its asynchronous phase the SST files the chain does not hold yet, and the small metadata
 * files, go down the chain; last, a listing of the checkpoint's files, whose presence on a member
 * means that member holds a complete replica of the vnode as of that checkpoint.
 *
 * <p>Replica layout: see {@link ReplicaListing}. A member that lacks a file the listing names
 * refuses it ({@link VnodeReplicaCollector}); the vnode's files then all go again, once.
 */
public final class PeerVnodeReplication implements VnodeReplication {

    private static final Logger LOG = LoggerFactory.getLogger(PeerVnodeReplication.class);

    private final ReplicationService service;
    private final List<PeerAddress> chain;
    private final String prefix;
    private final Path captureRoot;
    private final Listener listener;

    /** Told of every replication round: replicated or failed. */
    public interface Listener {
        void replicated(long checkpointId, long bytesSent, long roundMillis);

        void failed(long checkpointId, Throwable cause);
    }

    /**
     * The SST files every chain member holds of one vnode instance.
     *
     * @param directory the instance's directory in the vnode's replica directory ({@code i-<id>})
     */
    public record HeldFiles(String directory, Set<String> sstFiles) {
        public HeldFiles {
            sstFiles = Set.copyOf(sstFiles);
        }
    }

    private final ChainHeldFiles held = new ChainHeldFiles();
    private final ListedSnapshots listed;
    private final DepartureNotices departures;
    private final RetirementNotices retirements;
    private final VnodeChainRound vnodeRound;

    // one replication round at a time
    private final Object rounds = new Object();

    private volatile long lastCompletedCheckpoint = -1;

    /**
     * @param prefix the job and operator part of replica paths, already safe ({@link #segment})
     * @param captureRoot a local directory on the same disk as the vnode instances (hard links)
     */
    public PeerVnodeReplication(
            ReplicationService service,
            List<PeerAddress> chain,
            String prefix,
            Path captureRoot,
            long timeoutMillis,
            Listener listener) {
        this.service = service;
        this.listener = listener;
        this.chain = List.copyOf(chain);
        this.prefix = prefix;
        this.captureRoot = captureRoot;
        this.listed = new ListedSnapshots();
        this.departures = new DepartureNotices(service, this.chain, prefix, timeoutMillis, held);
        this.retirements = new RetirementNotices(service, prefix);
        this.vnodeRound =
                new VnodeChainRound(
                        service,
                        this.chain,
                        prefix,
                        timeoutMillis,
                        held,
                        () -> lastCompletedCheckpoint);
    }

    public List<PeerAddress> chain() {
        return chain;
    }

    public String prefix() {
        return prefix;
    }

    /**
     * What every chain member holds of the vnode's RocksDB instance {@code instance}, as a
     * replication round of this chain confirmed. A handover ships only the rest: a seeded guess
     * would leave a chain member that never held the restored files (a TaskManager replaced since)
     * without them.
     */
    public Optional<HeldFiles> heldOf(int vnode, Object instance) {
        return held.confirmedOf(vnode, instance);
    }

    /** The job and operator part of replica paths. */
    public static String operatorPrefix(String job, String operator) {
        return PathSegment.of(job) + "/" + PathSegment.of(operator);
    }

    @Override
    public void seed(int vnode, Object instance, String directory, Set<String> sstFiles) {
        held.seed(vnode, instance, new HeldFiles(directory, sstFiles));
    }

    @Override
    public void retire(Collection<String> formerHolders, Set<Integer> vnodes) {
        Set<PeerAddress> members = new LinkedHashSet<>();
        for (String holder : formerHolders) {
            PeerAddress member = PeerAddress.parse(holder);
            if (!chain.contains(member) && !member.equals(service.address())) {
                members.add(member);
            }
        }
        synchronized (rounds) {
            retirements.add(members, vnodes);
        }
    }

    /**
     * This replication's successor along {@code next}: the members of this chain that {@code next}
     * lacks are retired for every vnode this chain held copies of.
     */
    public void handOver(PeerVnodeReplication next) {
        // read without waiting for a round in flight (the task thread calls this); a vnode that
        // round adds is retired by the next chain change at the latest
        Set<Integer> vnodes = new TreeSet<>(held.vnodes());
        vnodes.addAll(departures.vnodes());
        vnodes.addAll(retirements.vnodes());
        List<String> members = new ArrayList<>();
        chain.forEach(member -> members.add(member.toString()));
        retirements.members().forEach(member -> members.add(member.toString()));
        next.retire(members, vnodes);
    }

    @Override
    public void checkpointCompleted(long checkpointId) {
        if (checkpointId > lastCompletedCheckpoint) {
            lastCompletedCheckpoint = checkpointId;
        }
    }

    @Override
    public boolean mayRelist(int vnode, Object instance, long snapshotOf) {
        return listed.holds(vnode, instance, snapshotOf)
                && held.confirmedOf(vnode, instance).isPresent();
    }

    @Override
    public Capture capture(
            long checkpointId,
            Map<Integer, CheckpointableKeyedStateBackend<?>> vnodes,
            Map<Integer, Relist> relisted)
            throws Exception {
        Path directory = captureRoot.resolve("chk-" + checkpointId + "-" + System.nanoTime());
        Map<Integer, Path> captured = new LinkedHashMap<>();
        Map<Integer, Path> flinkSnapshots = new HashMap<>();
        Map<Integer, Object> instances = new HashMap<>();
        try {
            for (Map.Entry<Integer, CheckpointableKeyedStateBackend<?>> vnode : vnodes.entrySet()) {
                Path vnodeDirectory = directory.resolve("vnode-" + vnode.getKey());
                // Flink's snapshot has just taken a RocksDB checkpoint of the instance: its files
                // are linked in the asynchronous phase instead of taking a second one here, which
                // would stop the task for another round of syncs per vnode
                Optional<Path> flinks =
                        LiveInstanceFiles.flinkSnapshotDirectory(vnode.getValue(), checkpointId);
                if (flinks.isPresent()) {
                    flinkSnapshots.put(vnode.getKey(), flinks.get());
                } else {
                    LiveInstanceFiles.checkpoint(vnode.getValue(), vnodeDirectory);
                }
                captured.put(vnode.getKey(), vnodeDirectory);
                instances.put(vnode.getKey(), vnode.getValue());
            }
        } catch (Exception e) {
            FileUtils.deleteDirectoryQuietly(directory.toFile());
            throw e;
        }
        return new Captured(
                checkpointId, directory, captured, flinkSnapshots, instances, Map.copyOf(relisted));
    }

    private final class Captured implements Capture {
        private final long checkpointId;
        private final Path directory;
        private final Map<Integer, Path> byVnode;
        private final Map<Integer, Path> flinkSnapshots;
        private final Map<Integer, Object> instances;
        private final Map<Integer, Relist> relisted;
        private boolean secured;

        /**
         * @param flinkSnapshots vnodes whose files are still to be linked from the RocksDB
         *     checkpoint of Flink's snapshot, which exists until the vnode's snapshot future ends
         * @param relisted idle vnodes whose replica of an earlier snapshot is listed again
         */
        Captured(
                long checkpointId,
                Path directory,
                Map<Integer, Path> byVnode,
                Map<Integer, Path> flinkSnapshots,
                Map<Integer, Object> instances,
                Map<Integer, Relist> relisted) {
            this.checkpointId = checkpointId;
            this.directory = directory;
            this.byVnode = byVnode;
            this.flinkSnapshots = flinkSnapshots;
            this.instances = instances;
            this.relisted = relisted;
        }

        @Override
        public Optional<HeldReplica> held(int vnode) {
            // a relisted vnode's chain holds the files of the snapshot it lists again
            Relist relist = relisted.get(vnode);
            Object instance = relist != null ? relist.instance() : instances.get(vnode);
            return heldOf(vnode, instance)
                    .map(files -> new HeldReplica(files.directory(), files.sstFiles()));
        }

        @Override
        public List<String> holders() {
            return chain.stream().map(PeerAddress::toString).toList();
        }

        @Override
        public synchronized void secure() throws Exception {
            if (secured || chain.isEmpty()) {
                return;
            }
            try {
                // before the vnodes' snapshot futures run: they delete Flink's checkpoints
                for (Map.Entry<Integer, Path> flinks : flinkSnapshots.entrySet()) {
                    FileLinks.linkDirectory(flinks.getValue(), byVnode.get(flinks.getKey()));
                }
            } catch (Exception e) {
                listener.failed(checkpointId, e);
                throw e;
            }
            secured = true;
        }

        @Override
        public void replicate() throws Exception {
            if (chain.isEmpty()) {
                return;
            }
            secure();
            long started = System.nanoTime();
            long bytes = 0;
            try {
                synchronized (rounds) {
                    Set<Integer> inCheckpoint = new TreeSet<>(byVnode.keySet());
                    inCheckpoint.addAll(relisted.keySet());
                    departures.checkpointHas(checkpointId, inCheckpoint);
                    listed.retainOnly(inCheckpoint);
                    for (Map.Entry<Integer, Path> vnode : byVnode.entrySet()) {
                        bytes += replicateWhole(vnode.getKey(), vnode.getValue());
                    }
                    for (Map.Entry<Integer, Relist> vnode : relisted.entrySet()) {
                        bytes += relist(vnode.getKey(), vnode.getValue());
                    }
                    departures.announce(checkpointId, lastCompletedCheckpoint, directory);
                    retirements.replicated(checkpointId);
                    retirements.announce(checkpointId, lastCompletedCheckpoint, directory);
                }
            } catch (Exception e) {
                listener.failed(checkpointId, e);
                throw e;
            }
            listener.replicated(checkpointId, bytes, (System.nanoTime() - started) / 1_000_000);
            LOG.debug(
                    "Checkpoint {}: replicated {} bytes of vnodes {} (listed again: {}) to {} in"
                            + " {} ms",
                    checkpointId,
                    bytes,
                    byVnode.keySet(),
                    relisted.keySet(),
                    chain,
                    (System.nanoTime() - started) / 1_000_000);
        }

        private long replicateWhole(int vnode, Path captured) throws Exception {
            Object instance = instances.get(vnode);
            // until this round confirms, the chain's last whole snapshot of the vnode is unknown
            listed.forget(vnode);
            VnodeChainRound.Sent sent =
                    vnodeRound.replicate(checkpointId, vnode, instance, captured);
            // only the files of Flink's own snapshot are those a later checkpoint may reuse; a
            // RocksDB checkpoint taken here instead could hold other SST files
            if (flinkSnapshots.containsKey(vnode)) {
                listed.replicated(vnode, instance, checkpointId, sent.listing());
            }
            return sent.bytes();
        }

        private long relist(int vnode, Relist relist) throws Exception {
            Object instance = relist.instance();
            // a round of a later checkpoint may have run first and sent another snapshot
            ListedSnapshots.Listed snapshot =
                    listed.of(vnode, instance)
                            .filter(l -> l.snapshotOf() == relist.snapshotOf())
                            .orElseThrow(
                                    () ->
                                            new IllegalStateException(
                                                    "Checkpoint "
                                                            + checkpointId
                                                            + " reuses vnode "
                                                            + vnode
                                                            + "'s snapshot of checkpoint "
                                                            + relist.snapshotOf()
                                                            + ", which its chain no longer holds"
                                                            + " whole; the next checkpoint"
                                                            + " snapshots it"));
            try {
                Files.createDirectories(directory);
                return vnodeRound.relist(
                        checkpointId,
                        vnode,
                        snapshot,
                        directory.resolve("listing-of-vnode-" + vnode));
            } catch (Exception e) {
                // a member may have lost files: the next checkpoint sends the vnode whole
                listed.forget(vnode);
                throw e;
            }
        }

        @Override
        public void discard() {
            FileUtils.deleteDirectoryQuietly(directory.toFile());
        }
    }
}
