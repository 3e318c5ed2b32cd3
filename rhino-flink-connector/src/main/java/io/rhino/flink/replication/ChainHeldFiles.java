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
import java.lang.ref.WeakReference;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The SST files a chain holds of each vnode's RocksDB instance, as its replication rounds stored
 * them or a restore seeded them, and where its last confirmed round listed the instance's metadata
 * files. A vnode that moved away and back is a new RocksDB instance whose file names may repeat
 * with other contents: a new instance starts from nothing.
 */
final class ChainHeldFiles {

    /**
     * A metadata file of the instance (RocksDB's {@code OPTIONS}, {@code CURRENT}, ...) as a
     * confirmed round listed it: a later round whose file has the same name, size and checksum
     * lists it there again instead of sending it.
     *
     * @param path where the chain holds it, relative to the vnode's replica directory
     */
    record HeldMetadata(String path, long size, int crc) {}

    /**
     * @param confirmed whether a round of this chain stored the files; a seeded guess is not, until
     *     the next round (a member lacking a file refuses its listing then, and the round sends
     *     everything)
     */
    private record Held(
            WeakReference<Object> instance,
            HeldFiles files,
            boolean confirmed,
            Map<String, HeldMetadata> metadata) {}

    // replaced (never changed) by the asynchronous phases, one round at a time, and read by
    // handovers in the task thread
    private final Map<Integer, Held> byVnode = new ConcurrentHashMap<>();

    /** What a round of this chain confirmed it holds of the vnode's instance {@code instance}. */
    Optional<HeldFiles> confirmedOf(int vnode, Object instance) {
        Held held = byVnode.get(vnode);
        return held != null && held.confirmed() && held.instance().get() == instance
                ? Optional.of(held.files())
                : Optional.empty();
    }

    /**
     * The instance's metadata files, by name, as the last round of this chain confirmed them; empty
     * without one.
     */
    Map<String, HeldMetadata> confirmedMetadataOf(int vnode, Object instance) {
        Held held = byVnode.get(vnode);
        return held != null && held.confirmed() && held.instance().get() == instance
                ? held.metadata()
                : Map.of();
    }

    /** What the chain holds of the vnode's instance {@code instance}, confirmed or not. */
    Optional<HeldFiles> of(int vnode, Object instance) {
        Held held = byVnode.get(vnode);
        return held != null && held.instance().get() == instance
                ? Optional.of(held.files())
                : Optional.empty();
    }

    /**
     * An unconfirmed guess of what the chain holds, unless the holdings of the vnode's instance
     * {@code instance} are known (those of an instance the vnode had before, which left this
     * subtask and came back, are not).
     */
    void seed(int vnode, Object instance, HeldFiles files) {
        byVnode.compute(
                vnode,
                (v, known) ->
                        known != null && known.instance().get() == instance
                                ? known
                                : new Held(new WeakReference<>(instance), files, false, Map.of()));
    }

    /**
     * What the chain holds of the vnode's instance after a round, confirmed or kept of a failed
     * one.
     */
    void stored(int vnode, Object instance, HeldFiles files, boolean confirmed) {
        stored(vnode, instance, files, confirmed, Map.of());
    }

    /**
     * As {@link #stored(int, Object, HeldFiles, boolean)}, with where the round listed metadata.
     */
    void stored(
            int vnode,
            Object instance,
            HeldFiles files,
            boolean confirmed,
            Map<String, HeldMetadata> metadata) {
        byVnode.put(
                vnode,
                new Held(new WeakReference<>(instance), files, confirmed, Map.copyOf(metadata)));
    }

    void forget(int vnode) {
        byVnode.remove(vnode);
    }

    /** The vnodes the chain holds files of. */
    Set<Integer> vnodes() {
        return Collections.unmodifiableSet(byVnode.keySet());
    }
}
