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

import java.time.Duration;

/**
 * One experiment, e.g. "vertical scaling of NBQ8": it starts a workload on a system under test,
 * marks phases, triggers reconfigurations through the context and returns what it measured beyond
 * the recorders. The {@link ScenarioRunner} stops the system afterwards.
 */
public interface Scenario {

    /** Name in CSVs, plots, tables and output directories, e.g. "nbq8-scale-out". */
    String name();

    /** Expected length of one run, for the progress line's ETA; zero when unknown. */
    default Duration expectedDuration() {
        return Duration.ZERO;
    }

    /** Runs once on {@code sut}. */
    ScenarioResult run(SystemUnderTest sut, ScenarioContext context) throws Exception;
}
