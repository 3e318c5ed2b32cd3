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

package io.rhino.flink.routing;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Holds back, at a target gate, the records of vnodes that are moving here but not installed yet,
 * to replay them in arrival order once their state is installed. Records of other vnodes pass.
 */
final class IncomingVnodeBuffer<T> {

    private final Set<Integer> pendingVnodes = new HashSet<>();
    private List<BufferedRecord<T>> records = new ArrayList<>();

    private record BufferedRecord<T>(int vnode, StreamRecord<T> record) {}

    /** The vnodes whose records wait, ascending. */
    Set<Integer> pending() {
        return new java.util.TreeSet<>(pendingVnodes);
    }

    boolean isHolding() {
        return !pendingVnodes.isEmpty();
    }

    boolean isPending(int vnode) {
        return pendingVnodes.contains(vnode);
    }

    void expect(Set<Integer> vnodes) {
        pendingVnodes.addAll(vnodes);
    }

    void add(int vnode, StreamRecord<T> record) {
        records.add(new BufferedRecord<>(vnode, record));
    }

    /**
     * Marks the vnodes installed and returns their buffered records in arrival order; records of
     * still pending vnodes stay.
     */
    List<StreamRecord<T>> release(Set<Integer> installed) {
        pendingVnodes.removeAll(installed);
        List<StreamRecord<T>> released = new ArrayList<>();
        List<BufferedRecord<T>> kept = new ArrayList<>();
        for (BufferedRecord<T> buffered : records) {
            if (pendingVnodes.contains(buffered.vnode())) {
                kept.add(buffered);
            } else {
                released.add(buffered.record());
            }
        }
        records = kept;
        return released;
    }

    int size() {
        return records.size();
    }
}
