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

package io.rhino.flink.state;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the replicas this subtask restored from still hold, for the replication it starts next to
 * build on: the files of vnodes built from a replica, and the holders of the restored checkpoint.
 */
final class ReplicaSeeds {

    private record Seed(Object instance, String directory, Set<String> sstFiles) {}

    private final Map<Integer, Seed> seeds = new HashMap<>();
    private List<String> restoredHolders = List.of();

    /** The restored checkpoint's copies lie with these replication services. */
    void restoredFrom(List<String> holders) {
        restoredHolders = List.copyOf(holders);
    }

    /** The vnode's {@code instance} was built from the replica files {@code sstFiles}. */
    void seed(int vnode, Object instance, String directory, Set<String> sstFiles) {
        seeds.put(vnode, new Seed(instance, directory, Set.copyOf(sstFiles)));
    }

    /** The vnode left this subtask: its seed no longer applies. */
    void forget(int vnode) {
        seeds.remove(vnode);
    }

    /**
     * Tells a replication starting now what it may build on: it retires the restored copies on
     * holders of its own choosing (once), and skips the files of seeds whose vnode still runs the
     * instance built from them.
     */
    void handTo(VnodeReplication replication, OwnedVnodes<?> owned) {
        if (!restoredHolders.isEmpty()) {
            // the copies of the restored checkpoint, on holders the new chain may not include
            replication.retire(restoredHolders, owned.vnodeSet());
            restoredHolders = List.of();
        }
        seeds.forEach(
                (vnode, seed) -> {
                    if (owned.owns(vnode) && owned.instance(vnode) == seed.instance()) {
                        replication.seed(vnode, seed.instance(), seed.directory(), seed.sstFiles());
                    }
                });
    }
}
