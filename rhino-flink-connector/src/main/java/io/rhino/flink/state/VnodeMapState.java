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

import java.util.Iterator;
import java.util.Map;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.runtime.state.internal.InternalMapState;

/** Map state dispatched to the current key's vnode. */
final class VnodeMapState<K, N, UK, UV>
        extends AbstractVnodeState<K, N, Map<UK, UV>, InternalMapState<K, N, UK, UV>>
        implements InternalMapState<K, N, UK, UV> {

    VnodeMapState(
            String name,
            VnodeKeyContext<K> keyContext,
            TypeSerializer<K> keySerializer,
            TypeSerializer<N> namespaceSerializer) {
        super(name, keyContext, keySerializer, namespaceSerializer);
    }

    @Override
    public UV get(UK key) throws Exception {
        return current().get(key);
    }

    @Override
    public void put(UK key, UV value) throws Exception {
        current().put(key, value);
    }

    @Override
    public void putAll(Map<UK, UV> map) throws Exception {
        current().putAll(map);
    }

    @Override
    public void remove(UK key) throws Exception {
        current().remove(key);
    }

    @Override
    public boolean contains(UK key) throws Exception {
        return current().contains(key);
    }

    @Override
    public Iterable<Map.Entry<UK, UV>> entries() throws Exception {
        return current().entries();
    }

    @Override
    public Iterable<UK> keys() throws Exception {
        return current().keys();
    }

    @Override
    public Iterable<UV> values() throws Exception {
        return current().values();
    }

    @Override
    public Iterator<Map.Entry<UK, UV>> iterator() throws Exception {
        return current().iterator();
    }

    @Override
    public boolean isEmpty() throws Exception {
        return current().isEmpty();
    }
}
