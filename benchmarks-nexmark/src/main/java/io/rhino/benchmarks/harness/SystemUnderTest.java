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
 * A system under test (SUT): Rhino, plain Flink, RhinoDFS, ... It runs a scenario's workload,
 * reconfigures it on request and reports how long the steps of a reconfiguration took. The instance
 * is reused for every run of every scenario, so {@link #start} must start from scratch.
 */
public interface SystemUnderTest {

    /** Name in CSVs, plots and tables, e.g. "rhino" or "flink". */
    String name();

    /**
     * Deploys {@code workload} and returns once it is processing. Its probes report to the
     * context's recorders under {@link ScenarioContext#runId()}.
     *
     * @throws UnsupportedOperationException when this system cannot run the workload
     */
    void start(Workload workload, ScenarioContext context) throws Exception;

    /** Performs {@code reconfiguration} on the running workload and says how long it took. */
    PhaseTimings reconfigure(Reconfiguration reconfiguration, ScenarioContext context)
            throws Exception;

    /** Stops the workload and frees its resources; does nothing when nothing runs. */
    void stop() throws Exception;
}
