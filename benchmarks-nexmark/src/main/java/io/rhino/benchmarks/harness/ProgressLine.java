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

import java.io.PrintStream;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * Prints a progress line such as {@code [scenario] 42% 1m10s elapsed, ETA 1m37s, 12,345 rec/s, p99
 * 120 ms} at most once every few seconds. The ETA assumes the rest goes as fast as what is done:
 * elapsed × (1 − done) / done.
 */
public final class ProgressLine {

    private final String label;
    private final LongSupplier clock;
    private final long startMillis;
    private final long minIntervalMillis;
    private final PrintStream out;
    private long lastPrintMillis = Long.MIN_VALUE;

    /**
     * @param label printed in brackets, e.g. the scenario and system under test
     * @param clockMillis the clock; elapsed time counts from now
     * @param minIntervalMillis at least this long between two lines
     * @param out where the lines go
     */
    public ProgressLine(
            String label, LongSupplier clockMillis, long minIntervalMillis, PrintStream out) {
        this.label = label;
        this.clock = clockMillis;
        this.startMillis = clockMillis.getAsLong();
        this.minIntervalMillis = minIntervalMillis;
        this.out = out;
    }

    /**
     * Prints the line unless one was printed less than the minimum interval ago.
     *
     * @param fractionDone 0 to 1
     * @param recordsPerSecond current throughput
     * @param p99Millis current p99 latency, negative when unknown
     * @return whether a line was printed
     */
    public synchronized boolean update(
            double fractionDone, double recordsPerSecond, long p99Millis) {
        long now = clock.getAsLong();
        if (lastPrintMillis != Long.MIN_VALUE && now - lastPrintMillis < minIntervalMillis) {
            return false;
        }
        lastPrintMillis = now;
        out.println(format(fractionDone, recordsPerSecond, p99Millis));
        return true;
    }

    /** The line for the current time, without printing it. */
    public String format(double fractionDone, double recordsPerSecond, long p99Millis) {
        long elapsed = Math.max(0, clock.getAsLong() - startMillis);
        double done = Math.min(1, Math.max(0, fractionDone));
        String eta = done > 0 ? duration(etaMillis(elapsed, done)) : "?";
        String p99 = p99Millis >= 0 ? String.format(Locale.ROOT, "%,d ms", p99Millis) : "- ms";
        return String.format(
                Locale.ROOT,
                "[%s] %d%% %s elapsed, ETA %s, %,d rec/s, p99 %s",
                label,
                (long) Math.floor(done * 100 + 1e-9),
                duration(elapsed),
                eta,
                Math.round(recordsPerSecond),
                p99);
    }

    /** Time left when {@code done} of the work took {@code elapsedMillis}. */
    static long etaMillis(long elapsedMillis, double done) {
        return Math.round(elapsedMillis * (1 - done) / done);
    }

    /** "45s", "1m10s", "2h03m" (rounded to whole seconds). */
    static String duration(long millis) {
        long seconds = Math.round(millis / 1000.0);
        if (seconds < 60) {
            return seconds + "s";
        }
        if (seconds < 3600) {
            return String.format(Locale.ROOT, "%dm%02ds", seconds / 60, seconds % 60);
        }
        return String.format(Locale.ROOT, "%dh%02dm", seconds / 3600, seconds % 3600 / 60);
    }
}
