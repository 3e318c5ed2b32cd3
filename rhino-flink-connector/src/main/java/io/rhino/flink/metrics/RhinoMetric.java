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

package io.rhino.flink.metrics;

import io.rhino.core.handover.HandoverPhase;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;

/**
 * Every metric Rhino registers in Flink's metric system, with where it is registered and what it
 * means. Registration sites go through {@link #gauge} and {@link #counter}, so a metric cannot be
 * registered without an entry here; the reference in {@code docs/metrics.md} is generated from this
 * enum ({@link MetricsDocs}), and a test checks that Flink's Prometheus reporter exports each one
 * under {@link #prometheusName()}.
 */
public enum RhinoMetric {
    ROUTING_EPOCH(
            Scope.ROUTER,
            Type.GAUGE,
            "rhinoRoutingEpoch",
            "The epoch of the routing table this router subtask routes by; it rises by one with"
                    + " every handover the router switched to."),

    OWNED_VNODES(
            Scope.GATE,
            Type.GAUGE,
            "rhinoOwnedVnodes",
            "Vnodes this gate subtask owns now (0 for a standby subtask after a rescale to fewer"
                    + " active subtasks)."),
    BUFFERED_RECORDS(
            Scope.GATE,
            Type.GAUGE,
            "rhinoBufferedRecords",
            "Records a target gate holds for vnodes moving to it whose state has not been"
                    + " installed yet; 0 outside handovers."),
    BUFFERED_BYTES(
            Scope.GATE,
            Type.GAUGE,
            "rhinoBufferedBytes",
            "Serialized bytes of those records, in memory and spilled."),
    SPILLED_BYTES(
            Scope.GATE,
            Type.GAUGE,
            "rhinoSpilledBytes",
            "Bytes of those records spilled to the TaskManager's spilling directories, beyond"
                    + " rhino.handover.buffer.max-memory."),
    BUFFER_SPILLED_BYTES_TOTAL(
            Scope.GATE,
            Type.COUNTER,
            "rhinoBufferSpilledBytesTotal",
            "Bytes of buffered records replayed from disk after installs, since the subtask"
                    + " started."),
    HANDOVER_BYTES_SENT(
            Scope.GATE,
            Type.COUNTER,
            "rhinoHandoverBytesSent",
            "Bytes this gate subtask sent as a handover's origin: to the target's TaskManager"
                    + " (peers: only the files it lacks) or to RhinoDFS; 0 for local"
                    + " hard-link handovers."),
    REPLICATED_BYTES(
            Scope.GATE,
            Type.COUNTER,
            "rhinoReplicatedBytes",
            "Bytes of vnode checkpoints this gate subtask replicated down its chain since it"
                    + " started."),
    REPLICATION_FAILURES(
            Scope.GATE,
            Type.COUNTER,
            "rhinoReplicationFailures",
            "Replication rounds that failed (each declined its checkpoint) since the subtask"
                    + " started."),
    LAST_REPLICATED_CHECKPOINT(
            Scope.GATE,
            Type.GAUGE,
            "rhinoLastReplicatedCheckpoint",
            "The newest checkpoint the whole chain acknowledged in this subtask's attempt; -1"
                    + " until one did."),
    REPLICATION_LAG_MS(
            Scope.GATE,
            Type.GAUGE,
            "rhinoReplicationLagMs",
            "Milliseconds since that checkpoint's replication ended: the age of the newest copy a"
                    + " failover could restore from; -1 until one replicated. Grows by the"
                    + " checkpoint interval between checkpoints."),
    REPLICATION_CHAIN_LENGTH(
            Scope.GATE,
            Type.GAUGE,
            "rhinoReplicationChainLength",
            "Other TaskManagers this subtask's checkpoints go to (rhino.replication.factor - 1 when"
                    + " there are enough TaskManagers; 0: not replicated)."),

