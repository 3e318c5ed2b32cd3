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
 * vnode, and the head is the smallest of the vnode heads.
 *
 * <p>{@link #add} and {@link #remove} answer whether the overall head changed, as Flink's own
 * queues do: only an element that is (or was) its vnode's head can be (or have been) the overall
 * head, so the other vnodes are looked at only then.
 */
final class VnodePriorityQueue<
                T extends HeapPriorityQueueElement & PriorityComparable<? super T> & Keyed<?>>
        implements KeyGroupedInternalPriorityQueue<T> {

    private final String name;
    private final VnodeLayout layout;
    private final Object[] queueByVnode;

    VnodePriorityQueue(String name, VnodeLayout layout) {
        this.name = name;
        this.layout = layout;
        this.queueByVnode = new Object[layout.numVnodes()];
    }

    void bind(int vnode, KeyGroupedInternalPriorityQueue<T> queue) {
        queueByVnode[vnode] = queue;
    }

    void unbind(int vnode) {
        queueByVnode[vnode] = null;
    }

    @SuppressWarnings("unchecked")
    private KeyGroupedInternalPriorityQueue<T> queueAt(int vnode) {
        return (KeyGroupedInternalPriorityQueue<T>) queueByVnode[vnode];
    }

    private KeyGroupedInternalPriorityQueue<T> queueOfKeyGroup(int keyGroup) {
        int vnode = layout.vnodeOfKeyGroup(keyGroup);
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

    private KeyGroupedInternalPriorityQueue<T> queueOf(T element) {
        return queueOfKeyGroup(
                KeyGroupRangeAssignment.assignToKeyGroup(element.getKey(), layout.numKeyGroups()));
    }

    /** The vnode queue whose head comes first, or null when all are empty. */
    private KeyGroupedInternalPriorityQueue<T> queueWithSmallestHead() {
        KeyGroupedInternalPriorityQueue<T> best = null;
        T bestHead = null;
        for (int vnode = 0; vnode < queueByVnode.length; vnode++) {
            KeyGroupedInternalPriorityQueue<T> queue = queueAt(vnode);
            if (queue == null) {
                continue;
            }
            T head = queue.peek();
            if (head != null && (bestHead == null || head.comparePriorityTo(bestHead) < 0)) {
                best = queue;
                bestHead = head;
            }
        }
        return best;
    }

    @Nullable
    @Override
    public T poll() {
        KeyGroupedInternalPriorityQueue<T> queue = queueWithSmallestHead();
        return queue == null ? null : queue.poll();
    }

    @Nullable
    @Override
    public T peek() {
        KeyGroupedInternalPriorityQueue<T> queue = queueWithSmallestHead();
        return queue == null ? null : queue.peek();
    }

    @Override
    public boolean add(@Nonnull T toAdd) {
        return queueOf(toAdd).add(toAdd) && toAdd.equals(peek());
    }

    @Override
    public boolean remove(@Nonnull T toRemove) {
        KeyGroupedInternalPriorityQueue<T> queue = queueOf(toRemove);
        boolean wasHead = toRemove.equals(queue.peek()) && toRemove.equals(peek());
        return queue.remove(toRemove) && wasHead;
    }

    @Override
    public boolean isEmpty() {
        for (int vnode = 0; vnode < queueByVnode.length; vnode++) {
            KeyGroupedInternalPriorityQueue<T> queue = queueAt(vnode);
            if (queue != null && !queue.isEmpty()) {
                return false;
            }
        }
        return true;
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
