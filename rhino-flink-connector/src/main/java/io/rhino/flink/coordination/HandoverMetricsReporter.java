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
import io.rhino.flink.metrics.RhinoMetric;
import io.rhino.flink.reconfiguration.Reconfigurer;
import io.rhino.handover.HandoverManager;
import java.util.Arrays;
import java.util.function.LongSupplier;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.metrics.groups.AbstractMetricGroup;

/**
 * Publishes a handover manager's figures in the gate coordinator's Flink metric group (group {@code
 * rhino}): counters of handovers started, completed, failed and rejected, the last handover's
 * duration and per-phase durations, the routing table's epoch, the operator's load (records per
 * second, max/mean imbalance) and, with auto-balancing on, the auto-balancer's decisions.
 */
final class HandoverMetricsReporter {

    private HandoverMetricsReporter() {}

    /**
     * Registers the operator's metrics in a group of their own, which {@link #unregister} closes
     * when the coordinator closes: a rescale by the adaptive scheduler builds new coordinators
     * under the same coordinator group, whose metrics must then be the new hub's.
     */
    static MetricGroup register(MetricGroup coordinatorGroup, OperatorReadModel operator) {
        HandoverManager manager = operator.manager().orElseThrow();
        MetricGroup group = coordinatorGroup.addGroup("rhino");
        RhinoMetric.LOAD_IMBALANCE.gauge(
                group, () -> Reconfigurer.modelOf(operator, manager.routingTable()).imbalance());
        RhinoMetric.RECORDS_PER_SECOND.gauge(
                group, () -> Arrays.stream(operator.recordsPerSecond()).sum());
        operator.autoBalancer()
                .ifPresent(
                        balancer -> {
                            RhinoMetric.AUTO_BALANCE_REBALANCES.counter(
                                    group, new ManagerCount(balancer::rebalances));
                            RhinoMetric.AUTO_BALANCE_SKIPPED.counter(
                                    group, new ManagerCount(balancer::skipped));
                        });
        RhinoMetric.HANDOVERS_STARTED.counter(
                group, new ManagerCount(() -> manager.metrics().started()));
        RhinoMetric.HANDOVERS_COMPLETED.counter(
                group, new ManagerCount(() -> manager.metrics().completed()));
        RhinoMetric.HANDOVERS_FAILED.counter(
                group, new ManagerCount(() -> manager.metrics().failed()));
        RhinoMetric.HANDOVERS_REJECTED.counter(
                group, new ManagerCount(() -> manager.metrics().rejected()));
        RhinoMetric.HANDOVER_IN_FLIGHT.gauge(group, () -> manager.metrics().inFlight() ? 1 : 0);
        RhinoMetric.LAST_HANDOVER_DURATION_MS.gauge(
                group, () -> manager.metrics().lastDurationMillis());
        RhinoMetric.ROUTING_EPOCH_OF_MANAGER.gauge(group, () -> manager.metrics().currentEpoch());
        for (HandoverPhase phase : HandoverPhase.values()) {
            if (phase == HandoverPhase.REQUESTED || phase == HandoverPhase.FAILED) {
                continue;
            }
            RhinoMetric.lastHandoverPhase(phase)
                    .gauge(
                            group,
                            () ->
                                    manager.metrics()
                                            .lastPhaseDurationsMillis()
                                            .getOrDefault(phase, -1L));
        }
        return group;
    }

    /** Removes the metrics {@link #register} added (a no-op for a group Flink did not make). */
    static void unregister(MetricGroup group) {
        if (group instanceof AbstractMetricGroup<?> flinkGroup) {
            flinkGroup.close();
        }
    }

    /**
     * A Flink {@link Counter} over a count the manager keeps (the manager is Flink-free), so that
     * reporters export these as counters. Only the manager counts.
     */
    private static final class ManagerCount implements Counter {
        private final LongSupplier count;

        ManagerCount(LongSupplier count) {
            this.count = count;
        }

        @Override
        public long getCount() {
            return count.getAsLong();
        }

        @Override
        public void inc() {
            throw new UnsupportedOperationException("counted by the handover manager");
        }

        @Override
        public void inc(long n) {
            inc();
        }

        @Override
        public void dec() {
            inc();
        }

        @Override
        public void dec(long n) {
            inc();
        }
    }
}