    VNODES_REUSED_AT_LAST_CHECKPOINT(
            Scope.KEYED_OPERATOR,
            Type.GAUGE,
            "rhinoVnodesReusedAtLastCheckpoint",
            "Vnodes of the subtask that the last checkpoint did not snapshot: nothing was written"
                    + " to them since the last completed checkpoint, whose snapshot it reused"
                    + " (rhino.state.reuse-idle-vnodes)."),
    VNODES_SNAPSHOTTED_AT_LAST_CHECKPOINT(
            Scope.KEYED_OPERATOR,
            Type.GAUGE,
            "rhinoVnodesSnapshottedAtLastCheckpoint",
            "Vnodes of the subtask whose RocksDB instance the last checkpoint snapshotted (flushed,"
                    + " checkpointed and uploaded what was new)."),
    VNODES_RESTORED_FROM_LOCAL_COPIES(
            Scope.KEYED_OPERATOR,
            Type.GAUGE,
            "rhinoVnodesRestoredFromLocalCopies",
            "Vnodes the subtask's last restore took from Flink's task-local copies on its"
                    + " TaskManager. Registered when the subtask restored from a checkpoint."),
    VNODES_RESTORED_FROM_REPLICAS(
            Scope.KEYED_OPERATOR,
            Type.GAUGE,
            "rhinoVnodesRestoredFromReplicas",
            "Vnodes the last restore took from replicas (this TaskManager's or fetched from a"
                    + " peer) instead of the checkpoint storage. Registered when the subtask"
                    + " restored with replication on."),
    BYTES_RESTORED_FROM_REPLICAS(
            Scope.KEYED_OPERATOR,
            Type.GAUGE,
            "rhinoBytesRestoredFromReplicas",
            "Bytes of those vnodes linked from replicas rather than downloaded."),
    VNODES_FETCHED_FROM_PEERS(
            Scope.KEYED_OPERATOR,
            Type.GAUGE,
            "rhinoVnodesFetchedFromPeers",
            "Vnodes of the last restore fetched from a peer TaskManager's replica (the subtask"
                    + " restarted outside its chain)."),
    BYTES_FETCHED_FROM_PEERS(
            Scope.KEYED_OPERATOR,
            Type.GAUGE,
            "rhinoBytesFetchedFromPeers",
            "Bytes of those fetches, over the replication network."),

    REPLICA_BYTES_RECEIVED(
            Scope.TASK_MANAGER,
            Type.GAUGE,
            "rhinoReplicaBytesReceived",
            "Bytes this TaskManager's replication service received from peers (replicas,"
                    + " handover shipments, fetches) since it started; 0 while none runs."),
    REPLICA_FILES_STORED(
            Scope.TASK_MANAGER,
            Type.GAUGE,
            "rhinoReplicaFilesStored",
            "Files the service stored and verified since it started."),
    REPLICATION_REFUSED_REQUESTS(
            Scope.TASK_MANAGER,
            Type.GAUGE,
            "rhinoReplicationRefusedRequests",
            "Requests the service refused, each logged with its reason: wrong secret or no"
                    + " handshake in time, TLS failure, checksum mismatch, full disk, a limit"
                    + " exceeded, a protocol violation, an idle connection."),
    REPLICA_FETCHES_SERVED(
            Scope.TASK_MANAGER,
            Type.GAUGE,
            "rhinoReplicaFetchesServed",
            "Replica fetches this service answered for restoring subtasks elsewhere."),
    REPLICA_STORE_FULL_AGO_MS(
            Scope.TASK_MANAGER,
            Type.GAUGE,
            "rhinoReplicaStoreFullAgoMs",
            "Milliseconds since the replica store last ran out of space; -1 if it never did."
                    + " Below rhino.replication.full-store-backoff the TaskManager is left out of"
                    + " replica chains."),
    REPLICA_STORE_BYTES(
            Scope.TASK_MANAGER,
            Type.GAUGE,
            "rhinoReplicaStoreBytes",
            "Bytes the replica store holds on disk, measured at most every 10 s."),
    REPLICATION_NETTY_MEMORY_IN_USE_BYTES(
            Scope.TASK_MANAGER,
            Type.GAUGE,
            "rhinoReplicationNettyMemoryInUseBytes",
            "Direct memory of replication's Netty buffers in use now (chunks waiting to be written"
                    + " or passed on)."),
    REPLICATION_NETTY_MEMORY_RESERVED_BYTES(
            Scope.TASK_MANAGER,
            Type.GAUGE,
            "rhinoReplicationNettyMemoryReservedBytes",
            "Direct memory Netty's pool holds from the operating system for replication, in 4 MiB"
                    + " chunks; counts against the TaskManager's -XX:MaxDirectMemorySize."),

