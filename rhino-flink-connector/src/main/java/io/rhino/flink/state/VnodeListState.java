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

import java.util.Collection;
import java.util.List;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.runtime.state.internal.InternalListState;

/** List state dispatched to the current key's vnode. */
final class VnodeListState<K, N, V>
        extends AbstractVnodeState<K, N, List<V>, InternalListState<K, N, V>>
        implements InternalListState<K, N, V> {

    VnodeListState(
            String name,
            VnodeKeyContext<K> keyContext,
            TypeSerializer<K> keySerializer,
            TypeSerializer<N> namespaceSerializer) {
        super(name, keyContext, keySerializer, namespaceSerializer);
    }

    @Override
    public Iterable<V> get() throws Exception {
        return current().get();
    }

    @Override
    public void add(V value) throws Exception {
        current().add(value);
    }

    @Override
    public void update(List<V> values) throws Exception {
        current().update(values);
    }

    @Override
    public void addAll(List<V> values) throws Exception {
        current().addAll(values);
    }

    @Override
    public List<V> getInternal() throws Exception {
        return current().getInternal();
    }

    @Override
    public void updateInternal(List<V> valueToStore) throws Exception {
        current().updateInternal(valueToStore);
    }

    @Override
    public void mergeNamespaces(N target, Collection<N> sources) throws Exception {
        current().mergeNamespaces(target, sources);
    }
}
