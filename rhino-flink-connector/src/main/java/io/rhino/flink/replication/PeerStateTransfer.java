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

import io.rhino.core.handover.HandoverId;
import io.rhino.flink.handover.StateTransfer;
import io.rhino.flink.state.FileLinks;
import io.rhino.flink.state.PathSegment;
import io.rhino.flink.state.UploadedFiles;
import io.rhino.flink.state.VnodeExport;
import io.rhino.flink.state.VnodeInstallTarget;
import io.rhino.flink.state.VnodeKeyedStateBackend;
import io.rhino.flink.state.VnodeReplication;
import io.rhino.replication.PeerAddress;
import io.rhino.replication.ReplicationService;
import io.rhino.replication.RoundWait;
import java.io.File;
import java.io.IOException;
import java.io.Serializable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.util.FileUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves a vnode between TaskManagers over the replication protocol. The origin exports the vnode as
 * for a local handover, then sends the target's TaskManager only what it does not hold already:
 * when that TaskManager is in the origin's replica chain, it holds every SST file of the origin's
 * last replicated checkpoint, and only the files written since (the delta) and the small metadata
 * files travel. The target assembles the vnode from its replica store by hard links (copies if the
 * store is on another filesystem) and installs it.
 *
 * <p>Between subtasks of one TaskManager the configured transfer runs instead. Built by each gate
 * at run time; never serialized.
 */
public final class PeerStateTransfer implements StateTransfer {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(PeerStateTransfer.class);
    private static final String METADATA = "_metadata";

    private final transient StateTransfer sameTaskManager;
    private final transient ReplicationService service;
    private final transient Function<Integer, String> serviceOfSubtask;
    private final transient Supplier<PeerVnodeReplication> replication;
    private final String prefix;
    private final long timeoutMillis;

    /**
     * What the target installs from: where each RocksDB file of the vnode is in the target's
     * replica store, and its size.
     *
     * @param files the store path of each file of the RocksDB directory, by file name
     * @param sizes each file's size, by file name
     * @param metadata the store path of Flink's metadata file of the export
     * @param shipped the store directory of the files sent for this handover, deleted once
     *     installed
     * @param keyGroupRange the vnode's key groups
     * @param uploaded the files a completed checkpoint already holds
     * @param holders which replication services keep which of the vnode's SST files, for the
     *     target's replication to skip what its chain holds
     */
    record PeerShipment(
            Map<String, String> files,
            Map<String, Long> sizes,
            String metadata,
            String shipped,
            KeyGroupRange keyGroupRange,
            UploadedFiles uploaded,
            ReplicaHolders holders)
            implements Serializable {}

    /**
     * Who keeps the moved vnode's SST files after a handover, all in {@code directory} of its
     * replica directory: the origin's TaskManager ({@code origin}) all of them, by hard links of
     * the export, and the members of the origin's chain ({@code chain}) those its last round
     * confirmed ({@code chainFiles}).
     */
    record ReplicaHolders(
            String directory,
            String origin,
            Set<String> originFiles,
            List<String> chain,
            Set<String> chainFiles)
            implements Serializable {

        ReplicaHolders {
            originFiles = Set.copyOf(originFiles);
            chain = List.copyOf(chain);
            chainFiles = Set.copyOf(chainFiles);
        }

        /**
         * What every member of {@code targetChain} keeps of the vnode, or empty if some member
         * keeps none of it (the target's next round then sends everything, as without a seed).
         */
        Optional<VnodeReplication.HeldReplica> heldBy(List<PeerAddress> targetChain) {
            Set<String> common = null;
            for (PeerAddress member : targetChain) {
                String address = member.toString();
                Set<String> kept =
                        address.equals(origin)
                                ? originFiles
                                : chain.contains(address) ? chainFiles : Set.of();
                if (common == null) {
                    common = new TreeSet<>(kept);
                } else {
                    common.retainAll(kept);
                }
            }
            return common == null || common.isEmpty()
                    ? Optional.empty()
                    : Optional.of(new VnodeReplication.HeldReplica(directory, common));
        }
    }

    /**
     * @param sameTaskManager the transfer between subtasks of one TaskManager
     * @param serviceOfSubtask the replication service ("host:port") of a gate subtask's
     *     TaskManager, null if unknown
     * @param replication this subtask's current checkpoint replication, null if none
     * @param prefix the job and operator part of replica paths
     */
    public PeerStateTransfer(
            StateTransfer sameTaskManager,
            ReplicationService service,
            Function<Integer, String> serviceOfSubtask,
            Supplier<PeerVnodeReplication> replication,
            String prefix,
            long timeoutMillis) {
        this.sameTaskManager = sameTaskManager;
        this.service = service;
        this.serviceOfSubtask = serviceOfSubtask;
        this.replication = replication;
        this.prefix = prefix;
        this.timeoutMillis = timeoutMillis;
    }

