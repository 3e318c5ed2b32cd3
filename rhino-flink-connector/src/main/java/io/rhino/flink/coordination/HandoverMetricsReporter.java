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

package io.rhino.flink.coordination;

import io.rhino.core.handover.HandoverPhase;
import io.rhino.handover.HandoverManager;
import org.apache.flink.metrics.MetricGroup;

/**
 * Publishes a handover manager's figures in the gate coordinator's Flink metric group (group {@code
 * rhino}): counters of handovers started, completed, failed and rejected, the last handover's
 * duration and per-phase durations, and the routing table's epoch.
 */
final class HandoverMetricsReporter {

    private HandoverMetricsReporter() {}

    static void register(MetricGroup coordinatorGroup, HandoverManager manager) {
        MetricGroup group = coordinatorGroup.addGroup("rhino");
        group.gauge("handoversStarted", () -> manager.metrics().started());
        group.gauge("handoversCompleted", () -> manager.metrics().completed());
        group.gauge("handoversFailed", () -> manager.metrics().failed());
        group.gauge("handoversRejected", () -> manager.metrics().rejected());
        group.gauge("handoverInFlight", () -> manager.metrics().inFlight() ? 1 : 0);
        group.gauge("lastHandoverDurationMs", () -> manager.metrics().lastDurationMillis());
        group.gauge("routingEpoch", () -> manager.metrics().currentEpoch());
        for (HandoverPhase phase : HandoverPhase.values()) {
            if (phase == HandoverPhase.REQUESTED || phase == HandoverPhase.FAILED) {
                continue;
            }
            group.gauge(
                    "lastHandover" + camel(phase) + "Ms",
                    () -> manager.metrics().lastPhaseDurationsMillis().getOrDefault(phase, -1L));
        }
    }

    private static String camel(HandoverPhase phase) {
        StringBuilder name = new StringBuilder();
        for (String word : phase.name().split("_")) {
            name.append(word.charAt(0)).append(word.substring(1).toLowerCase());
        }
        return name.toString();
    }
}