    HANDOVERS_STARTED(
            Scope.COORDINATOR,
            Type.COUNTER,
            "handoversStarted",
            "Handovers of the operator that sent their command to the routers."),
    HANDOVERS_COMPLETED(
            Scope.COORDINATOR, Type.COUNTER, "handoversCompleted", "Handovers that completed."),
    HANDOVERS_FAILED(
            Scope.COORDINATOR,
            Type.COUNTER,
            "handoversFailed",
            "Accepted handovers that failed (timed out, a subtask failed, a send failed),"
                    + " including queued ones that never started."),
    HANDOVERS_REJECTED(
            Scope.COORDINATOR,
            Type.COUNTER,
            "handoversRejected",
            "Requests refused up front: an invalid plan, another handover in the way, the"
                    + " operator restarting."),
    HANDOVER_IN_FLIGHT(
            Scope.COORDINATOR,
            Type.GAUGE,
            "handoverInFlight",
            "1 while a handover has started and not ended, else 0."),
    LAST_HANDOVER_DURATION_MS(
            Scope.COORDINATOR,
            Type.GAUGE,
            "lastHandoverDurationMs",
            "Milliseconds the last completed handover took from request to completion; -1 if"
                    + " none completed."),
    LAST_HANDOVER_MARKERS_PROPAGATED_MS(
            Scope.COORDINATOR,
            Type.GAUGE,
            "lastHandoverMarkersPropagatedMs",
            "Of the last completed handover: milliseconds from the request until every router"
                    + " switched tables and sent its markers; -1 if none."),
    LAST_HANDOVER_ORIGIN_ALIGNED_MS(
            Scope.COORDINATOR,
            Type.GAUGE,
            "lastHandoverOriginAlignedMs",
            "Then until every origin gate had the markers of all routers."),
    LAST_HANDOVER_STATE_SHIPPED_MS(
            Scope.COORDINATOR,
            Type.GAUGE,
            "lastHandoverStateShippedMs",
            "Then until the origins shipped every moving vnode."),
    LAST_HANDOVER_TARGET_INSTALLED_MS(
            Scope.COORDINATOR,
            Type.GAUGE,
            "lastHandoverTargetInstalledMs",
            "Then until the targets installed every moving vnode."),
    LAST_HANDOVER_COMPLETED_MS(
            Scope.COORDINATOR,
            Type.GAUGE,
            "lastHandoverCompletedMs",
            "Then until the handover completed."),
    ROUTING_EPOCH_OF_MANAGER(
            Scope.COORDINATOR,
            Type.GAUGE,
            "routingEpoch",
            "The epoch of the handover manager's routing table."),
    RECORDS_PER_SECOND(
            Scope.COORDINATOR,
            Type.GAUGE,
            "recordsPerSecond",
            "Records per second the operator's routers send, summed over its vnodes and averaged"
                    + " over rhino.load.window."),
    LOAD_IMBALANCE(
            Scope.COORDINATOR,
            Type.GAUGE,
            "loadImbalance",
            "The most loaded active subtask's records per second over the active subtasks' mean"
                    + " (by vnode counts while nothing was measured); what rebalancing lowers."),
    AUTO_BALANCE_REBALANCES(
            Scope.COORDINATOR,
            Type.COUNTER,
            "autoBalanceRebalances",
            "Rebalances the auto-balancer started. Registered with rhino.balancer.auto: true."),
    AUTO_BALANCE_SKIPPED(
            Scope.COORDINATOR,
            Type.COUNTER,
            "autoBalanceSkipped",
            "Times the auto-balancer wanted to rebalance but another reconfiguration ran or the"
                    + " job was restarting. Registered with rhino.balancer.auto: true.");

