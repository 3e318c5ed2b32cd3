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

package io.rhino.flink.replication;

import io.rhino.flink.metrics.RhinoMetric;
import io.rhino.replication.ReplicationMemory;
import io.rhino.replication.ReplicationService;
import io.rhino.replication.ReplicationStats;
import java.io.IOException;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Optional;
import java.util.Set;
import java.util.function.ToLongFunction;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The replication service's metrics in its TaskManager's metric group (Flink's {@code taskmanager}
 * scope), registered once per TaskManager by its first Rhino gate and read from whichever service
 * runs there at the time (0 while none does; a restarted service counts anew).
 *
 * <p>Where Rhino's classes are the job's own (in its jar), the service is the job's and so are
 * these gauges: they go into the job's group on the TaskManager ({@code taskmanager_job} scope),
 * which Flink closes when the job leaves. Gauges of the job's classes in the TaskManager's own
 * group would keep the job's class loader for as long as the TaskManager runs.
 */
final class TaskManagerReplicationMetrics {

    private static final Logger LOG = LoggerFactory.getLogger(TaskManagerReplicationMetrics.class);
    private static final long STORE_SIZE_REFRESH_NANOS = 10_000_000_000L;
    // by identity: a job's group on a TaskManager is a new one after the job left it and came back
    private static final Set<MetricGroup> REGISTERED =
            Collections.newSetFromMap(new IdentityHashMap<>());

    private TaskManagerReplicationMetrics() {}

    static synchronized void registerOnce(String taskManager, MetricGroup group) {
        if (group == null || !REGISTERED.add(group)) {
            return;
        }
        stat(
                group,
                taskManager,
                RhinoMetric.REPLICA_BYTES_RECEIVED,
                ReplicationStats::bytesReceived);
        stat(group, taskManager, RhinoMetric.REPLICA_FILES_STORED, ReplicationStats::filesStored);
        stat(
                group,
                taskManager,
                RhinoMetric.REPLICATION_REFUSED_REQUESTS,
                ReplicationStats::refusedRequests);
        stat(
                group,
                taskManager,
                RhinoMetric.REPLICA_FETCHES_SERVED,
                ReplicationStats::fetchesServed);
        RhinoMetric.REPLICA_STORE_FULL_AGO_MS.gauge(
                group,
                (Gauge<Long>)
                        () ->
                                service(taskManager)
                                        .map(s -> s.store().outOfSpaceAgoMillis())
                                        .orElse(-1L));
        RhinoMetric.REPLICA_STORE_BYTES.gauge(group, new StoreBytes(taskManager));
        // Netty's pool is shared by every service in the job's class loader: one per TaskManager
        RhinoMetric.REPLICATION_NETTY_MEMORY_IN_USE_BYTES.gauge(
                group, (Gauge<Long>) ReplicationMemory::inUseBytes);
        RhinoMetric.REPLICATION_NETTY_MEMORY_RESERVED_BYTES.gauge(
                group, (Gauge<Long>) ReplicationMemory::reservedBytes);
    }

    private static void stat(
            MetricGroup group,
            String taskManager,
            RhinoMetric metric,
            ToLongFunction<ReplicationStats> of) {
        metric.gauge(
                group,
                (Gauge<Long>)
                        () -> service(taskManager).map(s -> of.applyAsLong(s.stats())).orElse(0L));
    }

    private static Optional<ReplicationService> service(String taskManager) {
        return TaskManagerReplication.serviceOf(taskManager);
    }

    /** The store's size, walked at most every 10 s: a store holds many files. */
    private static final class StoreBytes implements Gauge<Long> {
        private final String taskManager;
        private long bytes;
        private long walkedAtNanos;
        private boolean walked;

        StoreBytes(String taskManager) {
            this.taskManager = taskManager;
        }

        @Override
        public synchronized Long getValue() {
            long now = System.nanoTime();
            if (!walked || now - walkedAtNanos >= STORE_SIZE_REFRESH_NANOS) {
                walked = true;
                walkedAtNanos = now;
                try {
                    Optional<ReplicationService> service = service(taskManager);
                    bytes = service.isPresent() ? service.get().store().usedBytes() : 0;
                } catch (IOException | RuntimeException e) {
                    LOG.debug("Could not measure the replica store of {}", taskManager, e);
                }
            }
            return bytes;
        }
    }
}
