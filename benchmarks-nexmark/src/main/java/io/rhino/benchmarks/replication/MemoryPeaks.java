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

package io.rhino.benchmarks.replication;

import io.rhino.replication.ReplicationMemory;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The peaks of replication's Netty memory ({@link ReplicationMemory}) while a section runs, sampled
 * every few milliseconds on a thread of its own: a peak shorter than the period can be missed.
 */
public final class MemoryPeaks implements AutoCloseable {

    /** No replication ran (the disk baseline). */
    public static final long NONE = -1;

    private static final long PERIOD_MILLIS = 5;

    private final AtomicLong inUse = new AtomicLong();
    private final AtomicLong reserved = new AtomicLong();
    private final Thread sampler;
    private volatile boolean running = true;

    private MemoryPeaks() {
        sampler = new Thread(this::sample, "replication-memory-sampler");
        sampler.setDaemon(true);
    }

    /** Starts sampling now. */
    public static MemoryPeaks start() {
        MemoryPeaks peaks = new MemoryPeaks();
        peaks.sampleOnce();
        peaks.sampler.start();
        return peaks;
    }

    private void sample() {
        while (running) {
            sampleOnce();
            try {
                Thread.sleep(PERIOD_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private void sampleOnce() {
        inUse.accumulateAndGet(ReplicationMemory.inUseBytes(), Math::max);
        reserved.accumulateAndGet(ReplicationMemory.reservedBytes(), Math::max);
    }

    /** The largest number of bytes of buffers in use seen. */
    public long inUseBytes() {
        return inUse.get();
    }

    /** The largest number of bytes the pool reserved seen. */
    public long reservedBytes() {
        return reserved.get();
    }

    /** Stops sampling, after one last sample. */
    @Override
    public void close() throws InterruptedException {
        running = false;
        sampler.join();
        sampleOnce();
    }
}
