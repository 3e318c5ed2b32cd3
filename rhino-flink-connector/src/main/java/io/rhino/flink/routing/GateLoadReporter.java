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

package io.rhino.flink.routing;

import io.rhino.flink.events.GateLoadEvent;
import io.rhino.flink.events.GateLocationEvent;
import io.rhino.flink.metrics.RhinoMetric;
import io.rhino.flink.replication.GateReplication;
import io.rhino.flink.state.RhinoTaskRegistry;
import io.rhino.flink.state.VnodeKeyedStateBackend;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.executiongraph.ExecutionAttemptID;
import org.apache.flink.runtime.metrics.groups.TaskIOMetricGroup;
import org.apache.flink.runtime.operators.coordination.OperatorEventGateway;
import org.apache.flink.streaming.runtime.tasks.ProcessingTimeService;

/**
 * Tells the gate coordinator where a gate runs, once it opened, and then, periodically, its load:
 * the state bytes of its vnodes, how busy its task is and how its replication goes.
 */
final class GateLoadReporter {

    // Flink's idle and back-pressure gauges average 5-second windows and read 0 until the first
    // one closed, which would make every starting task look fully busy
    private static final long BUSY_TIME_SETTLES_NANOS = TimeUnit.SECONDS.toNanos(11);

    private final ExecutionAttemptID task;
    private final OperatorEventGateway coordinator;
    private final GateReplication replication;
    private final TaskIOMetricGroup taskIo;
    private final long openedAtNanos = System.nanoTime();

    /** Created when the gate opens: its task's busy time is measured from then on. */
    GateLoadReporter(
            ExecutionAttemptID task,
            OperatorEventGateway coordinator,
            GateReplication replication,
            TaskIOMetricGroup taskIo) {
        this.task = task;
        this.coordinator = coordinator;
        this.replication = replication;
        this.taskIo = taskIo;
    }

    void registerOwnedVnodes(MetricGroup gateMetrics) {
        RhinoMetric.OWNED_VNODES.gauge(
                gateMetrics,
                () -> RhinoTaskRegistry.backendOf(task).map(b -> b.ownedVnodes().length).orElse(0));
    }

    /** Reports the gate's location now, then its load every {@code interval}. */
    void start(ProcessingTimeService timers, Duration interval) {
        coordinator.sendEventToCoordinator(
                new GateLocationEvent(
                        replication.taskManager(),
                        replication.serviceAddress(),
                        replication.replicaStoreFullAgoMillis(),
                        RhinoTaskRegistry.backendOf(task)
                                .map(VnodeKeyedStateBackend::restoreSources)
                                .orElse(Map.of())));
        long millis = interval.toMillis();
        timers.scheduleWithFixedDelay(now -> reportLoad(), millis, millis);
    }

    private void reportLoad() {
        RhinoTaskRegistry.backendOf(task)
                .ifPresent(
                        backend -> {
                            Map<Integer, Long> bytes = new HashMap<>();
                            for (int vnode : backend.ownedVnodes()) {
                                bytes.put(vnode, backend.stateBytes(vnode));
                            }
                            coordinator.sendEventToCoordinator(
                                    new GateLoadEvent(
                                            bytes,
                                            busyTimeMsPerSecond(),
                                            replication.progress(),
                                            replication.replicaStoreFullAgoMillis()));
                        });
    }

    /** What Flink reports as the task's busyTimeMsPerSecond: neither idle nor back-pressured. */
    private double busyTimeMsPerSecond() {
        if (System.nanoTime() - openedAtNanos < BUSY_TIME_SETTLES_NANOS) {
            return Double.NaN; // not measured yet: Flink's gauges read "never idle" until then
        }
        double notBusy =
                taskIo.getIdleTimeMsPerSecond().getValue()
                        + taskIo.getBackPressuredTimeMsPerSecond();
        return 1000.0 - Math.min(notBusy, 1000.0);
    }
}
