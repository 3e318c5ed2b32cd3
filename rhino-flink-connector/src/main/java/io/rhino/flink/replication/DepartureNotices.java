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
import io.rhino.replication.RoundWait;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells a chain which vnodes whose copies it holds left this subtask, once a completed checkpoint
 * no longer needs them, so it drops those copies.
 */
final class DepartureNotices {

    private static final Logger LOG = LoggerFactory.getLogger(DepartureNotices.class);

    private final ReplicationService service;
    private final List<PeerAddress> chain;
    private final String prefix;
    private final long timeoutMillis;
    private final ChainHeldFiles held;

    // vnodes whose copies the chain holds but this subtask no longer has, and the first
    // checkpoint without them; written in replication rounds, read by handovers
    private final Map<Integer, Long> departedAt = new ConcurrentHashMap<>();

    DepartureNotices(
            ReplicationService service,
            List<PeerAddress> chain,
            String prefix,
            long timeoutMillis,
            ChainHeldFiles held) {
        this.service = service;
        this.chain = chain;
        this.prefix = prefix;
        this.timeoutMillis = timeoutMillis;
        this.held = held;
    }

    /** Notes the vnodes the chain holds that checkpoint {@code checkpointId} lacks. */
    void checkpointHas(long checkpointId, Set<Integer> vnodes) {
        for (int vnode : held.vnodes()) {
            if (!vnodes.contains(vnode)) {
                departedAt.putIfAbsent(vnode, checkpointId);
            }
        }
        departedAt.keySet().removeAll(vnodes);
    }

    /** The vnodes that left and whose copies the chain was not told to drop yet. */
    Set<Integer> vnodes() {
        return departedAt.keySet();
    }

    /**
     * Tells the chain which vnodes left this subtask before the last completed checkpoint, so it
     * drops their copies. Best effort: a failed notice is sent again next time.
     *
     * @param directory this round's capture directory, for the notices
     */
    void announce(long checkpointId, long completed, Path directory) throws Exception {
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
                                notice, ReplicaListing.departurePath(base, checkpointId), chain),
                        timeoutMillis);
                departedAt.remove(vnode);
                held.forget(vnode);
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
}
