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

import io.rhino.flink.replication.PeerVnodeReplication.HeldFiles;
import io.rhino.flink.state.PathSegment;
import io.rhino.replication.PeerAddress;
import io.rhino.replication.ReplicationService;
import io.rhino.replication.RoundWait;
import io.rhino.replication.WindowedRound;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.function.LongSupplier;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends one vnode's captured checkpoint down the chain: the SST files the chain lacks and the
 * metadata files, then the listing; records what the chain holds afterwards.
 */
final class VnodeChainRound {

    private static final Logger LOG = LoggerFactory.getLogger(VnodeChainRound.class);

    /**
     * A vnode's files in flight at once in a replication round: enough to keep a disk and a link
     * busy (the replication benchmark measured 4 no slower than all at once), few enough that files
     * complete one after another and a round cut short keeps what it stored.
     */
    static final int FILES_AT_ONCE = 4;

    /** The name of a round's listing where it is written before it is sent. */
    static final String LISTING_SCRATCH = ReplicaListing.NAME + ".local";

    private final ReplicationService service;
    private final List<PeerAddress> chain;
    private final String prefix;
    private final long timeoutMillis;
    private final ChainHeldFiles held;
    private final LongSupplier lastCompletedCheckpoint;

    VnodeChainRound(
            ReplicationService service,
            List<PeerAddress> chain,
            String prefix,
            long timeoutMillis,
            ChainHeldFiles held,
            LongSupplier lastCompletedCheckpoint) {
        this.service = service;
        this.chain = chain;
        this.prefix = prefix;
        this.timeoutMillis = timeoutMillis;
        this.held = held;
        this.lastCompletedCheckpoint = lastCompletedCheckpoint;
    }

    /**
     * Sends what the chain lacks of the vnode's RocksDB instance {@code instance}, captured in
     * {@code captured}, then its listing; returns the bytes sent.
     */
    long replicate(long checkpointId, int vnode, Object instance, Path captured) throws Exception {
        String base = ReplicaListing.vnodeDirectory(prefix, vnode);
        Optional<HeldFiles> before = held.of(vnode, instance);
        String directory =
                before.map(HeldFiles::directory).orElseGet(ReplicaListing::newInstanceDirectory);
        Set<String> alreadyHeld = before.map(HeldFiles::sstFiles).orElse(Set.of());
        List<Path> files;
        try (Stream<Path> list = Files.list(captured)) {
            files = list.sorted().toList();
        }
        // SST files every member stored in this round, kept if the round fails
        Set<String> stored = ConcurrentHashMap.newKeySet();
        try {
            long sent = send(checkpointId, base, directory, alreadyHeld, files, captured, stored);
            Set<String> nowHeld = new TreeSet<>();
            files.stream()
                    .map(f -> f.getFileName().toString())
                    .filter(name -> name.endsWith(".sst"))
                    .forEach(nowHeld::add);
            held.stored(vnode, instance, new HeldFiles(directory, nowHeld), true);
            return sent;
        } catch (Exception e) {
            // What the whole chain stored stays, so a vnode whose new files take longer than
            // one round gets further with each round. Unconfirmed, like a seed: a member that
            // lost a file refuses the next listing and that round sends everything, and a
            // handover meanwhile ships everything.
            Set<String> kept = new TreeSet<>(alreadyHeld);
            kept.addAll(stored);
            held.stored(vnode, instance, new HeldFiles(directory, kept), false);
            throw e;
        }
    }

    /**
     * Lists again, as the vnode's replica of checkpoint {@code checkpointId}, the instance's
     * snapshot the chain holds whole ({@code listed}): sends only the listing, which names the SST
     * files where the chain holds them and the snapshot's metadata files where its round sent them
     * ({@code chk-<snapshotOf>/}; a holder keeps a checkpoint directory's files while a listing it
     * keeps names them, {@link VnodeReplicaCollector}). A holder that lacks one refuses the
     * listing. Returns the bytes sent: none of the snapshot's.
     *
     * @param scratch a directory of this checkpoint's capture, for the listing file
     */
    long relist(
            long checkpointId,
            int vnode,
            Object instance,
            ListedSnapshots.Listed listed,
            Path scratch)
            throws Exception {
        String base = ReplicaListing.vnodeDirectory(prefix, vnode);
        HeldFiles held =
                this.held
                        .confirmedOf(vnode, instance)
                        .orElseThrow(
                                () ->
                                        new IllegalStateException(
                                                "vnode "
                                                        + vnode
                                                        + ": no round confirmed what the chain"
                                                        + " holds of its instance"));
        List<String> files = new ArrayList<>();
        for (String sst : new TreeSet<>(held.sstFiles())) {
            files.add(held.directory() + "/" + sst);
        }
        for (Path file : ListedSnapshots.metadataFiles(listed)) {
            files.add(metadataPath(listed.snapshotOf(), file.getFileName().toString()));
        }
        Files.createDirectories(scratch);
        sendListing(checkpointId, base, files, scratch);
        return 0;
    }

    /** Where a round of checkpoint {@code checkpointId} puts a metadata file, in its vnode. */
    private static String metadataPath(long checkpointId, String name) {
        return ReplicaListing.CHECKPOINT_PREFIX + checkpointId + "/" + PathSegment.of(name);
    }

    /** Sends the listing of {@code files} last: with it the chain holds the replica whole. */
    private void sendListing(long checkpointId, String base, List<String> files, Path scratch)
            throws Exception {
        Path listingFile = scratch.resolve(LISTING_SCRATCH);
        ReplicaListing.of(lastCompletedCheckpoint.getAsLong(), files).write(listingFile);
        RoundWait.await(
                service.replicate(listingFile, ReplicaListing.path(base, checkpointId), chain),
                timeoutMillis);
    }

    private long send(
            long checkpointId,
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
                String inVnode = metadataPath(checkpointId, name);
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
        try {
            sendListing(checkpointId, base, listed, captured);
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
            return bytes + send(checkpointId, base, directory, Set.of(), files, captured, stored);
        }
        return bytes;
    }
}
