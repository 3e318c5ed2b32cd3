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

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MeasuredWindowTest {

    private static final long START = SampleRuns.START;

    /**
     * 20 s of a run: latency {@code 100 + second} ms and CPU {@code 50 + second} % each second, the
     * steady phase from {@code steadyAtMillis} (none if beyond the run), a rebalance at 15.5 s.
     */
    private static RunData runWithFillUntil(long steadyAtMillis) {
        FakeClock clock = new FakeClock(START);
        LatencyRecorder latency = new LatencyRecorder(clock, START);
        List<ResourceSample> resources = new ArrayList<>();
        for (int s = 0; s < 20; s++) {
            if (s == steadyAtMillis / 1000) {
                latency.markPhase(ScenarioContext.STEADY, START + steadyAtMillis);
            }
            latency.record(100 + s);
            resources.add(
                    new ResourceSample(
                            s,
                            clock.getAsLong(),
                            10L * s,
                            50.0 + s,
                            null,
                            null,
                            null,
                            null,
                            null,
                            null,
                            null,
                            null,
                            null));
            clock.advance(1000);
            latency.tick();
        }
        return new RunData(
                "nbq8-load-balancing",
                "rhino",
                1,
                "1 GB",
                START,
                latency.report(),
                new ThroughputMeter(clock, START).report(),
                resources,
                List.of(new TimeMark("rebalance", START + 15_500)),
                Map.of(),
                Map.of());
    }

    @Test
    void theFiguresStartInTheSecondTheSteadyPhaseBegan() {
        RunData run = runWithFillUntil(12_400);
        MeasuredWindow window = MeasuredWindow.of(run);

        assertThat(window.fromSecond()).isEqualTo(12);
        LatencyReport shown = window.latency(run.latency());
        assertThat(shown.perSecond()).hasSize(8);
        assertThat(shown.perSecond().get(0).second()).isZero();
        assertThat(shown.perSecond().get(0).stats().maxMs()).isEqualTo(112);
        assertThat(shown.perSecond().get(7).stats().maxMs()).isEqualTo(119);
        assertThat(shown.total())
                .as("the phases' figures stay whole")
                .isEqualTo(run.latency().total());
        List<ResourceSample> samples = window.resources(run.resources());
        assertThat(samples)
                .extracting(ResourceSample::second)
                .containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L);
        assertThat(samples.get(0).cpuPercent()).isEqualTo(62.0);
        assertThat(window.second(run.reconfigurations().get(0), run.startMillis())).isEqualTo(3.5);
    }

    @Test
    void aRunWithoutASteadyPhaseIsShownWhole() {
        RunData run = runWithFillUntil(60_000);
        MeasuredWindow window = MeasuredWindow.of(run);

        assertThat(window.fromSecond()).isZero();
        assertThat(window.latency(run.latency()).perSecond()).isEqualTo(run.latency().perSecond());
        assertThat(window.resources(run.resources())).isEqualTo(run.resources());
        assertThat(window.second(run.reconfigurations().get(0), run.startMillis())).isEqualTo(15.5);
    }
}
