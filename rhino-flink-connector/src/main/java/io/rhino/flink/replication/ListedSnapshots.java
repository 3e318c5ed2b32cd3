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

import java.lang.ref.WeakReference;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The snapshot of each vnode's RocksDB instance whose files a chain received whole in its last
 * round, with that round's listing: a checkpoint that reuses the snapshot of an idle vnode sends
 * the same listing again under its own id instead of capturing the vnode. Every file it names stays
 * where the chain holds it (a holder keeps the files a kept listing names, {@link
 * VnodeReplicaCollector}).
 */
final class ListedSnapshots {

    /**
     * @param snapshotOf the checkpoint whose snapshot of the instance the chain holds
     * @param files the files the round's listing named, relative to the vnode's replica directory
     */
    record Listed(WeakReference<Object> instance, long snapshotOf, List<String> files) {
        Listed {
            files = List.copyOf(files);
        }
    }

    // replaced by the asynchronous phases, one round at a time; read in the task thread
    private final Map<Integer, Listed> byVnode = new ConcurrentHashMap<>();

    /**
     * Whether the chain's last whole round of the vnode's {@code instance} sent its snapshot of
     * {@code snapshotOf}.
     */
    boolean holds(int vnode, Object instance, long snapshotOf) {
        return of(vnode, instance).map(l -> l.snapshotOf() == snapshotOf).orElse(false);
    }

    Optional<Listed> of(int vnode, Object instance) {
        Listed listed = byVnode.get(vnode);
        return listed != null && listed.instance().get() == instance
                ? Optional.of(listed)
                : Optional.empty();
    }

    /**
     * A round gave the chain every file of the instance's snapshot of {@code checkpointId}, listed
     * as {@code files}.
     */
    void replicated(int vnode, Object instance, long checkpointId, List<String> files) {
        byVnode.put(vnode, new Listed(new WeakReference<>(instance), checkpointId, files));
    }

    /** The chain may no longer hold the vnode's last snapshot whole: the next round sends it. */
    void forget(int vnode) {
        byVnode.remove(vnode);
    }

    /** Forgets every vnode but {@code vnodes} (those that left the subtask). */
    void retainOnly(Set<Integer> vnodes) {
        byVnode.keySet().retainAll(vnodes);
    }
}
