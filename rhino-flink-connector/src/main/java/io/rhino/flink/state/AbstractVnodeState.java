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

import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.queryablestate.client.state.serialization.KvStateSerializer;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.runtime.state.internal.InternalKvState;

/**
 * Base of the state objects a vnode backend hands to operators: one Flink state object per owned
 * vnode, picked by the current key's vnode on every access.
 *
 * <p>The namespace is kept here and pushed to the vnode's state on access, because the operator
 * sets it once and then switches keys, possibly across vnodes.
 */
abstract class AbstractVnodeState<K, N, V, S extends InternalKvState<K, N, V>>
        implements InternalKvState<K, N, V> {

    private final String name;
    private final VnodeKeyContext<K> keyContext;
    private final Object[] stateByVnode;
    private final TypeSerializer<K> keySerializer;
    private final TypeSerializer<N> namespaceSerializer;
    private N namespace;

    AbstractVnodeState(
            String name,
            VnodeKeyContext<K> keyContext,
            TypeSerializer<K> keySerializer,
            TypeSerializer<N> namespaceSerializer) {
        this.name = name;
        this.keyContext = keyContext;
        this.stateByVnode = new Object[keyContext.layout().numVnodes()];
        this.keySerializer = keySerializer;
        this.namespaceSerializer = namespaceSerializer;
    }

    /** The state of the current key's vnode, positioned on the current namespace. */
    @SuppressWarnings("unchecked")
    protected final S current() {
        int vnode = keyContext.currentVnode();
        S state = vnode < 0 ? null : (S) stateByVnode[vnode];
        if (state == null) {
            throw new IllegalStateException(
                    "State '"
                            + name
                            + "' accessed for key "
                            + keyContext.currentKey()
                            + " of vnode "
                            + vnode
                            + ", which this subtask does not own. Records must reach a Rhino "
                            + "operator through its Rhino keyed stream.");
        }
        state.setCurrentNamespace(namespace);
        return state;
    }

    protected final N namespace() {
        return namespace;
    }

    @SuppressWarnings("unchecked")
    final void bind(int vnode, InternalKvState<K, N, ?> vnodeState) {
        stateByVnode[vnode] = vnodeState;
    }

    final void unbind(int vnode) {
        stateByVnode[vnode] = null;
    }

    @SuppressWarnings("unchecked")
    private S anyBound() {
        for (Object state : stateByVnode) {
            if (state != null) {
                return (S) state;
            }
        }
        return null;
    }

    @Override
    public void clear() {
        current().clear();
    }

    @Override
    public TypeSerializer<K> getKeySerializer() {
        return keySerializer;
    }

    @Override
    public TypeSerializer<N> getNamespaceSerializer() {
        return namespaceSerializer;
    }

    @Override
    public TypeSerializer<V> getValueSerializer() {
        S any = anyBound();
        if (any == null) {
            throw new IllegalStateException(
                    "State '" + name + "' has no vnode on this subtask to take a serializer from.");
        }
        return any.getValueSerializer();
    }

    @Override
    public void setCurrentNamespace(N namespace) {
        this.namespace = namespace;
    }

    /**
     * Reads the value of the key and namespace serialized in {@code serializedKeyAndNamespace} from
     * that key's vnode, whatever the current key is (Flink's contract for this read path).
     */
    @Override
    public byte[] getSerializedValue(
            byte[] serializedKeyAndNamespace,
            TypeSerializer<K> safeKeySerializer,
            TypeSerializer<N> safeNamespaceSerializer,
            TypeSerializer<V> safeValueSerializer)
            throws Exception {
        K key =
                KvStateSerializer.deserializeKeyAndNamespace(
                                serializedKeyAndNamespace,
                                safeKeySerializer,
                                safeNamespaceSerializer)
                        .f0;
        // The same key-group assignment as setCurrentKey, so the read finds what was written.
        int vnode =
                keyContext
                        .layout()
                        .vnodeOfKeyGroup(
                                KeyGroupRangeAssignment.assignToKeyGroup(
                                        key, keyContext.layout().numKeyGroups()));
        @SuppressWarnings("unchecked")
        S state = (S) stateByVnode[vnode];
        if (state == null) {
            throw new IllegalStateException(
                    "State '"
                            + name
                            + "' read for key "
                            + key
                            + " of vnode "
                            + vnode
                            + ", which this subtask does not own.");
        }
        return state.getSerializedValue(
                serializedKeyAndNamespace,
                safeKeySerializer,
                safeNamespaceSerializer,
                safeValueSerializer);
    }

    @Override
    public StateIncrementalVisitor<K, N, V> getStateIncrementalVisitor(
            int recommendedMaxNumberOfReturnedRecords) {
        throw new UnsupportedOperationException(
                "Incremental state visitors are a heap-backend feature; Rhino vnodes use RocksDB.");
    }
}
