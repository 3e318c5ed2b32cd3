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

import java.util.List;
import java.util.Map;

/** Runs with known figures for the writer and plot tests, made with the real recorders. */
public final class SampleRuns {

    public static final long START = 1_700_000_000_000L;

    private SampleRuns() {}

    /**
     * {@code seconds} seconds of one sample per second of {@code base} ms (and a spike of {@code
     * spike} ms in the second after the reconfiguration at {@code reconfigureAt}), 1000 records of
     * 100 bytes per second, and a resource sample per second.
     */
    public static RunData run(String sut, int seconds, long base, long spike, int reconfigureAt) {
        FakeClock clock = new FakeClock(START);
        LatencyRecorder latency = new LatencyRecorder(clock, START);
        ThroughputMeter throughput = new ThroughputMeter(clock, START);
        latency.markPhase(ScenarioContext.STEADY, START);
        List<ResourceSample> resources = new java.util.ArrayList<>();
        for (int s = 0; s < seconds; s++) {
            if (s == reconfigureAt) {
                latency.markPhase(ScenarioContext.DURING_RECONFIGURATION, clock.getAsLong());
            } else if (s == reconfigureAt + 2) {
                latency.markPhase(ScenarioContext.AFTER_RECONFIGURATION, clock.getAsLong());
            }
            latency.record(s == reconfigureAt + 1 ? spike : base + s % 3);
            throughput.record(1000, 100_000);
            resources.add(
                    new ResourceSample(
                            s,
                            clock.getAsLong(),
                            1000L * s,
                            s == 0 ? null : 50.0 + s,
                            300_000_000L + 1_000_000L * s,
                            4096L * s,
                            8192L * s,
                            s == 0 ? null : 4096.0,
                            s == 0 ? null : 8192.0,
                            10_000L * s,
                            20_000L * s,
                            s == 0 ? null : 10_000.0,
                            s == 0 ? null : 20_000.0));
            clock.advance(1000);
            latency.tick();
            throughput.tick();
        }
        return new RunData(
                "nbq8-scale-out",
                sut,
                1,
                "250 GB",
                START,
                latency.report(),
                throughput.report(),
                resources,
                List.of(new TimeMark("scale-out", START + reconfigureAt * 1000L)),
                Map.of("scheduling", 2.5),
                Map.of());
    }
}
