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
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How long the steps of one reconfiguration took, in the order they happened, e.g. scheduling,
 * state fetching and state loading (the columns of the paper's Table 5.1).
 */
public record PhaseTimings(Map<String, Duration> durations) {

    /** Step names of the paper's Table 5.1. */
    public static final String SCHEDULING = "scheduling";

    public static final String STATE_FETCHING = "state fetching";
    public static final String STATE_LOADING = "state loading";

    public PhaseTimings {
        durations = Collections.unmodifiableMap(new LinkedHashMap<>(durations));
    }

    /** No steps measured. */
    public static PhaseTimings none() {
        return new PhaseTimings(Map.of());
    }

    /** The durations in seconds, in order. */
    public Map<String, Double> seconds() {
        Map<String, Double> seconds = new LinkedHashMap<>();
        durations.forEach((name, d) -> seconds.put(name, d.toNanos() / 1e9));
        return seconds;
    }
}
