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

package io.rhino.handover;

import io.rhino.core.handover.HandoverPhase;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A consistent snapshot of a {@link HandoverManager}'s counters and gauges, e.g. for Flink metric
 * gauges or the REST API.
 *
 * @param started handovers that sent their command to the routers
 * @param completed handovers that completed
 * @param failed accepted handovers that failed, including queued ones that never started
 * @param rejected requests refused up front (invalid plan, another handover in the way)
 * @param lastDurationMillis total milliseconds of the last completed handover, or -1 if none
 * @param lastPhaseDurationsMillis phase durations of the last completed handover (see {@link
 *     HandoverResult#phaseDurationsMillis()}); empty if none
 * @param currentEpoch the epoch of the manager's routing table
 * @param inFlight whether a handover has started and not ended
 * @param queued how many accepted handovers wait to start
 */
public record HandoverMetrics(
        long started,
        long completed,
        long failed,
        long rejected,
        long lastDurationMillis,
        Map<HandoverPhase, Long> lastPhaseDurationsMillis,
        long currentEpoch,
        boolean inFlight,
        int queued) {

    /** Copies the phase durations. */
    public HandoverMetrics {
        Objects.requireNonNull(
                lastPhaseDurationsMillis,
                "lastPhaseDurationsMillis: null (expected: a map, maybe empty)");
        lastPhaseDurationsMillis =
                Collections.unmodifiableMap(new LinkedHashMap<>(lastPhaseDurationsMillis));
    }
}
