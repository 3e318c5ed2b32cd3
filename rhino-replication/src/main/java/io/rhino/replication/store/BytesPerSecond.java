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
import java.util.function.LongSupplier;

/**
 * A {@link ReadPace} that holds the reader back until its bytes so far fit the rate since its first
 * chunk. It sleeps only once the reader is a millisecond ahead, so small chunks do not cost a sleep
 * each; a reader that falls behind (a slow disk) gains no credit beyond its own pace.
 */
final class BytesPerSecond implements ReadPace {

    /** Sleeps shorter than this are skipped, the debt carried to the next chunk. */
    private static final long MIN_SLEEP_NANOS = 1_000_000;

    interface Sleeper {
        void sleep(long nanos) throws InterruptedException;
    }

    private final long bytesPerSecond;
    private final LongSupplier nanoClock;
    private final Sleeper sleeper;
    private long startNanos;
    private long bytesSinceStart;

    BytesPerSecond(long bytesPerSecond, LongSupplier nanoClock, Sleeper sleeper) {
        if (bytesPerSecond <= 0) {
            throw new IllegalArgumentException("bytes per second must be > 0: " + bytesPerSecond);
        }
        this.bytesPerSecond = bytesPerSecond;
        this.nanoClock = nanoClock;
        this.sleeper = sleeper;
        this.startNanos = nanoClock.getAsLong();
    }

    @Override
    public void read(long bytes) throws InterruptedIOException {
        long now = nanoClock.getAsLong();
        bytesSinceStart += bytes;
        long due = startNanos + (long) (bytesSinceStart * 1e9 / bytesPerSecond);
        long ahead = due - now;
        if (ahead < -1_000_000_000L) {
            // behind by more than a second: restart the pace from here instead of bursting
            startNanos = now;
            bytesSinceStart = 0;
            return;
        }
        if (ahead >= MIN_SLEEP_NANOS) {
            try {
                sleeper.sleep(ahead);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while pacing a read");
            }
        }
    }
}
