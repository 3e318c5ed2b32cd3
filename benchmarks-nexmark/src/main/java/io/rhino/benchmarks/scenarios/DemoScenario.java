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

import io.rhino.benchmarks.harness.Scenario;
import io.rhino.benchmarks.harness.ScenarioContext;
import io.rhino.benchmarks.harness.ScenarioResult;
import io.rhino.benchmarks.harness.SystemUnderTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The showcase's scenario: load balancing of NBQ8 on the default cluster, small enough for a few
 * minutes on two cores; keeps the handovers of its run for the report.
 */
public final class DemoScenario {

    public static final int PARALLELISM = 4;
    public static final int VNODES = 16;
    public static final int CHECKPOINTS = 2;
    public static final int GIVING_SUBTASKS = 2;

    private final NexmarkScenario scenario;
    private final List<RhinoSut.Handover> handovers = new ArrayList<>();

    public DemoScenario(String rate, int warmUpSeconds, int afterSeconds) {
        ScenarioSettings settings =
                new ScenarioSettings(
                        "nbq8",
                        rate,
                        Duration.ofSeconds(afterSeconds),
                        Duration.ofSeconds(warmUpSeconds),
                        CHECKPOINTS,
                        Duration.ofSeconds(3),
                        0,
                        PARALLELISM,
                        VNODES,
                        GIVING_SUBTASKS,
                        1,
                        4,
                        Duration.ofHours(12),
                        42);
        this.scenario = Scenarios.create("load-balancing", settings);
    }

    /** The scenario to run; it records the handovers of the system it ran on. */
    public Scenario scenario() {
        return new Scenario() {
            @Override
            public String name() {
                return "demo-" + scenario.name();
            }

            @Override
            public Duration expectedDuration() {
                return scenario.expectedDuration();
            }

            @Override
            public ScenarioResult run(SystemUnderTest sut, ScenarioContext context)
                    throws Exception {
                ScenarioResult result = scenario.run(sut, context);
                if (sut instanceof RhinoSut rhino) {
                    handovers.addAll(rhino.handovers());
                }
                return result;
            }
        };
    }

    /** The handovers of the last run. */
    public List<RhinoSut.Handover> handovers() {
        return List.copyOf(handovers);
    }
}
