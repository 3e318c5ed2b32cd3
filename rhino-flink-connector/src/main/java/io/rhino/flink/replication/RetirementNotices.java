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
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells the former holders of a subtask's copies outside its chain to drop them, once the chain
 * holds a completed checkpoint. Changed only within the replication's round lock; read without it.
 */
final class RetirementNotices {

    private static final Logger LOG = LoggerFactory.getLogger(RetirementNotices.class);

    private final ReplicationService service;
    private final String prefix;

    // former holders, and the vnodes they may hold
    private volatile Set<PeerAddress> members = Set.of();
    private volatile Set<Integer> vnodes = Set.of();
    // the first checkpoint the chain replicated, -1 before
    private long firstReplicated = -1;

    RetirementNotices(ReplicationService service, String prefix) {
        this.service = service;
        this.prefix = prefix;
    }

    /** Adds former holders {@code formerMembers}, which may hold copies of {@code formerVnodes}. */
    void add(Set<PeerAddress> formerMembers, Set<Integer> formerVnodes) {
        Set<PeerAddress> all = new LinkedHashSet<>(members);
        all.addAll(formerMembers);
        Set<Integer> allVnodes = new TreeSet<>(vnodes);
        allVnodes.addAll(formerVnodes);
        members = all;
        vnodes = allVnodes;
    }

    Set<PeerAddress> members() {
        return members;
    }

    Set<Integer> vnodes() {
        return vnodes;
    }

    /** Notes that the chain replicated checkpoint {@code checkpointId}. */
    void replicated(long checkpointId) {
        if (firstReplicated < 0) {
            firstReplicated = checkpointId;
        }
    }

    /**
     * Once the chain holds a completed checkpoint, tells the former holders outside it to drop this
     * subtask's old copies: a departure notice per vnode as of the chain's first checkpoint, so
     * copies that another subtask made since stay. Best effort, without waiting: a former holder is
     * often a TaskManager that is gone.
     *
     * @param directory this round's capture directory, for the notices
     */
    void announce(long checkpointId, long completed, Path directory) throws IOException {
        if (members.isEmpty() || completed < firstReplicated) {
            return;
        }
        for (int vnode : vnodes) {
            Path notice = Files.createDirectories(directory).resolve("retired-" + vnode + ".local");
            ReplicaListing.departure(completed, firstReplicated).write(notice);
            String path =
                    ReplicaListing.departurePath(
                            ReplicaListing.vnodeDirectory(prefix, vnode), checkpointId);
            for (PeerAddress member : members) {
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
                members,
                vnodes);
        members = Set.of();
        vnodes = Set.of();
    }
}
