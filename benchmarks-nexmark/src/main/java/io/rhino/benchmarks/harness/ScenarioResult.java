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
import java.util.Map;

/**
 * What a scenario reports beyond its recorders.
 *
 * @param group what the scenario varied in this run, e.g. the state size ("250 GB"); the rows of
 *     the summary table
 * @param timingsSeconds durations it measured in seconds, e.g. {@link PhaseTimings#seconds()} of
 *     its reconfiguration
 * @param figures other figures it measured, named with their unit, e.g. "max sustainable (MB/s)"
 */
public record ScenarioResult(
        String group, Map<String, Double> timingsSeconds, Map<String, Double> figures) {

    public ScenarioResult {
        timingsSeconds = Collections.unmodifiableMap(new LinkedHashMap<>(timingsSeconds));
        figures = Collections.unmodifiableMap(new LinkedHashMap<>(figures));
    }

    public static ScenarioResult of(String group, PhaseTimings timings) {
        return new ScenarioResult(group, timings.seconds(), Map.of());
    }
}
