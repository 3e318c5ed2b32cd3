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

import io.rhino.flink.state.RestoreSource;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/** The vnodes a restore took from replicas and their bytes: linked in all, fetched from peers. */
final class RestoreCounts {

    private final Set<Integer> linkedVnodes = new TreeSet<>();
    private final Set<Integer> fetchedVnodes = new TreeSet<>();
    private long linkedBytes;
    private long fetchedBytes;

    synchronized void linked(int vnode, long bytes) {
        linkedVnodes.add(vnode);
        linkedBytes += bytes;
    }

    synchronized void fetched(int vnode, long bytes) {
        fetchedVnodes.add(vnode);
        fetchedBytes += bytes;
    }

    synchronized int restoredVnodes() {
        return linkedVnodes.size();
    }

    /** Where each vnode restored from a replica took it: this TaskManager or a peer. */
    synchronized Map<Integer, RestoreSource> sources() {
        Map<Integer, RestoreSource> sources = new TreeMap<>();
        for (int vnode : linkedVnodes) {
            sources.put(
                    vnode,
                    fetchedVnodes.contains(vnode)
                            ? RestoreSource.PEER_REPLICA
                            : RestoreSource.REPLICA);
        }
        return sources;
    }

    synchronized long linkedBytes() {
        return linkedBytes;
    }

    synchronized int fetchedVnodes() {
        return fetchedVnodes.size();
    }

    synchronized long fetchedBytes() {
        return fetchedBytes;
    }
}
