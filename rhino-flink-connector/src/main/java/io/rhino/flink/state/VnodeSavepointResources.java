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

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.runtime.state.FullSnapshotResources;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyValueStateIterator;
import org.apache.flink.runtime.state.StreamCompressionDecorator;
import org.apache.flink.runtime.state.UncompressedStreamCompressionDecorator;
import org.apache.flink.runtime.state.metainfo.StateMetaInfoSnapshot;

/**
 * A subtask's canonical savepoint resources: the owned vnodes' RocksDB snapshots, in key-group
 * order, under one list of states (by name), plus the {@link CanonicalSavepoints#OWNED_VNODES}
 * entry that tells a restoring Rhino subtask which vnodes it owned (the empty ones included).
 */
final class VnodeSavepointResources<K> implements FullSnapshotResources<K> {

    /** One owned vnode's snapshot resources, in ascending key-group order. */
    record VnodeResources(int vnode, FullSnapshotResources<?> resources) {}

    private final List<VnodeResources> vnodes;
    private final List<StateMetaInfoSnapshot> metaInfos;
    private final List<int[]> mergedStateIds;
    private final KeyGroupRange keyGroupRange;
    private final TypeSerializer<K> keySerializer;
    private final Runnable onRelease;

    VnodeSavepointResources(
            List<VnodeResources> vnodes,
            StateMetaInfoSnapshot ownedVnodes,
            KeyGroupRange keyGroupRange,
            TypeSerializer<K> keySerializer,
            Runnable onRelease) {
        this.vnodes = List.copyOf(vnodes);
        this.keyGroupRange = keyGroupRange;
        this.keySerializer = keySerializer;
        this.onRelease = onRelease;
        Map<String, Integer> idByName = new LinkedHashMap<>();
        List<StateMetaInfoSnapshot> merged = new ArrayList<>();
        this.mergedStateIds = new ArrayList<>();
        for (VnodeResources vnode : this.vnodes) {
            List<StateMetaInfoSnapshot> own = vnode.resources().getMetaInfoSnapshots();
            int[] ids = new int[own.size()];
            for (int i = 0; i < own.size(); i++) {
                StateMetaInfoSnapshot info = own.get(i);
                Integer id = idByName.get(info.getName());
                if (id == null) {
                    id = merged.size();
                    idByName.put(info.getName(), id);
                    merged.add(
                            CanonicalSavepoints.OWNED_VNODES.equals(info.getName())
                                    ? ownedVnodes
                                    : info);
                }
                ids[i] = id;
            }
            mergedStateIds.add(ids);
        }
        if (!idByName.containsKey(CanonicalSavepoints.OWNED_VNODES)) {
            merged.add(ownedVnodes);
        }
        this.metaInfos = List.copyOf(merged);
    }

    @Override
    public List<StateMetaInfoSnapshot> getMetaInfoSnapshots() {
        return metaInfos;
    }

    @Override
    public KeyValueStateIterator createKVStateIterator() throws IOException {
        List<ConcatenatedStateIterator.Part> parts = new ArrayList<>();
        try {
            for (int i = 0; i < vnodes.size(); i++) {
                parts.add(
                        new ConcatenatedStateIterator.Part(
                                vnodes.get(i).resources().createKVStateIterator(),
                                mergedStateIds.get(i)));
            }
        } catch (IOException | RuntimeException e) {
            parts.forEach(part -> part.iterator().close());
            throw e;
        }
        return new ConcatenatedStateIterator(parts);
    }

    @Override
    public KeyGroupRange getKeyGroupRange() {
        return keyGroupRange;
    }

    @Override
    public TypeSerializer<K> getKeySerializer() {
        return keySerializer;
    }

    @Override
    public StreamCompressionDecorator getStreamCompressionDecorator() {
        // every vnode instance runs with the operator's one compression setting
        return vnodes.isEmpty()
                ? UncompressedStreamCompressionDecorator.INSTANCE
                : vnodes.get(0).resources().getStreamCompressionDecorator();
    }

    @Override
    public void release() {
        try {
            for (VnodeResources vnode : vnodes) {
                vnode.resources().release();
            }
        } finally {
            onRelease.run();
        }
    }
}
