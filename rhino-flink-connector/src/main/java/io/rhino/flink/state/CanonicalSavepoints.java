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

import io.rhino.core.routing.KeyGroupSpan;
import io.rhino.core.routing.VnodeLayout;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.flink.api.common.state.StateDescriptor;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.base.IntSerializer;
import org.apache.flink.core.memory.DataInputViewStreamWrapper;
import org.apache.flink.runtime.state.CheckpointableKeyedStateBackend;
import org.apache.flink.runtime.state.FullSnapshotResources;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupsSavepointStateHandle;
import org.apache.flink.runtime.state.KeyGroupsStateHandle;
import org.apache.flink.runtime.state.KeyedBackendSerializationProxy;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.RegisteredKeyValueStateBackendMetaInfo;
import org.apache.flink.runtime.state.SavepointResources;
import org.apache.flink.runtime.state.SnapshotExecutionType;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.runtime.state.metainfo.StateMetaInfoSnapshot;

/**
 * Canonical savepoints of a Rhino subtask: Flink's own format (one stream, key group after key
 * group, every state in Flink's canonical encoding) over the vnodes the subtask owns, written by
 * Flink's savepoint writer. Which vnodes the subtask owned, empty ones included, travels in the
 * stream's header as the options of an empty state named {@link #OWNED_VNODES}; on restore each
 * owned vnode's RocksDB instance is rebuilt from its key groups by Flink's full restore.
 */
final class CanonicalSavepoints {

    /** The empty state whose options name the owned vnodes. */
    static final String OWNED_VNODES = "_rhino_owned_vnodes";

    private static final String VNODES_OPTION = "rhino.owned-vnodes";
    private static final String NUM_VNODES_OPTION = "rhino.num-vnodes";
    private static final String SUBTASK_OPTION = "rhino.subtask";
    private static final String PARALLELISM_OPTION = "rhino.parallelism";

    private CanonicalSavepoints() {}

    /**
     * The synchronous part: a RocksDB snapshot of every owned vnode, leased from disposal until the
     * savepoint's asynchronous part released them.
     */
    static <K> SavepointResources<K> prepare(
            VnodeBackends<K> backends,
            VnodeDisposal disposal,
            VnodeLayout layout,
            KeyGroupRange subtaskKeyGroups,
            int subtaskIndex,
            int parallelism,
            TypeSerializer<K> keySerializer)
            throws Exception {
        int[] owned = backends.ownedVnodes();
        List<CheckpointableKeyedStateBackend<K>> instances = new ArrayList<>();
        for (int vnode : owned) {
            instances.add(backends.get(vnode));
        }
        disposal.lease(instances);
        List<VnodeSavepointResources.VnodeResources> vnodes = new ArrayList<>();
        try {
            // ascending vnodes hold ascending key groups
            for (int vnode : owned) {
                FullSnapshotResources<?> resources =
                        backends.get(vnode).savepoint().getSnapshotResources();
                vnodes.add(new VnodeSavepointResources.VnodeResources(vnode, resources));
            }
        } catch (Exception e) {
            vnodes.forEach(v -> v.resources().release());
            disposal.release(instances);
            throw e;
        }
        KeyGroupRange range =
                owned.length == 0
                        ? subtaskKeyGroups
                        : new KeyGroupRange(
                                layout.keyGroupsOf(owned[0]).startKeyGroup(),
                                layout.keyGroupsOf(owned[owned.length - 1]).endKeyGroup());
        return new SavepointResources<>(
                new VnodeSavepointResources<>(
                        vnodes,
                        ownedVnodesInfo(owned, layout.numVnodes(), subtaskIndex, parallelism),
                        range,
                        keySerializer,
                        () -> disposal.release(instances)),
                SnapshotExecutionType.ASYNCHRONOUS);
    }

