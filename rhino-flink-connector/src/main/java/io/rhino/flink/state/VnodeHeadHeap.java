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
import org.apache.flink.runtime.state.PriorityComparable;

/**
 * The vnodes whose timer queues are not empty, in a binary min-heap ordered by their heads: the
 * composite queue's head is the head of the top vnode, and a vnode whose head changed moves in
 * O(log vnodes). A vnode is in the heap exactly when its head is not null.
 */
final class VnodeHeadHeap<T extends PriorityComparable<? super T>> {

    private final Object[] headByVnode;
    private final int[] heap;
    private final int[] position; // of each vnode in heap, -1 if absent
    private int size;

    VnodeHeadHeap(int numVnodes) {
        this.headByVnode = new Object[numVnodes];
        this.heap = new int[numVnodes];
        this.position = new int[numVnodes];
        Arrays.fill(position, -1);
    }

    /** The vnode whose head comes first, -1 if every queue is empty. */
    int top() {
        return size == 0 ? -1 : heap[0];
    }

    /** The vnode's head as last set, null if its queue is empty. */
    @SuppressWarnings("unchecked")
    T head(int vnode) {
        return (T) headByVnode[vnode];
    }

    boolean isEmpty() {
        return size == 0;
    }

    /** Sets the vnode's head (null: its queue is empty or gone) and restores the heap order. */
    void update(int vnode, T head) {
        headByVnode[vnode] = head;
        int at = position[vnode];
        if (head == null) {
            if (at >= 0) {
                removeAt(at);
            }
        } else if (at < 0) {
            heap[size] = vnode;
            position[vnode] = size;
            siftUp(size++);
        } else {
            siftDown(siftUp(at));
        }
    }

    private void removeAt(int at) {
        int removed = heap[at];
        position[removed] = -1;
        size--;
        if (at < size) {
            heap[at] = heap[size];
            position[heap[at]] = at;
            siftDown(siftUp(at));
        }
    }

    /** Moves the entry at {@code at} up while it beats its parent; returns where it ended. */
    private int siftUp(int at) {
        while (at > 0) {
            int parent = (at - 1) >>> 1;
            if (!before(heap[at], heap[parent])) {
                break;
            }
            swap(at, parent);
            at = parent;
        }
        return at;
    }

    private void siftDown(int at) {
        while (true) {
            int left = 2 * at + 1;
            if (left >= size) {
                return;
            }
            int smallest = left;
            int right = left + 1;
            if (right < size && before(heap[right], heap[left])) {
                smallest = right;
            }
            if (!before(heap[smallest], heap[at])) {
                return;
            }
            swap(at, smallest);
            at = smallest;
        }
    }

    private boolean before(int vnode, int other) {
        return head(vnode).comparePriorityTo(head(other)) < 0;
    }

    private void swap(int a, int b) {
        int vnodeA = heap[a];
        heap[a] = heap[b];
        heap[b] = vnodeA;
        position[heap[a]] = a;
        position[heap[b]] = b;
    }
}
