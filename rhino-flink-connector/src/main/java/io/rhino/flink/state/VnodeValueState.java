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
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.runtime.state.internal.InternalValueState;

/** Value state dispatched to the current key's vnode. */
final class VnodeValueState<K, N, V>
        extends AbstractVnodeState<K, N, V, InternalValueState<K, N, V>>
        implements InternalValueState<K, N, V> {

    VnodeValueState(
            String name,
            VnodeKeyContext<K> keyContext,
            TypeSerializer<K> keySerializer,
            TypeSerializer<N> namespaceSerializer) {
        super(name, keyContext, keySerializer, namespaceSerializer);
    }

    @Override
    public V value() throws IOException {
        return current().value();
    }

    @Override
    public void update(V value) throws IOException {
        current().update(value);
    }
}