    @Override
    public Shipment ship(
            VnodeKeyedStateBackend<?> origin, int vnode, int targetSubtask, HandoverId handover)
            throws Exception {
        String targetService = serviceOfSubtask.apply(targetSubtask);
        if (targetService == null || targetService.equals(service.address().toString())) {
            return sameTaskManager.ship(origin, vnode, targetSubtask, handover);
        }
        PeerAddress target = PeerAddress.parse(targetService);
        // read once: a chain change meanwhile must not mix two chains in one shipment
        PeerVnodeReplication current = replication.get();
        List<PeerAddress> chain = current == null ? List.of() : current.chain();
        // what this subtask's chain confirmed it holds of the vnode, wherever the target is
        Optional<PeerVnodeReplication.HeldFiles> chainHeld =
                current == null
                        ? Optional.empty()
                        : current.heldOf(vnode, origin.vnodeBackend(vnode));
        // what the target holds as a member of that chain
        Optional<PeerVnodeReplication.HeldFiles> held =
                chain.contains(target) ? chainHeld : Optional.empty();
        String replicaDirectory =
                chainHeld
                        .map(PeerVnodeReplication.HeldFiles::directory)
                        .orElseGet(ReplicaListing::newInstanceDirectory);
        String vnodeDirectory = ReplicaListing.vnodeDirectory(prefix, vnode);
        String shipped = prefix + "/handover-" + PathSegment.of(handover.value()) + "-" + vnode;
        File exportDirectory =
                new File(
                        origin.transferDirectory(), handover.value() + "-vnode-" + vnode + "-peer");
        VnodeExport export = origin.exportVnode(vnode, exportDirectory.toPath());
        try {
            Map<String, String> files = new LinkedHashMap<>();
            Map<String, Long> sizes = new LinkedHashMap<>();
            Map<String, Path> toSend = new LinkedHashMap<>();
            // every SST file of the export, which this TaskManager keeps as a replica
            Map<String, Path> toAdopt = new LinkedHashMap<>();
            Set<String> originFiles = new TreeSet<>();
            Set<String> chainFiles = new TreeSet<>();
            try (Stream<Path> db = Files.list(export.dbDirectory())) {
                for (Path file : db.sorted().toList()) {
                    String name = file.getFileName().toString();
                    sizes.put(name, Files.size(file));
                    String replica = vnodeDirectory + "/" + replicaDirectory + "/" + name;
                    if (name.endsWith(".sst")) {
                        toAdopt.put(replica, file);
                        originFiles.add(name);
                        if (chainHeld.isPresent() && chainHeld.get().sstFiles().contains(name)) {
                            chainFiles.add(name);
                        }
                    }
                    if (held.isPresent() && held.get().sstFiles().contains(name)) {
                        files.put(name, replica);
                    } else {
                        String path = shipped + "/" + PathSegment.of(name);
                        files.put(name, path);
                        toSend.put(path, file);
                    }
                }
            }
            String metadata = shipped + "/" + METADATA;
            toSend.put(metadata, export.metadataFile());
            long sentBytes = 0;
            for (Path file : toSend.values()) {
                sentBytes += Files.size(file);
            }
            RoundWait.await(service.replicateAll(toSend, List.of(target)), timeoutMillis);
            // The target's first checkpoint would send the vnode's files down its own chain. This
            // TaskManager, which the target's chain may include, keeps them as a replica: hard
            // links of the export, linked now and checksummed in the background. Members of this
            // subtask's chain keep what they hold under the same directory.
            service.adopt(toAdopt);
            ReplicaHolders holders =
                    new ReplicaHolders(
                            replicaDirectory,
                            service.address().toString(),
                            originFiles,
                            chain.stream().map(PeerAddress::toString).toList(),
                            chainFiles);
            LOG.info(
                    "Vnode {} shipped to {}: {} of {} files sent ({} bytes), {} already held there",
                    vnode,
                    target,
                    toSend.size(),
                    files.size() + 1,
                    sentBytes,
                    files.size() + 1 - toSend.size());
            return new Shipment(
                    new PeerShipment(
                            files,
                            sizes,
                            metadata,
                            shipped,
                            export.handle().getKeyGroupRange(),
                            export.uploaded(),
                            holders),
                    export.copiedBytes(),
                    sentBytes);
        } finally {
            export.delete();
        }
    }

    @Override
    public Leftovers install(VnodeInstallTarget target, int vnode, Serializable payload)
            throws Exception {
        if (!(payload instanceof PeerShipment shipment)) {
            return sameTaskManager.install(target, vnode, payload);
        }
        Path assembled =
                target.transferDirectory()
                        .toPath()
                        .resolve("installing-" + shipment.shipped().replace('/', '_'));
        Path db = Files.createDirectories(assembled.resolve("db"));
        try {
            for (Map.Entry<String, String> file : shipment.files().entrySet()) {
                place(
                        file.getValue(),
                        shipment.sizes().get(file.getKey()),
                        db.resolve(file.getKey()));
            }
            Path metadata = assembled.resolve("metadata");
            place(shipment.metadata(), null, metadata);
            target.installMovedVnode(
                    vnode,
                    VnodeExport.localHandle(
                            db, metadata, shipment.keyGroupRange(), shipment.uploaded()),
                    Optional.ofNullable(replication.get())
                            .flatMap(current -> shipment.holders().heldBy(current.chain()))
                            .orElse(null));
        } catch (Exception e) {
            FileUtils.deleteDirectoryQuietly(assembled.toFile());
            throw e;
        }
        return () -> {
            FileUtils.deleteDirectoryQuietly(assembled.toFile());
            service.store().deleteTree(shipment.shipped());
        };
    }

    /** Links (or copies) a stored file to {@code target}, checking it is there and whole. */
    private void place(String storePath, Long expectedSize, Path target) throws IOException {
        Path source =
                service.store()
                        .file(storePath)
                        .orElseThrow(
                                () ->
                                        new IOException(
                                                "The replica file '"
                                                        + storePath
                                                        + "' is not in this TaskManager's store ("
                                                        + service.store().root()
                                                        + "); installing vnode fails and the job"
                                                        + " restarts from its last checkpoint"));
        if (expectedSize != null && Files.size(source) != expectedSize) {
            throw new IOException(
                    "The replica file '"
                            + storePath
                            + "' has "
                            + Files.size(source)
                            + " bytes, the origin's "
                            + expectedSize
                            + "; installing vnode fails and the job restarts from its last checkpoint");
        }
        FileLinks.linkOrCopy(source, target);
    }
}
