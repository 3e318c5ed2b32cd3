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
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;
import javax.annotation.Nonnull;
import javax.annotation.Nullable;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.runtime.state.KeyGroupedInternalPriorityQueue;
import org.apache.flink.runtime.state.Keyed;
import org.apache.flink.runtime.state.PriorityComparable;
import org.apache.flink.runtime.state.heap.HeapPriorityQueueElement;
import org.apache.flink.util.CloseableIterator;

/**
 * A timer queue composed of the owned vnodes' RocksDB timer queues: elements go to their key's
 * vnode, and the head is the smallest of the vnode heads, kept in a {@link VnodeHeadHeap}.
 *
 * <p>Every change to a vnode queue goes through here, so each vnode's head is known without asking
 * its queue: {@link #peek} and {@link #isEmpty} are O(1), {@link #poll}, {@link #add} and {@link
 * #remove} O(log vnodes) on top of the vnode queue's own work, and only when that vnode's head
 * changed. {@link #add} and {@link #remove} answer whether the overall head changed, as Flink's own
 * queues do.
 */
final class VnodePriorityQueue<
                T extends HeapPriorityQueueElement & PriorityComparable<? super T> & Keyed<?>>
        implements KeyGroupedInternalPriorityQueue<T> {

    private final String name;
    private final VnodeLayout layout;
    private final Object[] queueByVnode;
    private final VnodeHeadHeap<T> heads;
    private final TimerHeadsTracker keyGroupHeads;

    VnodePriorityQueue(String name, VnodeLayout layout) {
        this.name = name;
        this.layout = layout;
        this.queueByVnode = new Object[layout.numVnodes()];
        this.heads = new VnodeHeadHeap<>(layout.numVnodes());
        this.keyGroupHeads = new TimerHeadsTracker(layout.numVnodes());
    }

    /** The vnode's queue joins, with the timers it was restored or installed with. */
    void bind(int vnode, KeyGroupedInternalPriorityQueue<T> queue) {
        queueByVnode[vnode] = queue;
        heads.update(vnode, queue.peek());
        keyGroupHeads.reset(vnode);
    }

    void unbind(int vnode) {
        queueByVnode[vnode] = null;
        heads.update(vnode, null);
        keyGroupHeads.reset(vnode);
    }

    /**
     * The first timer of each key group of the vnode's part as its caches hold them (see {@link
     * TimerHeadsTracker}); null if the vnode is not bound or its part is not Flink's RocksDB queue.
     */
    TimerQueueHeads.KeyGroupHeads cachedHeadsOf(int vnode) {
        KeyGroupedInternalPriorityQueue<T> part = queueAt(vnode);
        return part == null ? null : keyGroupHeads.read(vnode, part);
    }

    @SuppressWarnings("unchecked")
    private KeyGroupedInternalPriorityQueue<T> queueAt(int vnode) {
        return (KeyGroupedInternalPriorityQueue<T>) queueByVnode[vnode];
    }

    private KeyGroupedInternalPriorityQueue<T> queueOfKeyGroup(int keyGroup) {
        return queueOf(layout.vnodeOfKeyGroup(keyGroup), keyGroup);
    }

    private KeyGroupedInternalPriorityQueue<T> queueOf(int vnode, int keyGroup) {
        KeyGroupedInternalPriorityQueue<T> queue = queueAt(vnode);
        if (queue == null) {
            throw new IllegalStateException(
                    "Timer queue '"
                            + name
                            + "' got an element of key group "
                            + keyGroup
                            + " (vnode "
                            + vnode
                            + "), which this subtask does not own.");
        }
        return queue;
    }

    @Nullable
    @Override
    public T poll() {
        int vnode = heads.top();
        if (vnode < 0) {
            return null;
        }
        KeyGroupedInternalPriorityQueue<T> queue = queueAt(vnode);
        T polled = queue.poll();
        heads.update(vnode, queue.peek());
        if (polled != null && keyGroupHeads.tracks(vnode)) {
            keyGroupHeads.changed(vnode, keyGroupOf(polled));
        }
        return polled;
    }

    @Nullable
    @Override
    public T peek() {
        int vnode = heads.top();
        return vnode < 0 ? null : heads.head(vnode);
    }

    @Override
    public boolean add(@Nonnull T toAdd) {
        int keyGroup = keyGroupOf(toAdd);
        int vnode = layout.vnodeOfKeyGroup(keyGroup);
        KeyGroupedInternalPriorityQueue<T> queue = queueOf(vnode, keyGroup);
        keyGroupHeads.changed(vnode, keyGroup);
        T before = peek();
        if (!queue.add(toAdd)) {
            return false; // the vnode's head did not change, so neither did the overall one
        }
        heads.update(vnode, queue.peek());
        return !Objects.equals(before, peek());
    }

    @Override
    public boolean remove(@Nonnull T toRemove) {
        int keyGroup = keyGroupOf(toRemove);
        int vnode = layout.vnodeOfKeyGroup(keyGroup);
        KeyGroupedInternalPriorityQueue<T> queue = queueOf(vnode, keyGroup);
        keyGroupHeads.changed(vnode, keyGroup);
        T before = peek();
        if (!queue.remove(toRemove)) {
            return false;
        }
        heads.update(vnode, queue.peek());
        return !Objects.equals(before, peek());
    }

    private int keyGroupOf(T element) {
        return KeyGroupRangeAssignment.assignToKeyGroup(element.getKey(), layout.numKeyGroups());
    }

    @Override
    public boolean isEmpty() {
        return heads.isEmpty();
    }

    @Override
    public int size() {
        int size = 0;
        for (int vnode = 0; vnode < queueByVnode.length; vnode++) {
            KeyGroupedInternalPriorityQueue<T> queue = queueAt(vnode);
            if (queue != null) {
                size += queue.size();
            }
        }
        return size;
    }

    @Override
    public void addAll(@Nullable Collection<? extends T> toAdd) {
        if (toAdd != null) {
            toAdd.forEach(this::add);
        }
    }

    @Nonnull
    @Override
    public CloseableIterator<T> iterator() {
        List<CloseableIterator<T>> iterators = new ArrayList<>();
        for (int vnode = 0; vnode < queueByVnode.length; vnode++) {
            KeyGroupedInternalPriorityQueue<T> queue = queueAt(vnode);
            if (queue != null) {
                iterators.add(queue.iterator());
            }
        }
        return new ConcatenatedIterator<>(iterators);
    }

    @Nonnull
    @Override
    public Set<T> getSubsetForKeyGroup(int keyGroupId) {
        return queueOfKeyGroup(keyGroupId).getSubsetForKeyGroup(keyGroupId);
    }

    /** Iterates the vnode queues one after the other and closes them all. */
    private static final class ConcatenatedIterator<T> implements CloseableIterator<T> {
        private final List<CloseableIterator<T>> parts;
        private final Iterator<CloseableIterator<T>> remaining;
        private CloseableIterator<T> currentPart;

        ConcatenatedIterator(List<CloseableIterator<T>> parts) {
            this.parts = parts;
            this.remaining = parts.iterator();
            this.currentPart = remaining.hasNext() ? remaining.next() : null;
        }

        @Override
        public boolean hasNext() {
            while (currentPart != null && !currentPart.hasNext()) {
                currentPart = remaining.hasNext() ? remaining.next() : null;
            }
            return currentPart != null;
        }

        @Override
        public T next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            return currentPart.next();
        }

        @Override
        public void close() throws Exception {
            Exception first = null;
            for (CloseableIterator<T> part : parts) {
                try {
                    part.close();
                } catch (Exception e) {
                    first = first == null ? e : first;
                }
            }
            if (first != null) {
                throw first;
            }
        }
    }
}
