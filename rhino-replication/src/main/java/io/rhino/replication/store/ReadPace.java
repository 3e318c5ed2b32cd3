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

package io.rhino.replication.store;

import java.io.InterruptedIOException;

/**
 * Paces a reader: told of every chunk it read, it may hold the reader back. A check of a whole
 * replica that runs beside a subtask's processing reads at a bounded rate through one, so that it
 * leaves the disk and the cores to the subtask.
 */
@FunctionalInterface
public interface ReadPace {

    /** Reads at the disk's speed. */
    ReadPace UNLIMITED = bytes -> {};

    /**
     * Called after each chunk of {@code bytes} read; returns when the reader may go on.
     *
     * @throws InterruptedIOException if the reader's thread is interrupted while held back (its
     *     interrupt flag stays set)
     */
    void read(long bytes) throws InterruptedIOException;

    /** At most {@code bytesPerSecond} on average ({@code <= 0}: unlimited). */
    static ReadPace bytesPerSecond(long bytesPerSecond) {
        return bytesPerSecond <= 0
                ? UNLIMITED
                : new BytesPerSecond(bytesPerSecond, System::nanoTime, ReadPace::sleepNanos);
    }

    private static void sleepNanos(long nanos) throws InterruptedException {
        Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
    }
}
