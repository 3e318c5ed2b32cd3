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

import io.rhino.replication.store.CommitListener;
import io.rhino.replication.store.ReplicaStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a TaskManager's replica store to what a restore or handover may still read, and never
 * claims a replica it does not have.
 *
 * <ul>
 *   <li>A listing is accepted only if every file it names is stored here: a sender that believed
 *       this member already held a file (it was dropped since, or this member is new in the chain)
 *       learns it from the refusal and sends everything again.
 *   <li>Once a listing is stored, the vnode's older checkpoints go: those before the newest
 *       checkpoint the sender knew completed, keeping that one (and those after it, which may still
 *       complete), then every SST file no kept listing names that arrived before this listing.
 *       Files that arrived after it belong to a checkpoint in flight and stay.
 *   <li>A departure notice ({@link ReplicaListing#departure}) drops the copies its sender made
 *       before the vnode left it, once a checkpoint without the vnode there has completed: the
 *       checkpoints before the departure and the files only they named. Files no listing names
 *       stay, since the vnode's new owner may be sending its first copy to this member.
 * </ul>
 *
 * <p>Runs on the receiving connection's event loop; the work is a few directory listings and
 * unlinks per checkpoint and vnode.
 */
public final class VnodeReplicaCollector implements CommitListener {

    private static final Logger LOG = LoggerFactory.getLogger(VnodeReplicaCollector.class);
    private static final String CHECKPOINT_PREFIX = ReplicaListing.CHECKPOINT_PREFIX;
    private static final String CHECKSUM_SUFFIX = ".crc32c";

    private final ReplicaStore store;

    public VnodeReplicaCollector(ReplicaStore store) {
        this.store = store;
    }

    @Override
    public void beforeCommit(String relativePath, Path file) throws IOException {
        Optional<ReplicaListing.Location> location = ReplicaListing.locate(relativePath);
        if (location.isEmpty()) {
            return;
        }
        ReplicaListing listing = ReplicaListing.read(file);
        List<String> missing = new ArrayList<>();
        for (String name : listing.files()) {
            if (store.file(location.get().vnodeDirectory() + "/" + name).isEmpty()) {
                missing.add(name);
            }
        }
        if (!missing.isEmpty()) {
            throw new IOException(
                    "the replica of "
                            + location.get().vnodeDirectory()
                            + " as of checkpoint "
                            + location.get().checkpoint()
                            + " is incomplete here: "
                            + missing.size()
                            + " of its files are missing (first: "
                            + missing.get(0)
                            + "); the sender has to send them again");
        }
    }

    @Override
    public void committed(String relativePath) {
        ReplicaListing.locate(relativePath)
                .ifPresent(
                        location -> {
                            try {
                                collect(location);
                            } catch (IOException e) {
                                LOG.warn(
                                        "Could not drop old replicas of {}: {}",
                                        location.vnodeDirectory(),
                                        e.toString());
                            }
                        });
    }

    private void collect(ReplicaListing.Location newest) throws IOException {
        String vnodeDirectory = newest.vnodeDirectory();
        Path directory = store.resolve(vnodeDirectory);
        Path newestListing =
                store.resolve(
                        newest.departure()
                                ? ReplicaListing.departurePath(vnodeDirectory, newest.checkpoint())
                                : ReplicaListing.path(vnodeDirectory, newest.checkpoint()));
        ReplicaListing latest = ReplicaListing.read(newestListing);
        FileTime cutoff = Files.getLastModifiedTime(newestListing);

        TreeMap<Long, ReplicaListing> listings = new TreeMap<>();
        List<Long> incomplete = new ArrayList<>();
        for (Path checkpoint : children(directory, CHECKPOINT_PREFIX)) {
            long id;
            try {
                id =
                        Long.parseLong(
                                checkpoint
                                        .getFileName()
                                        .toString()
                                        .substring(CHECKPOINT_PREFIX.length()));
            } catch (NumberFormatException e) {
                continue;
            }
            Path listing = checkpoint.resolve(ReplicaListing.NAME);
            if (store.file(relative(listing)).isPresent()) {
                listings.put(id, ReplicaListing.read(listing));
            } else {
                incomplete.add(id);
            }
        }
        Set<Long> kept = keptCheckpoints(listings, latest, newest.checkpoint());
        Set<String> referenced = new HashSet<>();
        for (long id : kept) {
            referenced.addAll(listings.get(id).files());
        }
        int dropped = 0;
        for (long id : listings.keySet()) {
            if (!kept.contains(id)) {
                dropCheckpoint(vnodeDirectory, id, referenced);
                dropped++;
            }
        }
        for (long id : incomplete) {
            // a round that failed before its listing; later rounds are still in flight
            if (id < newest.checkpoint()) {
                dropCheckpoint(vnodeDirectory, id, referenced);
            }
        }
        // A departure removes only what the checkpoints it dropped named: the vnode's new owner
        // may be sending its first copy here meanwhile, files no listing names yet.
        Set<String> departed = null;
        if (newest.departure()) {
            departed = new HashSet<>();
            for (Map.Entry<Long, ReplicaListing> listing : listings.entrySet()) {
                if (!kept.contains(listing.getKey())) {
                    departed.addAll(listing.getValue().files());
                }
            }
        }
        int deletedFiles = 0;
        for (Path instance : children(directory, ReplicaListing.INSTANCE_PREFIX)) {
            for (Path file : children(instance, "")) {
                String name = file.getFileName().toString();
                String inVnode = instance.getFileName() + "/" + name;
                if (name.endsWith(CHECKSUM_SUFFIX)
                        || name.contains(".part-")
                        || referenced.contains(inVnode)
                        || (departed != null && !departed.contains(inVnode))
                        || Files.getLastModifiedTime(file).compareTo(cutoff) > 0) {
                    continue;
                }
                store.delete(vnodeDirectory + "/" + inVnode);
                deletedFiles++;
            }
            try (Stream<Path> left = Files.list(instance)) {
                if (left.findAny().isEmpty()) {
                    Files.deleteIfExists(instance);
                }
            }
        }
        if (dropped > 0 || deletedFiles > 0) {
            LOG.debug(
                    "{}: dropped {} old checkpoints and {} unreferenced files, keeping checkpoints {}",
                    vnodeDirectory,
                    dropped,
                    deletedFiles,
                    kept);
        }
    }

    /**
     * Deletes checkpoint {@code id}'s directory of the vnode, its listing included, but the
     * metadata files a kept listing names: a checkpoint that reused the vnode's snapshot lists them
     * where the snapshot's round sent them ({@link VnodeChainRound#relist}).
     */
    private void dropCheckpoint(String vnodeDirectory, long id, Set<String> referenced)
            throws IOException {
        String directory = ReplicaListing.checkpointDirectory(vnodeDirectory, id);
        String inVnode = CHECKPOINT_PREFIX + id + "/";
        if (referenced.stream().noneMatch(file -> file.startsWith(inVnode))) {
            store.deleteTree(directory);
            return;
        }
        for (Path file : children(store.resolve(directory), "")) {
            String name = file.getFileName().toString();
            if (!name.endsWith(CHECKSUM_SUFFIX) && !referenced.contains(inVnode + name)) {
                store.delete(directory + "/" + name);
            }
        }
    }

    /**
     * The checkpoints a vnode's holder keeps after the listing of {@code newest}: every listing
     * from the newest completed checkpoint on (later ones may still complete), the newest listing
     * up to it (the replica of the checkpoint a restore would read), everything while no checkpoint
     * is known to be complete. After a departure notice, the copies from before the departure go.
     */
    static Set<Long> keptCheckpoints(
            TreeMap<Long, ReplicaListing> listings, ReplicaListing latest, long newest) {
        Set<Long> kept = new HashSet<>(listings.keySet());
        long completed = latest.completedCheckpoint();
        if (completed < 0) {
            return kept;
        }
        Long floor = listings.floorKey(completed);
        long from =
                floor == null || (latest.isDeparture() && floor < latest.departedAt())
                        ? completed
                        : floor;
        kept.removeIf(id -> id < from && id != newest);
        return kept;
    }

    private String relative(Path path) {
        return store.root().relativize(path).toString().replace('\\', '/');
    }

    private static List<Path> children(Path directory, String prefix) throws IOException {
        if (!Files.isDirectory(directory)) {
            return List.of();
        }
        try (Stream<Path> children = Files.list(directory)) {
            return children.filter(p -> p.getFileName().toString().startsWith(prefix)).toList();
        }
    }
}
