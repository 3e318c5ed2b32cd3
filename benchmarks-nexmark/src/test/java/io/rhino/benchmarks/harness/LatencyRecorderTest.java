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
import static org.assertj.core.api.Assertions.within;

import io.rhino.benchmarks.harness.LatencyReport.SecondLatency;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class LatencyRecorderTest {

    private static final long START = 1_700_000_000_000L;

    @Test
    void knownLatenciesGiveExpectedPercentiles() {
        FakeClock clock = new FakeClock(START);
        LatencyRecorder recorder = new LatencyRecorder(clock);
        for (int ms = 1; ms <= 1000; ms++) {
            recorder.record(ms);
        }
        clock.advance(1000);
        recorder.tick();

        LatencyStats total = recorder.report().total();
        assertThat(total.count()).isEqualTo(1000);
        assertThat(total.minMs()).isEqualTo(1);
        assertThat(total.p50Ms()).isEqualTo(500);
        assertThat(total.p99Ms()).isEqualTo(990);
        assertThat(total.p999Ms()).isEqualTo(999);
        assertThat(total.maxMs()).isEqualTo(1000);
        assertThat(total.meanMs()).isCloseTo(500.5, within(1e-9));
    }

    @Test
    void samplesLandInTheSecondTheyArrivedIn() {
        FakeClock clock = new FakeClock(START);
        LatencyRecorder recorder = new LatencyRecorder(clock);

        // second 0: 10, 20, 30
        recorder.record(10);
        recorder.record(20);
        recorder.record(30);
        clock.set(START + 1000);
        recorder.tick();
        // second 1: nothing; second 2: 100 and 300 (the heartbeat twice within it)
        clock.set(START + 2000);
        recorder.tick();
        clock.set(START + 2400);
        recorder.record(100);
        recorder.tick();
        recorder.record(300);
        clock.set(START + 3000);
        recorder.tick();
        // A late heartbeat: the interval from 3 s runs until 5.2 s and all of it counts for
        // second 3; second 4 gets no interval and shows up empty once second 5 has one.
        recorder.record(7);
        clock.set(START + 5200);
        recorder.tick();
        clock.set(START + 6000);
        recorder.tick();

        List<SecondLatency> seconds = recorder.report().perSecond();
        assertThat(seconds)
                .extracting(SecondLatency::second)
                .containsExactly(0L, 1L, 2L, 3L, 4L, 5L);
        LatencyStats s0 = seconds.get(0).stats();
        assertThat(s0.count()).isEqualTo(3);
        assertThat(s0.meanMs()).isCloseTo(20.0, within(1e-9));
        assertThat(s0.minMs()).isEqualTo(10);
        assertThat(s0.p50Ms()).isEqualTo(20);
        assertThat(s0.p99Ms()).isEqualTo(30);
        assertThat(s0.maxMs()).isEqualTo(30);
        assertThat(seconds.get(1).stats().isEmpty()).isTrue();
        LatencyStats s2 = seconds.get(2).stats();
        assertThat(s2.count()).isEqualTo(2);
        assertThat(s2.minMs()).isEqualTo(100);
        assertThat(s2.maxMs()).isEqualTo(300);
        assertThat(s2.meanMs()).isCloseTo(200.0, within(1e-9));
        assertThat(seconds.get(3).stats().count()).isEqualTo(1);
        assertThat(seconds.get(4).stats().isEmpty()).isTrue();
        assertThat(seconds.get(5).stats().isEmpty()).isTrue();
        assertThat(recorder.report().total().count()).isEqualTo(6);
    }

    @Test
    void recordSinceUsesTheRecordersClockAndClampsNegativeLatencies() {
        FakeClock clock = new FakeClock(START);
        LatencyRecorder recorder = new LatencyRecorder(clock);
        clock.set(START + 750);
        recorder.recordSince(START + 500); // 250 ms
        recorder.recordSince(START + 900); // from the future: 0 ms
        recorder.tick();

        LatencyStats total = recorder.report().total();
        assertThat(total.count()).isEqualTo(2);
        assertThat(total.minMs()).isZero();
        assertThat(total.maxMs()).isEqualTo(250);
    }

    @Test
    void phasesSplitAtTheirMarks() {
        FakeClock clock = new FakeClock(START);
        LatencyRecorder recorder = new LatencyRecorder(clock);
        recorder.markPhase("steady", START);
        recorder.record(10);
        recorder.record(12);
        clock.set(START + 1000);
        recorder.tick();
        clock.set(START + 1500);
        recorder.record(14);
        recorder.markPhase("during-reconfiguration", START + 1500);
        recorder.record(900);
        recorder.record(1100);
        clock.set(START + 2000);
        recorder.tick();
        recorder.markPhase("after", START + 2000);
        recorder.record(11);
        clock.set(START + 3000);
        recorder.tick();

        LatencyReport report = recorder.report();
        assertThat(report.phases()).containsOnlyKeys("steady", "during-reconfiguration", "after");
        assertThat(report.phases().keySet())
                .containsExactly("steady", "during-reconfiguration", "after");
        LatencyStats steady = report.phases().get("steady");
        assertThat(steady.count()).isEqualTo(3);
        assertThat(steady.maxMs()).isEqualTo(14);
        LatencyStats during = report.phases().get("during-reconfiguration");
        assertThat(during.count()).isEqualTo(2);
        assertThat(during.minMs()).isEqualTo(900);
        assertThat(during.maxMs()).isEqualTo(1100);
        assertThat(report.phases().get("after").count()).isEqualTo(1);
        assertThat(report.phaseMarks())
                .containsExactly(
                        new TimeMark("steady", START),
                        new TimeMark("during-reconfiguration", START + 1500),
                        new TimeMark("after", START + 2000));
        // The split inside second 1 does not split the second.
        assertThat(report.second(1).orElseThrow().count()).isEqualTo(3);
        assertThat(report.total().count()).isEqualTo(6);
    }

    @Test
    void samplesBeforeTheFirstMarkFormTheInitialPhase() {
        FakeClock clock = new FakeClock(START);
        LatencyRecorder recorder = new LatencyRecorder(clock);
        recorder.record(5);
        recorder.markPhase("steady");
        recorder.record(6);
        recorder.tick();

        assertThat(recorder.report().phases())
                .containsOnlyKeys(LatencyRecorder.INITIAL_PHASE, "steady");
        assertThat(recorder.report().phases().get(LatencyRecorder.INITIAL_PHASE).count())
                .isEqualTo(1);
    }

    @Test
    void concurrentWritersLoseNoSamples() throws Exception {
        LatencyRecorder recorder = LatencyRecorder.startingNow();
        int writers = 4;
        int perWriter = 200_000;
        CountDownLatch go = new CountDownLatch(1);
        AtomicBoolean writing = new AtomicBoolean(true);
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            int offset = w;
            Thread t =
                    new Thread(
                            () -> {
                                try {
                                    go.await();
                                } catch (InterruptedException e) {
                                    Thread.currentThread().interrupt();
                                    return;
                                }
                                for (int i = 0; i < perWriter; i++) {
                                    recorder.record((i + offset) % 5000);
                                }
                            });
            t.start();
            threads.add(t);
        }
        // A reader cutting intervals and phases all the time while the writers write.
        Thread reader =
                new Thread(
                        () -> {
                            int n = 0;
                            while (writing.get()) {
                                if (++n % 50 == 0) {
                                    recorder.markPhase("p" + (n / 50 % 3));
                                } else {
                                    recorder.tick();
                                }
                            }
                        });
        reader.start();
        go.countDown();
        for (Thread t : threads) {
            t.join();
        }
        writing.set(false);
        reader.join();
        recorder.tick();

        LatencyReport report = recorder.report();
        long expected = (long) writers * perWriter;
        assertThat(report.total().count()).isEqualTo(expected);
        assertThat(report.perSecond().stream().mapToLong(s -> s.stats().count()).sum())
                .isEqualTo(expected);
        assertThat(report.phases().values().stream().mapToLong(LatencyStats::count).sum())
                .isEqualTo(expected);
    }
}
