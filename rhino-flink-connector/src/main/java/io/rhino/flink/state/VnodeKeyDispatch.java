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

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;
import org.apache.flink.runtime.state.CheckpointableKeyedStateBackend;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.KeyedStateBackend.KeySelectionListener;
import org.apache.flink.runtime.state.TestableKeyedStateBackend;

/**
 * Sends the current key to the instance of its vnode, and the key selection listeners after it;
 * refuses a key of a vnode this subtask does not own.
 */
final class VnodeKeyDispatch<K> {

    private final String operatorIdentifier;
    private final VnodeKeyContext<K> keyContext;
    private final VnodeBackends<K> backends;
    private final List<KeySelectionListener<K>> listeners = new ArrayList<>();

    VnodeKeyDispatch(
            String operatorIdentifier, VnodeKeyContext<K> keyContext, VnodeBackends<K> backends) {
        this.operatorIdentifier = operatorIdentifier;
        this.keyContext = keyContext;
        this.backends = backends;
    }

    void setCurrentKey(K key) {
        keyContext.setCurrentKey(key);
        selectOnVnode(key);
    }

    void setCurrentKeyAndKeyGroup(K key, int keyGroup) {
        keyContext.setCurrentKeyAndKeyGroup(key, keyGroup);
        selectOnVnode(key);
    }

    private void selectOnVnode(K key) {
        int vnode = keyContext.currentVnode();
        if (!backends.owns(vnode)) {
            throw new IllegalStateException(
                    "Key "
                            + key
                            + " belongs to key group "
                            + keyContext.currentKeyGroup()
                            + " of vnode "
                            + vnode
                            + ", which "
                            + operatorIdentifier
                            + " does not own (owned vnodes: "
                            + Arrays.toString(backends.ownedVnodes())
                            + "). Records must reach a Rhino operator through its Rhino keyed "
                            + "stream.");
        }
        backends.get(vnode).setCurrentKeyAndKeyGroup(key, keyContext.currentKeyGroup());
        for (KeySelectionListener<K> listener : listeners) {
            listener.keySelected(key);
        }
    }

    K currentKey() {
        return keyContext.currentKey();
    }

    void addListener(KeySelectionListener<K> listener) {
        listeners.add(listener);
    }

    boolean removeListener(KeySelectionListener<K> listener) {
        return listeners.remove(listener);
    }

    /** What {@code perVnode} returns for each owned vnode's instance, one after the other. */
    <T> Stream<T> acrossVnodes(Function<CheckpointableKeyedStateBackend<K>, Stream<T>> perVnode) {
        Stream<T> all = Stream.empty();
        for (int vnode : backends.ownedVnodes()) {
            all = Stream.concat(all, perVnode.apply(backends.get(vnode)));
        }
        return all;
    }

    /**
     * The instance the current key goes to: its vnode's (the first owned vnode's before any key is
     * set), or, if {@code recursive}, the backend that one delegates to; null if none is owned.
     */
    KeyedStateBackend<K> delegate(boolean recursive) {
        int[] owned = backends.ownedVnodes();
        int vnode = keyContext.currentVnode();
        if (vnode < 0 || !backends.owns(vnode)) {
            if (owned.length == 0) {
                return null;
            }
            vnode = owned[0];
        }
        CheckpointableKeyedStateBackend<K> delegate = backends.get(vnode);
        return recursive && delegate instanceof TestableKeyedStateBackend<K> testable
                ? testable.getDelegatedKeyedStateBackend(true)
                : delegate;
    }
}
