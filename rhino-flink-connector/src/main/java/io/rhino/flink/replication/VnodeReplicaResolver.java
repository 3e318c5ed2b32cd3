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

import io.rhino.flink.state.RestoreFromReplicas.Seed;
import io.rhino.replication.store.ReplicaStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.runtime.state.IncrementalKeyedStateHandle.HandleAndLocalPath;
import org.apache.flink.runtime.state.IncrementalRemoteKeyedStateHandle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds the files of a vnode's replica of the checkpoint Flink restores, on this TaskManager's
 * store (whole and undamaged) or else fetched from a peer, and accepts them only if they match
 * Flink's handle; remembers the SST files of each accepted replica as the vnode's seed. A stored
 * file is checked against its checksum before the vnode opens, or, with checks after the open,
 * handed to them unless a restore opened it unchecked before and no check has passed since.
 */
final class VnodeReplicaResolver {

    private static final Logger LOG = LoggerFactory.getLogger(VnodeReplicaResolver.class);

    private final ReplicaStore store;
    private final PeerReplicaFetcher fetcher;
    private final RestoreCounts counts;
    private final String operatorPrefix;
    private final ReplicaChecksAfterOpen checksAfterOpen; // null: every file checked before
    private final Map<Integer, Seed> seeds = new ConcurrentHashMap<>(); // vnodes resolve at once

    VnodeReplicaResolver(
            ReplicaStore store,
            PeerReplicaFetcher fetcher,
            RestoreCounts counts,
            String operatorPrefix,
            ReplicaChecksAfterOpen checksAfterOpen) {
        this.store = store;
        this.fetcher = fetcher;
        this.counts = counts;
        this.operatorPrefix = operatorPrefix;
        this.checksAfterOpen = checksAfterOpen;
    }

    /** The seed of a vnode whose replica was accepted, if its SST files share one instance. */
    Optional<Seed> seedOf(int vnode) {
        return Optional.ofNullable(seeds.get(vnode));
    }

    /** The replica's files by RocksDB file name, if it is whole and matches Flink's handle. */
    Optional<Map<String, Path>> replicaOf(int vnode, IncrementalRemoteKeyedStateHandle remote)
            throws IOException {
        String vnodeDirectory = ReplicaListing.vnodeDirectory(operatorPrefix, vnode);
        Optional<Path> listingFile =
                store.file(ReplicaListing.path(vnodeDirectory, remote.getCheckpointId()));
        Map<String, Path> files;
        List<String> listedFiles;
        List<String> unchecked = new ArrayList<>();
        if (listingFile.isPresent()) {
            files = new HashMap<>();
            listedFiles = ReplicaListing.read(listingFile.get()).files();
            for (String listed : listedFiles) {
                String stored = vnodeDirectory + "/" + listed;
                Optional<Path> file = store.file(stored);
                if (file.isEmpty()) {
                    return unusable(vnode, remote, "it lacks " + listed);
                }
                if (checksAfterOpen != null && !store.mustCheckBeforeOpening(stored)) {
                    unchecked.add(stored);
                } else if (!store.verify(stored)) {
                    // a copy damaged on this disk since it arrived: never restored from
                    return unusable(vnode, remote, listed + " is damaged (checksum mismatch)");
                }
                files.put(ReplicaListing.fileName(listed), file.get());
            }
        } else {
            Optional<PeerReplicaFetcher.Fetched> fetched =
                    fetcher.fetch(vnode, vnodeDirectory, remote);
            if (fetched.isEmpty()) {
                return Optional.empty();
            }
            counts.fetched(vnode, fetched.get().bytes());
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
        if (!unchecked.isEmpty()) {
            checksAfterOpen.add(unchecked);
        }
        return Optional.of(files);
    }

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

    private static Optional<Map<String, Path>> unusable(
            int vnode, IncrementalRemoteKeyedStateHandle remote, String why) {
        LOG.info(
                "Vnode {}: this TaskManager's replica of checkpoint {} is not used: {}",
                vnode,
                remote.getCheckpointId(),
                why);
        return Optional.empty();
    }
}
