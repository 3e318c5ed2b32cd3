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

package io.rhino.benchmarks.scenarios;

import io.rhino.benchmarks.harness.LatencyRecorder;
import io.rhino.benchmarks.harness.LatencyStats;
import io.rhino.benchmarks.harness.ThroughputMeter;
import io.rhino.benchmarks.harness.ThroughputReport;
import java.time.Duration;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Waits for a job to work off a Kafka backlog, e.g. after a fill at the producer's full speed or a
 * rate it could not sustain: a measurement that starts with minutes of lag measures the lag.
 */
final class Backlog {

    private static final Logger LOG = LoggerFactory.getLogger(Backlog.class);

    private Backlog() {}

    /**
     * Returns once three seconds in a row had a p99 end-to-end latency of at most {@code
     * caughtUpP99}; gives up (with a warning) after {@code timeout}.
     *
     * @param what names the system and the backlog in the log, e.g. "rhino: the fill's backlog"
     * @return when the first of those seconds was seen (to within a second); empty if it gave up
     */
    static Optional<Long> awaitCaughtUp(
            String what, LatencyRecorder latency, Duration caughtUpP99, Duration timeout)
            throws InterruptedException {
        return awaitCaughtUp(what, latency, caughtUpP99, () -> true, timeout);
    }

    /**
     * Returns once three seconds in a row had a p99 end-to-end latency of at most {@code
     * caughtUpP99} and {@code drained} held; gives up (with a warning) after {@code timeout}.
     * Latency alone can look good while a job still reads a backlog at its full speed.
     *
     * @return when the first of those seconds was seen (to within a second); empty if it gave up
     */
    static Optional<Long> awaitCaughtUp(
            String what,
            LatencyRecorder latency,
            Duration caughtUpP99,
            BooleanSupplier drained,
            Duration timeout)
            throws InterruptedException {
        long start = System.currentTimeMillis();
        long deadline = start + timeout.toMillis();
        int secondsCaughtUp = 0;
        long streakStart = start;
        while (secondsCaughtUp < 3) {
            if (System.currentTimeMillis() > deadline) {
                LOG.warn("{}: still behind after {} s; going on", what, timeout.toSeconds());
                return Optional.empty();
            }
            Thread.sleep(1000);
            Optional<LatencyStats> last = latency.latestSecond();
            boolean caughtUp = last.isPresent() && last.get().p99Ms() <= caughtUpP99.toMillis();
            // evaluated every second, so that it can follow the rates second by second
            boolean consumedAsProduced = drained.getAsBoolean();
            secondsCaughtUp = caughtUp && consumedAsProduced ? secondsCaughtUp + 1 : 0;
            if (secondsCaughtUp == 1) {
                streakStart = System.currentTimeMillis();
            }
        }
        LOG.info("{}: caught up in {} s", what, (System.currentTimeMillis() - start) / 1000);
        return Optional.of(streakStart);
    }

    /**
     * Holds once the job reads input no faster than it is produced (within 10% and 100 records per
     * second): a job still working off a backlog reads faster. Call it about once a second.
     *
     * @param produced input records produced so far
     * @param consumed the job's input records, per second
     */
    static BooleanSupplier consumedAsProduced(LongSupplier produced, ThroughputMeter consumed) {
        return consumedAsProduced(produced, consumed, System::currentTimeMillis);
    }

    static BooleanSupplier consumedAsProduced(
            LongSupplier produced, ThroughputMeter consumed, LongSupplier clockMillis) {
        return new BooleanSupplier() {
            private long lastProduced = -1;
            private long lastMillis;

            @Override
            public boolean getAsBoolean() {
                long now = clockMillis.getAsLong();
                long producedNow = produced.getAsLong();
                boolean first = lastProduced < 0;
                double producedPerSecond =
                        first
                                ? 0
                                : (producedNow - lastProduced)
                                        * 1000.0
                                        / Math.max(1, now - lastMillis);
                lastProduced = producedNow;
                lastMillis = now;
                Optional<ThroughputReport.SecondThroughput> second = consumed.latestSecond();
                if (first || second.isEmpty() || second.get().seconds() <= 0) {
                    return false;
                }
                double consumedPerSecond = second.get().records() / second.get().seconds();
                return consumedPerSecond <= 1.1 * producedPerSecond + 100;
            }
        };
    }
}
