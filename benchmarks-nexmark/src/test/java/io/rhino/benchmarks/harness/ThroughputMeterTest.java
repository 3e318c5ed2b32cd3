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

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.assertj.core.api.Assertions.within;

import io.rhino.benchmarks.harness.ThroughputReport.SecondThroughput;
import java.util.List;
import org.junit.jupiter.api.Test;

class ThroughputMeterTest {

    private static final long START = 1_000_000L;

    @Test
    void ratesPerSecondAndOverall() {
        FakeClock clock = new FakeClock(START);
        ThroughputMeter meter = new ThroughputMeter(clock);
        meter.record(1000, 32_000);
        clock.set(START + 1000);
        meter.tick();
        meter.record(3000, 2_000_000);
        clock.set(START + 1500);
        meter.tick();
        meter.record(1000, 1_000_000);
        clock.set(START + 2000);
        meter.tick();

        ThroughputReport report = meter.report();
        List<SecondThroughput> seconds = report.perSecond();
        assertThat(seconds).extracting(SecondThroughput::second).containsExactly(0L, 1L);
        assertThat(seconds.get(0).recordsPerSecond()).isCloseTo(1000, within(1e-9));
        assertThat(seconds.get(0).megabytesPerSecond()).isCloseTo(0.032, within(1e-9));
        assertThat(seconds.get(1).records()).isEqualTo(4000);
        assertThat(seconds.get(1).recordsPerSecond()).isCloseTo(4000, within(1e-9));
        assertThat(seconds.get(1).megabytesPerSecond()).isCloseTo(3.0, within(1e-9));
        assertThat(report.records()).isEqualTo(5000);
        assertThat(report.seconds()).isCloseTo(2.0, within(1e-9));
        assertThat(report.recordsPerSecond()).isCloseTo(2500, within(1e-9));
        assertThat(report.megabytesPerSecond()).isCloseTo(1.516, within(1e-9));
    }

    @Test
    void secondsWithoutAHeartbeatAreEmptyEntries() {
        FakeClock clock = new FakeClock(START);
        ThroughputMeter meter = new ThroughputMeter(clock);
        clock.set(START + 900);
        meter.tick();
        meter.record(10, 10);
        // A late heartbeat: everything from 0.9 s to 3.1 s counts for second 0.
        clock.set(START + 3100);
        meter.tick();
        clock.set(START + 4000);
        meter.tick();

        assertThat(meter.report().perSecond())
                .extracting(SecondThroughput::second, SecondThroughput::records)
                .containsExactly(tuple(0L, 10L), tuple(1L, 0L), tuple(2L, 0L), tuple(3L, 0L));
    }
}
