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

import java.util.Arrays;
import org.apache.flink.runtime.state.CheckpointableKeyedStateBackend;

/** The delegate RocksDB backends of the vnodes a subtask owns, indexed by vnode. */
final class VnodeBackends<K> {

    private final Object[] backendByVnode;

    VnodeBackends(int numVnodes) {
        this.backendByVnode = new Object[numVnodes];
    }

    @SuppressWarnings("unchecked")
    CheckpointableKeyedStateBackend<K> get(int vnode) {
        return (CheckpointableKeyedStateBackend<K>) backendByVnode[vnode];
    }

    boolean owns(int vnode) {
        return vnode >= 0 && vnode < backendByVnode.length && backendByVnode[vnode] != null;
    }

    void add(int vnode, CheckpointableKeyedStateBackend<K> backend) {
        if (backendByVnode[vnode] != null) {
            throw new IllegalStateException("vnode " + vnode + " is already owned here");
        }
        backendByVnode[vnode] = backend;
    }

    CheckpointableKeyedStateBackend<K> remove(int vnode) {
        CheckpointableKeyedStateBackend<K> backend = get(vnode);
        if (backend == null) {
            throw new IllegalStateException("vnode " + vnode + " is not owned here");
        }
        backendByVnode[vnode] = null;
        return backend;
    }

    /** Owned vnodes, ascending. */
    int[] ownedVnodes() {
        return java.util.stream.IntStream.range(0, backendByVnode.length)
                .filter(vnode -> backendByVnode[vnode] != null)
                .toArray();
    }

    int numVnodes() {
        return backendByVnode.length;
    }

    @Override
    public String toString() {
        return "VnodeBackends" + Arrays.toString(ownedVnodes());
    }
}
