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

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The pace of a bounded read, on a clock the test turns: no wall time is measured. */
class BytesPerSecondTest {

    private long now = 5_000_000_000L;
    private final List<Long> sleeps = new ArrayList<>();

    private BytesPerSecond pace(long bytesPerSecond) {
        return new BytesPerSecond(
                bytesPerSecond,
                () -> now,
                nanos -> {
                    sleeps.add(nanos);
                    now += nanos;
                });
    }

    @Test
    void aReaderFasterThanTheRateIsHeldToIt() throws Exception {
        BytesPerSecond pace = pace(1_000_000); // 1 MB/s
        for (int chunk = 0; chunk < 100; chunk++) {
            pace.read(65_536); // read instantly: only the pace moves the clock
        }
        long elapsed = now - 5_000_000_000L;
        assertThat(elapsed).isBetween(6_553_600_000L - 1_000_000, 6_553_600_000L);
    }

    @Test
    void smallChunksSleepOnlyOnceAMillisecondAhead() throws Exception {
        BytesPerSecond pace = pace(1_000_000_000); // 1 GB/s: a 4 KB chunk is 4 µs
        for (int chunk = 0; chunk < 1_000; chunk++) {
            pace.read(4_096);
        }
        assertThat(sleeps).as("sleeps for 4 MB at 1 GB/s").hasSizeLessThanOrEqualTo(5);
        assertThat(sleeps).allSatisfy(nanos -> assertThat(nanos).isGreaterThanOrEqualTo(1_000_000));
    }

    @Test
    void aReaderSlowerThanTheRateIsNeverHeld() throws Exception {
        BytesPerSecond pace = pace(1_000_000);
        for (int chunk = 0; chunk < 10; chunk++) {
            now += 2_000_000; // 2 ms per 1 KB: 0.5 MB/s
            pace.read(1_000);
        }
        assertThat(sleeps).isEmpty();
    }

    @Test
    void aReaderLongBehindGainsNoBurst() throws Exception {
        BytesPerSecond pace = pace(1_000_000);
        pace.read(1_000);
        now += 10_000_000_000L; // stalled 10 s: 10 MB of credit if it were kept
        pace.read(1_000);
        long before = now;
        pace.read(500_000);
        assertThat(now - before).as("held for 0.5 MB at 1 MB/s").isGreaterThan(490_000_000L);
    }

    @Test
    void anInterruptedReaderStopsWithItsFlagKept() {
        ReadPace pace = ReadPace.bytesPerSecond(1);
        Thread.currentThread().interrupt();
        try {
            assertThatThrownBy(() -> pace.read(1_000)).isInstanceOf(InterruptedIOException.class);
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }
    }

    @Test
    void noLimitAndABadRate() {
        assertThat(ReadPace.bytesPerSecond(0)).isSameAs(ReadPace.UNLIMITED);
        assertThatThrownBy(() -> pace(0)).isInstanceOf(IllegalArgumentException.class);
    }
}
