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
import java.util.Optional;

/**
 * What a {@link LatencyRecorder} holds at one moment.
 *
 * @param startMillis wall-clock start of the run; second 0 begins here
 * @param perSecond one entry per second since the start, in order, without gaps (a second without
 *     samples has empty stats)
 * @param total all samples of the run
 * @param phases samples per phase, in the order the phases were first marked
 * @param phaseMarks every phase mark in order
 */
public record LatencyReport(
        long startMillis,
        List<SecondLatency> perSecond,
        LatencyStats total,
        Map<String, LatencyStats> phases,
        List<TimeMark> phaseMarks) {

    /** Latencies that arrived within one second of the run. */
    public record SecondLatency(long second, LatencyStats stats) {}

    public LatencyReport {
        perSecond = List.copyOf(perSecond);
        phases = Collections.unmodifiableMap(new LinkedHashMap<>(phases));
        phaseMarks = List.copyOf(phaseMarks);
    }

    /** The stats of {@code second}, if the report covers it. */
    public Optional<LatencyStats> second(long second) {
        return perSecond.stream()
                .filter(s -> s.second() == second)
                .map(SecondLatency::stats)
                .findFirst();
    }
}
