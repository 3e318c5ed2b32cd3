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

package io.rhino.replication;

import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocatorMetric;

/**
 * The memory of the Netty buffers replication works with: every service's channels allocate from
 * Netty's shared pooled allocator, so these figures cover every service in this class loader (one
 * per TaskManager in a cluster). Reading them walks the pool's arenas: fine for a metric, not for a
 * hot path.
 */
public final class ReplicationMemory {

    /** What every replication channel allocates from. */
    static final PooledByteBufAllocator ALLOCATOR = PooledByteBufAllocator.DEFAULT;

    private ReplicationMemory() {}

    /**
     * Bytes of buffers in use now: chunks waiting to be written or forwarded, socket reads and
     * writes in flight. What the credit windows bound.
     */
    public static long inUseBytes() {
        return ALLOCATOR.pinnedDirectMemory() + ALLOCATOR.pinnedHeapMemory();
    }

    /**
     * Bytes the pool holds from the operating system (direct) and the heap, in use or kept for
     * reuse: it grows in chunks of {@link PooledByteBufAllocatorMetric#chunkSize()} bytes and keeps
     * what it grew to. What counts against {@code -XX:MaxDirectMemorySize}.
     */
    public static long reservedBytes() {
        PooledByteBufAllocatorMetric metric = ALLOCATOR.metric();
        return metric.usedDirectMemory() + metric.usedHeapMemory();
    }
}
