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

import io.rhino.core.routing.VnodeLayout;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;

/**
 * The key a vnode backend currently works on, with its key group and vnode. Computed once per
 * {@code setCurrentKey} so that every state access afterwards is an array lookup.
 */
final class VnodeKeyContext<K> {

    private final VnodeLayout layout;
    private K currentKey;
    private int currentKeyGroup = -1;
    private int currentVnode = -1;

    VnodeKeyContext(VnodeLayout layout) {
        this.layout = layout;
    }

    void setCurrentKey(K key) {
        setCurrentKeyAndKeyGroup(
                key, KeyGroupRangeAssignment.assignToKeyGroup(key, layout.numKeyGroups()));
    }

    void setCurrentKeyAndKeyGroup(K key, int keyGroup) {
        this.currentKey = key;
        this.currentKeyGroup = keyGroup;
        this.currentVnode = layout.vnodeOfKeyGroup(keyGroup);
    }

    K currentKey() {
        return currentKey;
    }

    int currentKeyGroup() {
        return currentKeyGroup;
    }

    int currentVnode() {
        return currentVnode;
    }

    VnodeLayout layout() {
        return layout;
    }
}
