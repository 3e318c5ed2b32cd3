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

import java.util.BitSet;
import org.apache.flink.runtime.state.KeyGroupedInternalPriorityQueue;

/**
 * Reads the first timers of each vnode's part of a timer queue as its caches hold them ({@link
 * RocksDbTimerQueueFactory#cachedHeadsOf}), re-reading only the key groups whose timers changed
 * since the last read. Every checkpoint reads them in its synchronous part: reading all 2,048 key
 * groups of each of a subtask's 4 vnodes and 2 queues took 6-14 ms there while RocksDB compacted,
 * one cache miss after another.
 *
 * <p>An entry not re-read stays true: a key group's first timer, or its being empty, changes only
 * when a timer of that key group is added, removed or polled, which the queue reports here. A cache
 * that refills on a peek only turns an unknown entry into a known one, and an unknown entry is
 * always safe to keep (the restore seeks it). On the task thread only.
 */
final class TimerHeadsTracker {

    private final TimerQueueHeads.KeyGroupHeads[] lastRead;

    /** Per vnode, the key groups changed since the last read, from the part's first one. */
    private final BitSet[] changed;

    TimerHeadsTracker(int numVnodes) {
        this.lastRead = new TimerQueueHeads.KeyGroupHeads[numVnodes];
        this.changed = new BitSet[numVnodes];
    }

    /** The vnode's part was bound or unbound: the next read reads every key group. */
    void reset(int vnode) {
        lastRead[vnode] = null;
        changed[vnode] = null;
    }

    /** Whether the vnode's changes are tracked (else the next read reads every key group). */
    boolean tracks(int vnode) {
        return lastRead[vnode] != null;
    }

    /** A timer of the key group was added, removed or polled in the vnode's part. */
    void changed(int vnode, int keyGroup) {
        TimerQueueHeads.KeyGroupHeads last = lastRead[vnode];
        if (last != null) {
            changed[vnode].set(keyGroup - last.firstKeyGroup());
        }
    }

    /** The part's first timers now; null if the part is not Flink's RocksDB timer queue. */
    TimerQueueHeads.KeyGroupHeads read(int vnode, KeyGroupedInternalPriorityQueue<?> part) {
        TimerQueueHeads.KeyGroupHeads heads =
                RocksDbTimerQueueFactory.cachedHeadsOf(part, lastRead[vnode], changed[vnode]);
        lastRead[vnode] = heads;
        if (heads == null) {
            changed[vnode] = null;
        } else if (changed[vnode] == null) {
            changed[vnode] = new BitSet(heads.numberOfKeyGroups());
        } else {
            changed[vnode].clear();
        }
        return heads;
    }
}
