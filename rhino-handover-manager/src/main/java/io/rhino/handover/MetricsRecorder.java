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
import java.util.Map;

/** The manager's counters; guarded by the manager's lock, read through {@link #snapshot}. */
final class MetricsRecorder {

    private long started;
    private long completed;
    private long failed;
    private long rejected;
    private long lastDurationMillis = -1;
    private Map<HandoverPhase, Long> lastPhaseDurationsMillis = Map.of();

    void recordStarted() {
        started++;
    }

    void recordRejected() {
        rejected++;
    }

    void recordEnded(HandoverResult result) {
        if (result.isCompleted()) {
            completed++;
            lastDurationMillis = result.totalMillis();
            lastPhaseDurationsMillis = result.phaseDurationsMillis();
        } else {
            failed++;
        }
    }

    HandoverMetrics snapshot(long currentEpoch, boolean inFlight, int queued) {
        return new HandoverMetrics(
                started,
                completed,
                failed,
                rejected,
                lastDurationMillis,
                lastPhaseDurationsMillis,
                currentEpoch,
                inFlight,
                queued);
    }
}
