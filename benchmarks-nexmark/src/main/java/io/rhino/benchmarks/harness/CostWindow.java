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

/**
 * A measured window of a run: opened once the job is warm, closed at the end of the run; what the
 * job consumed and the CPU it took in between ({@link WindowCost}).
 */
public final class CostWindow {

    private final ScenarioContext context;
    private final long startMillis;
    private final long recordsAtStart;
    private final Long cpuMillisAtStart;
    private final InputSideThreads inputSide;
    private final WindowProfile profile;

    private CostWindow(ScenarioContext context) {
        this.context = context;
        this.inputSide = InputSideThreads.startCounting();
        this.cpuMillisAtStart = context.resources().cpuMillisNow();
        this.recordsAtStart = context.throughput().recordsSoFar();
        this.startMillis = context.nowMillis();
        this.profile = WindowProfile.startFor(context);
    }

    /** Opens a window now. */
    public static CostWindow open(ScenarioContext context) {
        return new CostWindow(context);
    }

    /** Closes the window now. */
    public WindowCost close() {
        long records = context.throughput().recordsSoFar() - recordsAtStart;
        double seconds = (context.nowMillis() - startMillis) / 1000.0;
        Long cpuNow = context.resources().cpuMillisNow();
        long inputSideMillis = inputSide.cpuMillisSinceStart();
        Long cpu = cpuNow == null || cpuMillisAtStart == null ? null : cpuNow - cpuMillisAtStart;
        profile.stop();
        return new WindowCost(seconds, records, cpu, inputSideMillis);
    }
}
