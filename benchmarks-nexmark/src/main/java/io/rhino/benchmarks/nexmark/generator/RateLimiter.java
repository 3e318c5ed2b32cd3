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

package io.rhino.benchmarks.nexmark.generator;

import java.util.concurrent.locks.LockSupport;

/**
 * Paces one producer thread to a {@link RateSchedule}. Each {@link #acquire(int)} books the time
 * its bytes take at the current rate and sleeps while the thread is ahead of its schedule by more
 * than {@code minSleepNanos} (sleeping per record would cost more than the records). A thread that
 * fell behind catches up by at most {@code maxBurstNanos} worth of records, so a stall does not
 * turn into an unbounded burst. Pure logic over an injected clock and sleeper, so tests run it on a
 * fake clock.
 */
public final class RateLimiter {

    /** A monotonic clock in nanoseconds. */
    @FunctionalInterface
    public interface NanoClock {
        long nanoTime();
    }

    /** Sleeps for about the given nanoseconds. */
    @FunctionalInterface
    public interface Sleeper {
        void sleepNanos(long nanos) throws InterruptedException;
    }

    private final RateSchedule schedule;
    private final NanoClock clock;
    private final Sleeper sleeper;
    private final long minSleepNanos;
    private final long maxBurstNanos;

    private boolean started;
    private long startNanos;

    /** When the bytes booked so far are due; a double to keep sub-nanosecond shares of records. */
    private double dueNanos;

    public RateLimiter(
            RateSchedule schedule,
            NanoClock clock,
            Sleeper sleeper,
            long minSleepNanos,
            long maxBurstNanos) {
        this.schedule = schedule;
        this.clock = clock;
        this.sleeper = sleeper;
        this.minSleepNanos = minSleepNanos;
        this.maxBurstNanos = maxBurstNanos;
    }

    /** A limiter on the system clock: sleeps of at least 1 ms, bursts of at most 100 ms. */
    public static RateLimiter onSystemClock(RateSchedule schedule) {
        return new RateLimiter(
                schedule,
                System::nanoTime,
                nanos -> {
                    LockSupport.parkNanos(nanos);
                    if (Thread.interrupted()) {
                        throw new InterruptedException();
                    }
                },
                1_000_000L,
                100_000_000L);
    }

    /** Waits until {@code bytes} more may be sent. */
    public void acquire(int bytes) throws InterruptedException {
        long now = clock.nanoTime();
        if (!started) {
            started = true;
            startNanos = now;
            dueNanos = now;
        }
        double rate = schedule.bytesPerSecond(now - startNanos);
        if (Double.isInfinite(rate)) {
            return;
        }
        dueNanos = Math.max(dueNanos, (double) (now - maxBurstNanos)) + bytes * 1e9 / rate;
        long ahead = (long) dueNanos - now;
        if (ahead > minSleepNanos) {
            sleeper.sleepNanos(ahead);
        }
    }
}