    private static StateMetaInfoSnapshot ownedVnodesInfo(
            int[] owned, int numVnodes, int subtaskIndex, int parallelism) {
        StateMetaInfoSnapshot plain =
                new RegisteredKeyValueStateBackendMetaInfo<VoidNamespace, Integer>(
                                StateDescriptor.Type.VALUE,
                                OWNED_VNODES,
                                VoidNamespaceSerializer.INSTANCE,
                                IntSerializer.INSTANCE)
                        .snapshot();
        Map<String, String> options = new HashMap<>(plain.getOptionsImmutable());
        options.put(
                VNODES_OPTION,
                Arrays.stream(owned).mapToObj(Integer::toString).collect(Collectors.joining(",")));
        options.put(NUM_VNODES_OPTION, Integer.toString(numVnodes));
        options.put(SUBTASK_OPTION, Integer.toString(subtaskIndex));
        options.put(PARALLELISM_OPTION, Integer.toString(parallelism));
        return new StateMetaInfoSnapshot(
                OWNED_VNODES,
                StateMetaInfoSnapshot.BackendStateType.KEY_VALUE,
                options,
                new HashMap<>(plain.getSerializerSnapshotsImmutable()));
    }

    /** Whether Flink hands this subtask a canonical savepoint's keyed state. */
    static boolean isCanonical(KeyedStateHandle handle) {
        return handle instanceof KeyGroupsSavepointStateHandle;
    }

    /**
     * What the Rhino subtask that wrote a canonical savepoint owned, each vnode with the part of
     * the stream that holds its key groups (none for a vnode without state). At a restore at
     * another parallelism Flink cut {@code handle} to the restoring subtask's key groups: only the
     * vnodes inside them are whole.
     *
     * @return null if a job keyed by Flink's own {@code keyBy} wrote it (see {@link
     *     MigratedKeyedState})
     */
    static WrittenSubtask read(
            KeyGroupsSavepointStateHandle handle,
            int numKeyGroups,
            String operatorName,
            ClassLoader userCodeClassLoader)
            throws IOException {
        StateMetaInfoSnapshot owned = ownedVnodesOf(handle, userCodeClassLoader);
        if (owned == null) {
            return null;
        }
        VnodeLayout layout =
                new VnodeLayout(numKeyGroups, Integer.parseInt(owned.getOption(NUM_VNODES_OPTION)));
        int writer = Integer.parseInt(owned.getOption(SUBTASK_OPTION));
        String parallelism = owned.getOption(PARALLELISM_OPTION);
        SortedMap<Integer, List<KeyedStateHandle>> byVnode = new TreeMap<>();
        String vnodes = owned.getOption(VNODES_OPTION);
        if (vnodes != null && !vnodes.isEmpty()) {
            for (String vnode : vnodes.split(",")) {
                int id = Integer.parseInt(vnode);
                layout.checkVnode(id);
                KeyGroupSpan span = layout.keyGroupsOf(id);
                KeyGroupsStateHandle part =
                        handle.getIntersection(
                                new KeyGroupRange(span.startKeyGroup(), span.endKeyGroup()));
                byVnode.put(id, part == null ? List.of() : List.of(part));
            }
        }
        return WrittenSubtask.canonical(
                writer,
                parallelism == null
                        ? WrittenSubtask.UNKNOWN_PARALLELISM
                        : Integer.parseInt(parallelism),
                layout,
                byVnode);
    }

    private static StateMetaInfoSnapshot ownedVnodesOf(
            KeyGroupsSavepointStateHandle handle, ClassLoader userCodeClassLoader)
            throws IOException {
        KeyedBackendSerializationProxy<?> header =
                new KeyedBackendSerializationProxy<>(userCodeClassLoader);
        try (InputStream in = handle.openInputStream()) {
            header.read(new DataInputViewStreamWrapper(in));
        }
        for (StateMetaInfoSnapshot info : header.getStateMetaInfoSnapshots()) {
            if (OWNED_VNODES.equals(info.getName())) {
                return info;
            }
        }
        return null;
    }
}