    /** The metric group a metric is registered in, and so its Prometheus prefix. */
    public enum Scope {
        ROUTER(
                "router operator (`<name> (Rhino router)`), per subtask",
                "flink_taskmanager_job_task_operator_"),
        GATE(
                "gate operator (`<name> (Rhino gate)`), per subtask",
                "flink_taskmanager_job_task_operator_"),
        KEYED_OPERATOR(
                "keyed operator after the gate (its state backend's group), per subtask",
                "flink_taskmanager_job_task_operator_"),
        TASK_MANAGER(
                "TaskManager (registered by its first Rhino gate; with Rhino in the job's jar, in"
                        + " the job's group on the TaskManager, Flink's `taskmanager_job` scope)",
                "flink_taskmanager_"),
        COORDINATOR(
                "gate's operator coordinator on the JobManager, group `rhino`, per Rhino operator",
                "flink_jobmanager_job_operator_coordinator_rhino_");

        private final String where;
        private final String prometheusPrefix;

        Scope(String where, String prometheusPrefix) {
            this.where = where;
            this.prometheusPrefix = prometheusPrefix;
        }

        /** Where the metric is registered, for the reference. */
        public String where() {
            return where;
        }

        /** What Flink's Prometheus reporter puts before the metric's name in this scope. */
        public String prometheusPrefix() {
            return prometheusPrefix;
        }
    }

    /** Flink's metric type, as registered. */
    public enum Type {
        GAUGE,
        COUNTER
    }

    private final Scope scope;
    private final Type type;
    private final String metricName;
    private final String description;

    RhinoMetric(Scope scope, Type type, String metricName, String description) {
        this.scope = scope;
        this.type = type;
        this.metricName = metricName;
        this.description = description;
    }

    public Scope scope() {
        return scope;
    }

    public Type type() {
        return type;
    }

    /** The name registered in the metric group. */
    public String metricName() {
        return metricName;
    }

    public String description() {
        return description;
    }

    /** The name Flink's Prometheus reporter exports it under. */
    public String prometheusName() {
        return scope.prometheusPrefix() + metricName;
    }

    /** Registers {@code gauge} as this metric in {@code group}. */
    public <T, G extends Gauge<T>> G gauge(MetricGroup group, G gauge) {
        requireType(Type.GAUGE);
        return group.gauge(metricName, gauge);
    }

    /** Registers {@code counter} as this metric in {@code group}. */
    public <C extends Counter> C counter(MetricGroup group, C counter) {
        requireType(Type.COUNTER);
        return group.counter(metricName, counter);
    }

    /** Registers a new counter as this metric in {@code group}. */
    public Counter counter(MetricGroup group) {
        requireType(Type.COUNTER);
        return group.counter(metricName);
    }

    /** The gauge of a completed handover's time to reach {@code phase} from the phase before. */
    public static RhinoMetric lastHandoverPhase(HandoverPhase phase) {
        return switch (phase) {
            case MARKERS_PROPAGATED -> LAST_HANDOVER_MARKERS_PROPAGATED_MS;
            case ORIGIN_ALIGNED -> LAST_HANDOVER_ORIGIN_ALIGNED_MS;
            case STATE_SHIPPED -> LAST_HANDOVER_STATE_SHIPPED_MS;
            case TARGET_INSTALLED -> LAST_HANDOVER_TARGET_INSTALLED_MS;
            case COMPLETED -> LAST_HANDOVER_COMPLETED_MS;
            case REQUESTED, FAILED ->
                    throw new IllegalArgumentException(
                            "phase: "
                                    + phase
                                    + " (expected: a phase a handover takes time to reach)");
        };
    }

    private void requireType(Type expected) {
        if (type != expected) {
            throw new IllegalStateException(
                    "Metric " + metricName + " is a " + type + ", registered as a " + expected);
        }
    }
}
