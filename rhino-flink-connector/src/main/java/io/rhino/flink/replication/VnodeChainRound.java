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

import io.rhino.flink.replication.ChainHeldFiles.HeldMetadata;
import io.rhino.flink.replication.PeerVnodeReplication.HeldFiles;
import io.rhino.flink.state.PathSegment;
import io.rhino.replication.PeerAddress;
import io.rhino.replication.ReplicationService;
import io.rhino.replication.RoundWait;
import io.rhino.replication.WindowedRound;
import io.rhino.replication.store.ReplicaStore;
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
    private static final String LISTING_SCRATCH = ReplicaListing.NAME + ".local";

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
     * What a round sent.
     *
     * @param bytes the bytes sent
     * @param listing the files its listing named, relative to the vnode's replica directory
     */
    record Sent(long bytes, List<String> listing) {}

    /** What {@link #send} sent, and where the chain now holds the instance's metadata files. */
    private record Round(long bytes, List<String> listing, Map<String, HeldMetadata> metadata) {}

    /**
     * Sends what the chain lacks of the vnode's RocksDB instance {@code instance}, captured in
     * {@code captured}, then its listing. A metadata file the chain's last confirmed round of the
     * instance sent with the same contents (RocksDB's {@code OPTIONS} and {@code CURRENT} rarely
     * change) is listed where that round put it, not sent again.
     */
    Sent replicate(long checkpointId, int vnode, Object instance, Path captured) throws Exception {
        String base = ReplicaListing.vnodeDirectory(prefix, vnode);
        Optional<HeldFiles> before = held.of(vnode, instance);
        String directory =
                before.map(HeldFiles::directory).orElseGet(ReplicaListing::newInstanceDirectory);
        Set<String> alreadyHeld = before.map(HeldFiles::sstFiles).orElse(Set.of());
        Map<String, HeldMetadata> metadataHeld = held.confirmedMetadataOf(vnode, instance);
        List<Path> files;
        try (Stream<Path> list = Files.list(captured)) {
            files = list.sorted().toList();
        }
        // SST files every member stored in this round, kept if the round fails
        Set<String> stored = ConcurrentHashMap.newKeySet();
        try {
            Round round =
                    send(
                            checkpointId,
                            base,
                            directory,
                            alreadyHeld,
                            metadataHeld,
                            files,
                            captured,
                            stored);
            Set<String> nowHeld = new TreeSet<>();
            files.stream()
                    .map(f -> f.getFileName().toString())
                    .filter(name -> name.endsWith(".sst"))
                    .forEach(nowHeld::add);
            held.stored(vnode, instance, new HeldFiles(directory, nowHeld), true, round.metadata());
            return new Sent(round.bytes(), round.listing());
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
     * snapshot the chain holds whole ({@code listed}): sends only the listing of its round, whose
     * files stay where the chain holds them (a holder keeps the files a kept listing names, {@link
     * VnodeReplicaCollector}). A holder that lacks one refuses the listing. Returns the bytes sent:
     * none of the snapshot's.
     *
     * @param listingFile where to write the listing before it is sent
     */
    long relist(long checkpointId, int vnode, ListedSnapshots.Listed listed, Path listingFile)
            throws Exception {
        sendListing(
                checkpointId,
                ReplicaListing.vnodeDirectory(prefix, vnode),
                listed.files(),
                listingFile);
        return 0;
    }

    /** Where a round of checkpoint {@code checkpointId} puts a metadata file, in its vnode. */
    private static String metadataPath(long checkpointId, String name) {
        return ReplicaListing.CHECKPOINT_PREFIX + checkpointId + "/" + PathSegment.of(name);
    }

    /** Sends the listing of {@code files} last: with it the chain holds the replica whole. */
    private void sendListing(long checkpointId, String base, List<String> files, Path listingFile)
            throws Exception {
        ReplicaListing.of(lastCompletedCheckpoint.getAsLong(), files).write(listingFile);
        RoundWait.await(
                service.replicate(listingFile, ReplicaListing.path(base, checkpointId), chain),
                timeoutMillis);
    }

    private Round send(
            long checkpointId,
            String base,
            String directory,
            Set<String> alreadyHeld,
            Map<String, HeldMetadata> metadataHeld,
            List<Path> files,
            Path captured,
            Set<String> stored)
            throws Exception {
        Map<String, Path> toSend = new LinkedHashMap<>();
        List<String> listed = new ArrayList<>();
        Map<String, HeldMetadata> metadata = new LinkedHashMap<>();
        for (Path file : files) {
            String name = file.getFileName().toString();
            if (name.endsWith(".sst")) {
                String inVnode = directory + "/" + name;
                listed.add(inVnode);
                if (!alreadyHeld.contains(name)) {
                    toSend.put(base + "/" + inVnode, file);
                }
                continue;
            }
            HeldMetadata now =
                    new HeldMetadata(
                            metadataPath(checkpointId, name),
                            Files.size(file),
                            ReplicaStore.crc32c(file));
            HeldMetadata before = metadataHeld.get(name);
            if (before != null && before.size() == now.size() && before.crc() == now.crc()) {
                now = before;
            } else {
                toSend.put(base + "/" + now.path(), file);
            }
            listed.add(now.path());
            metadata.put(name, now);
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
            sendListing(checkpointId, base, listed, captured.resolve(LISTING_SCRATCH));
        } catch (ExecutionException e) {
            if (alreadyHeld.isEmpty() && metadataHeld.isEmpty()) {
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
            Round again =
                    send(
                            checkpointId,
                            base,
                            directory,
                            Set.of(),
                            Map.of(),
                            files,
                            captured,
                            stored);
            return new Round(bytes + again.bytes(), again.listing(), again.metadata());
        }
        return new Round(bytes, listed, metadata);
    }
}
