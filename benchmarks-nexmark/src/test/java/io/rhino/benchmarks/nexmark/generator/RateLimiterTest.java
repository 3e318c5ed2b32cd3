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

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Offset.offset;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The rate limiter on a fake clock: sleeping advances the clock, sending takes no time. */
class RateLimiterTest {

    private static final long SECOND = 1_000_000_000L;

    /** A clock that only moves when the limiter sleeps (or the test advances it). */
    private static final class FakeClock {
        long now = 5 * SECOND; // not zero: the limiter must work relative to its start
        long slept;
        int sleeps;

        RateLimiter limiter(RateSchedule schedule) {
            return new RateLimiter(
                    schedule,
                    () -> now,
                    nanos -> {
                        now += nanos;
                        slept += nanos;
                        sleeps++;
                    },
                    1_000_000L,
                    100_000_000L);
        }
    }

    @Test
    void fixedRateTakesBytesOverRate() throws InterruptedException {
        FakeClock clock = new FakeClock();
        RateLimiter limiter = clock.limiter(RateSchedule.fixed(1e6));
        long start = clock.now;
        for (int i = 0; i < 30_000; i++) {
            limiter.acquire(1_000);
        }
        // 30 MB at 1 MB/s: 30 s, less the last booked sleep below the minimum
        assertThat((double) (clock.now - start)).isCloseTo(30.0 * SECOND, offset(2e6));
        // sleeps of at least 1 ms each, not one per record
        assertThat(clock.sleeps).isLessThan(30_000).isGreaterThan(100);
    }

    @Test
    void maxRateNeverSleeps() throws InterruptedException {
        FakeClock clock = new FakeClock();
        RateLimiter limiter = clock.limiter(RateSchedule.max());
        for (int i = 0; i < 100_000; i++) {
            limiter.acquire(10_000);
        }
        assertThat(clock.sleeps).isZero();
    }

    @Test
    void aStallCatchesUpByAtMostTheBurst() throws InterruptedException {
        FakeClock clock = new FakeClock();
        RateLimiter limiter = clock.limiter(RateSchedule.fixed(1e6));
        limiter.acquire(1_000);
        clock.now += 5 * SECOND; // the thread stalled for 5 s
        long sentWithoutSleep = 0;
        while (clock.sleeps == 0 || sentWithoutSleep == 0) {
            int before = clock.sleeps;
            limiter.acquire(1_000);
            if (clock.sleeps > before) {
                break;
            }
            sentWithoutSleep += 1_000;
        }
        // 100 ms of burst at 1 MB/s is 100 kB (plus the 1 ms sleep threshold)
        assertThat(sentWithoutSleep).isBetween(100_000L, 102_000L);
    }

    @Test
    void paperScheduleStepsUpAndDown() {
        RateSchedule schedule = RateSchedule.paperVarying();
        double[] expected = {
            1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5, 5.5, 6, 6.5, 7, 7.5, 8, 7.5, 7, 6.5, 6, 5.5, 5, 4.5,
            4, 3.5, 3, 2.5, 2, 1.5, 1, 1.5
        };
        for (int step = 0; step < expected.length; step++) {
            assertThat(schedule.bytesPerSecond(step * 10 * SECOND + 5 * SECOND))
                    .as("level of step %s", step)
                    .isEqualTo(expected[step] * 1e6);
        }
        assertThat(schedule.bytesPerSecond(0)).isEqualTo(1e6);
        assertThat(schedule.bytesPerSecond(10 * SECOND - 1)).isEqualTo(1e6);
        assertThat(schedule.bytesPerSecond(10 * SECOND)).isEqualTo(1.5e6);
        // period 280 s
        assertThat(schedule.bytesPerSecond(280 * SECOND + 140 * SECOND)).isEqualTo(8e6);
    }

    @Test
    void varyingRateSendsEachLevelForItsStep() throws InterruptedException {
        FakeClock clock = new FakeClock();
        RateSchedule schedule =
                new RateSchedule.VaryingRate(1e6, 0.5e6, 2e6, Duration.ofSeconds(10));
        RateLimiter limiter = clock.limiter(schedule);
        long start = clock.now;
        long[] bytesPerStep = new long[6];
        while (clock.now - start < 60 * SECOND) {
            int step = (int) ((clock.now - start) / (10 * SECOND));
            limiter.acquire(500);
            bytesPerStep[step] += 500;
        }
        // levels 1, 1.5, 2, 1.5, 1, 1.5 MB/s for 10 s each
        double[] mbPerSecond = {1, 1.5, 2, 1.5, 1, 1.5};
        for (int step = 0; step < 6; step++) {
            assertThat((double) bytesPerStep[step])
                    .as("bytes of step %s", step)
                    .isCloseTo(mbPerSecond[step] * 10e6, offset(10_000.0));
        }
    }
}
