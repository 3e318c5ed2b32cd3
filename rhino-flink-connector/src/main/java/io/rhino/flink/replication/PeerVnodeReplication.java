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
import io.rhino.replication.RoundWait;
import io.rhino.replication.WindowedRound;
import java.io.IOException;
import java.lang.ref.WeakReference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
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
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
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
    private static final SecureRandom RANDOM = new SecureRandom();

    /**
     * A vnode's files in flight at once in a replication round: enough to keep a disk and a link
     * busy (the replication benchmark measured 4 no slower than all at once), few enough that files
     * complete one after another and a round cut short keeps what it stored.
     */
    static final int FILES_AT_ONCE = 4;

    private final ReplicationService service;
    private final List<PeerAddress> chain;
    private final String prefix;
    private final Path captureRoot;
    private final long timeoutMillis;
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

    /**
     * @param confirmed whether a round of this chain stored the files; a {@linkplain #seed seeded}
     *     guess is not, until the next round (a member lacking a file refuses its listing then, and
     *     the round sends everything)
     */
    private record Held(WeakReference<Object> instance, HeldFiles files, boolean confirmed) {}

    // Per vnode; replaced (never changed) by the asynchronous phases, one round at a time, and
    // read by handovers in the task thread. A vnode that moved away and back is a new RocksDB
    // instance whose file names may repeat with other contents: a new instance starts from nothing.
    private final Map<Integer, Held> replicatedSst = new ConcurrentHashMap<>();

    // one replication round at a time
    private final Object rounds = new Object();

    // vnodes whose copies the chain holds but this subtask no longer has, and the first
    // checkpoint without them; written under rounds
    private final Map<Integer, Long> departedAt = new ConcurrentHashMap<>();

    private volatile long lastCompletedCheckpoint = -1;

    // former holders of this subtask's copies outside the chain, and the vnodes they may hold;
    // told to drop them once the chain holds a completed checkpoint; written under rounds
    private volatile Set<PeerAddress> retiredMembers = Set.of();
    private volatile Set<Integer> retiredVnodes = Set.of();
    // the first checkpoint this chain replicated, -1 before; guarded by rounds
    private long firstReplicated = -1;

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
        this.timeoutMillis = timeoutMillis;
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
        Held held = replicatedSst.get(vnode);
        return held != null && held.confirmed() && held.instance().get() == instance
                ? Optional.of(held.files())
                : Optional.empty();
    }

    /** The job and operator part of replica paths. */
    public static String operatorPrefix(String job, String operator) {
        return PathSegment.of(job) + "/" + PathSegment.of(operator);
    }

    @Override
    public void seed(int vnode, Object instance, String directory, Set<String> sstFiles) {
        replicatedSst.putIfAbsent(
                vnode,
                new Held(new WeakReference<>(instance), new HeldFiles(directory, sstFiles), false));
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
            Set<PeerAddress> all = new LinkedHashSet<>(retiredMembers);
            all.addAll(members);
            Set<Integer> allVnodes = new TreeSet<>(retiredVnodes);
            allVnodes.addAll(vnodes);
            retiredMembers = all;
            retiredVnodes = allVnodes;
        }
    }

    /**
     * This replication's successor along {@code next}: the members of this chain that {@code next}
     * lacks are retired for every vnode this chain held copies of.
     */
    public void handOver(PeerVnodeReplication next) {
        // read without waiting for a round in flight (the task thread calls this); a vnode that
        // round adds is retired by the next chain change at the latest
        Set<Integer> vnodes = new TreeSet<>(replicatedSst.keySet());
        vnodes.addAll(departedAt.keySet());
        vnodes.addAll(retiredVnodes);
        List<String> members = new ArrayList<>();
        chain.forEach(member -> members.add(member.toString()));
        retiredMembers.forEach(member -> members.add(member.toString()));
        next.retire(members, vnodes);
    }

    @Override
    public void checkpointCompleted(long checkpointId) {
        if (checkpointId > lastCompletedCheckpoint) {
            lastCompletedCheckpoint = checkpointId;
        }
    }

    @Override
    public Capture capture(
            long checkpointId, Map<Integer, CheckpointableKeyedStateBackend<?>> vnodes)
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
        return new Captured(checkpointId, directory, captured, flinkSnapshots, instances);
    }

    private final class Captured implements Capture {
        private final long checkpointId;
        private final Path directory;
        private final Map<Integer, Path> byVnode;
        private final Map<Integer, Path> flinkSnapshots;
        private final Map<Integer, Object> instances;

        /**
         * @param flinkSnapshots vnodes whose files are still to be linked from the RocksDB
         *     checkpoint of Flink's snapshot, which exists until the vnode's snapshot future ends
         */
        Captured(
                long checkpointId,
                Path directory,
                Map<Integer, Path> byVnode,
                Map<Integer, Path> flinkSnapshots,
                Map<Integer, Object> instances) {
            this.checkpointId = checkpointId;
            this.directory = directory;
            this.byVnode = byVnode;
            this.flinkSnapshots = flinkSnapshots;
            this.instances = instances;
        }

        @Override
        public Optional<HeldReplica> held(int vnode) {
            return heldOf(vnode, instances.get(vnode))
                    .map(files -> new HeldReplica(files.directory(), files.sstFiles()));
        }

        @Override
        public List<String> holders() {
            return chain.stream().map(PeerAddress::toString).toList();
        }

        @Override
        public void replicate() throws Exception {
            if (chain.isEmpty()) {
                return;
            }
            long started = System.nanoTime();
            long bytes = 0;
            try {
                // before the vnodes' snapshot futures run: they delete Flink's checkpoints
                for (Map.Entry<Integer, Path> flinks : flinkSnapshots.entrySet()) {
                    FileLinks.linkDirectory(flinks.getValue(), byVnode.get(flinks.getKey()));
                }
                synchronized (rounds) {
                    for (int vnode : replicatedSst.keySet()) {
                        if (!byVnode.containsKey(vnode)) {
                            departedAt.putIfAbsent(vnode, checkpointId);
                        }
                    }
                    departedAt.keySet().removeAll(byVnode.keySet());
                    for (Map.Entry<Integer, Path> vnode : byVnode.entrySet()) {
                        bytes += replicateVnode(vnode.getKey(), vnode.getValue());
                    }
                    announceDepartures();
                    if (firstReplicated < 0) {
                        firstReplicated = checkpointId;
                    }
                    announceRetirements();
                }
            } catch (Exception e) {
                listener.failed(checkpointId, e);
                throw e;
            }
            listener.replicated(checkpointId, bytes, (System.nanoTime() - started) / 1_000_000);
            LOG.debug(
                    "Checkpoint {}: replicated {} bytes of vnodes {} to {} in {} ms",
                    checkpointId,
                    bytes,
                    byVnode.keySet(),
                    chain,
                    (System.nanoTime() - started) / 1_000_000);
        }

        /**
         * Tells the chain which vnodes left this subtask before the last completed checkpoint, so
         * it drops their copies. Best effort: a failed notice is sent again next time.
         */
        private void announceDepartures() throws Exception {
            long completed = lastCompletedCheckpoint;
            for (Map.Entry<Integer, Long> departed : new ArrayList<>(departedAt.entrySet())) {
                int vnode = departed.getKey();
                if (completed < departed.getValue()) {
                    continue;
                }
                Path notice =
                        Files.createDirectories(directory).resolve("departed-" + vnode + ".local");
                ReplicaListing.departure(completed, departed.getValue()).write(notice);
                String base = ReplicaListing.vnodeDirectory(prefix, vnode);
                try {
                    RoundWait.await(
                            service.replicate(
                                    notice,
                                    ReplicaListing.departurePath(base, checkpointId),
                                    chain),
                            timeoutMillis);
                    departedAt.remove(vnode);
                    replicatedSst.remove(vnode);
                } catch (ExecutionException | TimeoutException e) {
                    LOG.warn(
                            "Checkpoint {}: could not tell {} that vnode {} left; retrying next"
                                    + " checkpoint: {}",
                            checkpointId,
                            chain,
                            vnode,
                            e.getCause() == null ? e.toString() : e.getCause().getMessage());
                }
            }
        }

        /**
         * Once this chain holds a completed checkpoint, tells the former holders outside it to drop
         * this subtask's old copies: a departure notice per vnode as of the chain's first
         * checkpoint, so copies that another subtask made since stay. Best effort, without waiting:
         * a former holder is often a TaskManager that is gone.
         */
        private void announceRetirements() throws IOException {
            long completed = lastCompletedCheckpoint;
            if (retiredMembers.isEmpty() || completed < firstReplicated) {
                return;
            }
            for (int vnode : retiredVnodes) {
                Path notice =
                        Files.createDirectories(directory).resolve("retired-" + vnode + ".local");
                ReplicaListing.departure(completed, firstReplicated).write(notice);
                String path =
                        ReplicaListing.departurePath(
                                ReplicaListing.vnodeDirectory(prefix, vnode), checkpointId);
                for (PeerAddress member : retiredMembers) {
                    service.replicate(notice, path, List.of(member))
                            .whenComplete(
                                    (ok, failure) -> {
                                        if (failure != null) {
                                            LOG.info(
                                                    "Former replica holder {} of vnode {} was not"
                                                            + " told to drop it: {}",
                                                    member,
                                                    vnode,
                                                    failure.getMessage());
                                        }
                                    });
                }
            }
            LOG.info(
                    "Checkpoint {}: told former replica holders {} to drop the copies of vnodes {}",
                    checkpointId,
                    retiredMembers,
                    retiredVnodes);
            retiredMembers = Set.of();
            retiredVnodes = Set.of();
        }

        /** Sends what the chain lacks of one vnode, then its listing; returns the bytes sent. */
        private long replicateVnode(int vnode, Path captured) throws Exception {
            String base = ReplicaListing.vnodeDirectory(prefix, vnode);
            WeakReference<Object> instance = new WeakReference<>(instances.get(vnode));
            Held held = replicatedSst.get(vnode);
            String directory =
                    held != null && held.instance().get() == instance.get()
                            ? held.files().directory()
                            : "i-" + Long.toHexString(RANDOM.nextLong());
            Set<String> alreadyHeld =
                    held != null && held.instance().get() == instance.get()
                            ? held.files().sstFiles()
                            : Set.of();
            List<Path> files;
            try (Stream<Path> list = Files.list(captured)) {
                files = list.sorted().toList();
            }
            // SST files every member stored in this round, kept if the round fails
            Set<String> stored = ConcurrentHashMap.newKeySet();
            try {
                long sent = send(base, directory, alreadyHeld, files, captured, stored);
                Set<String> nowHeld = new TreeSet<>();
                files.stream()
                        .map(f -> f.getFileName().toString())
                        .filter(name -> name.endsWith(".sst"))
                        .forEach(nowHeld::add);
                replicatedSst.put(
                        vnode, new Held(instance, new HeldFiles(directory, nowHeld), true));
                return sent;
            } catch (Exception e) {
                // What the whole chain stored stays, so a vnode whose new files take longer than
                // one round gets further with each round. Unconfirmed, like a seed: a member that
                // lost a file refuses the next listing and that round sends everything, and a
                // handover meanwhile ships everything.
                Set<String> kept = new TreeSet<>(alreadyHeld);
                kept.addAll(stored);
                replicatedSst.put(vnode, new Held(instance, new HeldFiles(directory, kept), false));
                throw e;
            }
        }

        private long send(
                String base,
                String directory,
                Set<String> alreadyHeld,
                List<Path> files,
                Path captured,
                Set<String> stored)
                throws Exception {
            Map<String, Path> toSend = new LinkedHashMap<>();
            List<String> listed = new ArrayList<>();
            for (Path file : files) {
                String name = file.getFileName().toString();
                if (name.endsWith(".sst")) {
                    String inVnode = directory + "/" + name;
                    listed.add(inVnode);
                    if (!alreadyHeld.contains(name)) {
                        toSend.put(base + "/" + inVnode, file);
                    }
                } else {
                    String inVnode = "chk-" + checkpointId + "/" + PathSegment.of(name);
                    listed.add(inVnode);
                    toSend.put(base + "/" + inVnode, file);
                }
            }
            long bytes = 0;
            for (Path file : toSend.values()) {
                bytes += Files.size(file);
            }
            WindowedRound.replicate(
                    service,
                    toSend,
                    chain,
                    FILES_AT_ONCE,
                    timeoutMillis,
                    path -> {
                        // an SST's replica path ends with its name; metadata files never end .sst
                        if (path.endsWith(".sst")) {
                            stored.add(path.substring(path.lastIndexOf('/') + 1));
                        }
                    });
            Path listingFile = captured.resolve(ReplicaListing.NAME + ".local");
            ReplicaListing.of(lastCompletedCheckpoint, listed).write(listingFile);
            try {
                RoundWait.await(
                        service.replicate(
                                listingFile, ReplicaListing.path(base, checkpointId), chain),
                        timeoutMillis);
            } catch (ExecutionException e) {
                if (alreadyHeld.isEmpty()) {
                    throw e;
                }
                // a member lacks files this instance sent before (it dropped them or is new)
                LOG.info(
                        "Checkpoint {}: the chain {} refused the replica of {} ({}); sending all"
                                + " its files again",
                        checkpointId,
                        chain,
                        base,
                        e.getCause() == null ? e.toString() : e.getCause().getMessage());
                return bytes + send(base, directory, Set.of(), files, captured, stored);
            }
            return bytes;
        }

        @Override
        public void discard() {
            FileUtils.deleteDirectoryQuietly(directory.toFile());
        }
    }
}
