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

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Everything measured in one run of one scenario on one system under test: the input of the CSV
 * writers, the plots and the summary table.
 *
 * @param scenario scenario name
 * @param sut system under test
 * @param repetition 1-based repetition of the scenario on this system
 * @param group what the scenario varies, e.g. the state size ("250 GB"); rows of the summary table
 * @param startMillis wall-clock start of the run (second 0)
 * @param latency the run's latencies
 * @param throughput the run's records and bytes
 * @param resources the run's resource samples
 * @param reconfigurations moments reconfigurations were triggered
 * @param timingsSeconds durations the scenario measured, e.g. scheduling / state fetching / state
 *     loading, in seconds
 * @param figures other figures the scenario measured, named with their unit
 */
public record RunData(
        String scenario,
        String sut,
        int repetition,
        String group,
        long startMillis,
        LatencyReport latency,
        ThroughputReport throughput,
        List<ResourceSample> resources,
        List<TimeMark> reconfigurations,
        Map<String, Double> timingsSeconds,
        Map<String, Double> figures) {

    public RunData {
        figures = Collections.unmodifiableMap(new LinkedHashMap<>(figures));
        resources = List.copyOf(resources);
        reconfigurations = List.copyOf(reconfigurations);
        timingsSeconds = Collections.unmodifiableMap(new LinkedHashMap<>(timingsSeconds));
    }
}
