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

package io.rhino.benchmarks.harness;

import io.rhino.benchmarks.harness.ThroughputReport.SecondThroughput;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * Counts records and bytes from any number of threads and keeps a per-second series. Writers only
 * add to {@link LongAdder}s; the heartbeat's {@link #tick()} turns what was added since the
 * previous tick into the rate of the second in which that interval began.
 */
public final class ThroughputMeter {

    private final LongSupplier clock;
    private final long startMillis;
    private final LongAdder records = new LongAdder();
    private final LongAdder bytes = new LongAdder();

    // Reader side below: guarded by this.
    private long intervalStart;
    private long countedRecords;
    private long countedBytes;
    private final List<SecondThroughput> seconds = new ArrayList<>();

    public ThroughputMeter(LongSupplier clockMillis) {
        this(clockMillis, clockMillis.getAsLong());
    }

    public ThroughputMeter(LongSupplier clockMillis, long startMillis) {
        this.clock = clockMillis;
        this.startMillis = startMillis;
        this.intervalStart = startMillis;
    }

    /** A meter on the wall clock, starting now. */
    public static ThroughputMeter startingNow() {
        return new ThroughputMeter(System::currentTimeMillis);
    }

    /** Counts {@code recordCount} records of {@code byteCount} bytes in all. */
    public void record(long recordCount, long byteCount) {
        records.add(recordCount);
        bytes.add(byteCount);
    }

    /** Every record counted so far, ticked or not (for windows that need no second boundary). */
    public long recordsSoFar() {
        return records.sum();
    }

    /** Closes the current interval (the heartbeat calls this about once a second). */
    public synchronized void tick() {
        long now = Math.max(intervalStart, clock.getAsLong());
        long allRecords = records.sum();
        long allBytes = bytes.sum();
        long second = Seconds.index(startMillis, intervalStart);
        SecondThroughput interval =
                new SecondThroughput(
                        second,
                        allRecords - countedRecords,
                        allBytes - countedBytes,
                        (now - intervalStart) / 1000.0);
        SecondThroughput last = seconds.isEmpty() ? null : seconds.get(seconds.size() - 1);
        if (last != null && last.second() == second) {
            // Several ticks in one second: one entry.
            seconds.set(
                    seconds.size() - 1,
                    new SecondThroughput(
                            second,
                            last.records() + interval.records(),
                            last.bytes() + interval.bytes(),
                            last.seconds() + interval.seconds()));
        } else {
            for (long gap = last == null ? 0 : last.second() + 1; gap < second; gap++) {
                seconds.add(new SecondThroughput(gap, 0, 0, 0));
            }
            seconds.add(interval);
        }
        countedRecords = allRecords;
        countedBytes = allBytes;
        intervalStart = now;
    }

    /** What was counted up to the last {@link #tick()}. */
    public synchronized ThroughputReport report() {
        return new ThroughputReport(
                seconds, countedRecords, countedBytes, (intervalStart - startMillis) / 1000.0);
    }

    /** The last completed entry of the series (for progress lines). */
    public synchronized Optional<SecondThroughput> latestSecond() {
        return seconds.isEmpty() ? Optional.empty() : Optional.of(seconds.get(seconds.size() - 1));
    }
}
