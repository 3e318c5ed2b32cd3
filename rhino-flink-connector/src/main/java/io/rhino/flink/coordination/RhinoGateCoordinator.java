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

import io.rhino.core.routing.RoutingTable;
import io.rhino.flink.config.RhinoRuntimeSettings;
import io.rhino.flink.events.GateLoadEvent;
import io.rhino.flink.events.GateLocationEvent;
import io.rhino.flink.events.OriginShippedEvent;
import io.rhino.flink.events.TargetInstalledEvent;
import io.rhino.flink.spec.RhinoOperatorSpec;
import io.rhino.flink.spec.UnsupportedJobShapeException;
import io.rhino.handover.HandoverManager;
import io.rhino.handover.HandoverManagerOptions;
import io.rhino.handover.ShippedVnode;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.jobgraph.OperatorID;
import org.apache.flink.runtime.operators.coordination.OperatorCoordinator;
import org.apache.flink.runtime.operators.coordination.OperatorEvent;
import org.apache.flink.util.FlinkException;
import org.apache.flink.util.InstantiationUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Coordinator of a Rhino operator's gates, hosting the operator's {@link HandoverManager}: feeds it
 * the gates' protocol events, checkpoints its routing table, and keeps handovers and checkpoints
 * apart — a checkpoint's coordinator phase completes only when no handover is in flight, and no
 * handover starts until that checkpoint completes or aborts. Flink checkpoints coordinators before
 * it injects barriers, so no gate ever holds buffered records in a checkpoint, and a failure
 * mid-handover rolls back to the pre-handover checkpoint.
 */
public final class RhinoGateCoordinator implements OperatorCoordinator {

    private static final Logger LOG = LoggerFactory.getLogger(RhinoGateCoordinator.class);

    private final Context context;
    private final RhinoOperatorSpec spec;
    private final int routerParallelism;
    private final RhinoRuntimeSettings settings;
    private final OperatorServing serving;
    private MetricGroup metrics; // the operator's, once started
    private RhinoOperatorHub hub;
    private HandoverManager manager;
    private RoutingTable restoredTable;
    private long restoredCheckpointId = -1;
    // why the restored table cannot run in this job, if it cannot; the job fails once started
    private String refusedRestore;

    private RhinoGateCoordinator(
            Context context,
            RhinoOperatorSpec spec,
            int routerParallelism,
            RhinoRuntimeSettings settings,
            OperatorServing serving) {
        this.context = context;
        this.spec = spec;
        this.routerParallelism = routerParallelism;
        this.settings = settings;
        this.serving = serving;
    }

    @Override
    public void start() {
        // the operator as it runs: at the gates' parallelism, over the restored table's vnodes
        RhinoOperatorSpec running =
                refusedRestore != null
                        ? spec
                        : spec.running(
                                context.currentParallelism(),
                                restoredTable == null ? null : restoredTable.layout());
        hub = RhinoOperatorHub.of(context, running, routerParallelism);
        if (restoredCheckpointId >= 0) {
            hub.view().restoredCheckpoint(restoredCheckpointId);
        }
        manager =
                hub.manager(
                        context,
                        HandoverManagerOptions.builder()
                                .timeout(settings.handoverTimeout())
                                .build(),
                        settings);
        if (refusedRestore != null) {
            failUnrunnableRestore();
        } else if (restoredTable != null) {
            manager.resetTo(restoredTable);
            restoredTable = null;
        }
        RhinoHandovers.register(hub, serving);
        metrics = HandoverMetricsReporter.register(context.metricGroup(), hub.view());
    }

    @Override
    public void close() {
        if (metrics != null) {
            HandoverMetricsReporter.unregister(metrics);
        }
        if (hub != null) {
            RhinoHandovers.unregister(hub);
            hub.close();
        }
    }

    @Override
    public void handleEventFromOperator(int subtask, int attemptNumber, OperatorEvent event) {
        if (event instanceof OriginShippedEvent shipped) {
            LOG.debug(
                    "Handover {} of '{}': origin {} shipped vnodes {} {} ms after it aligned ({} ms"
                            + " after its first marker), copying {} bytes and sending {} bytes",
                    shipped.handoverId(),
                    spec.name(),
                    subtask,
                    shipped.vnodes().stream().map(ShippedVnode::vnode).toList(),
                    shipped.exportMillis(),
                    shipped.alignMillis(),
                    shipped.copiedBytes(),
                    shipped.sentBytes());
            manager.onOriginShipped(shipped.handoverId(), subtask, shipped.vnodes());
        } else if (event instanceof TargetInstalledEvent installed) {
            LOG.debug(
                    "Handover {} of '{}': target {} installed vnodes {} in {} ms and replayed {}"
                            + " records that had waited for them",
                    installed.handoverId(),
                    spec.name(),
                    subtask,
                    installed.vnodes(),
                    installed.installMillis(),
                    installed.replayedRecords());
            manager.onTargetInstalled(installed.handoverId(), subtask, installed.vnodes());
        } else if (event instanceof GateLoadEvent load) {
            hub.gateLoad(
                    subtask,
                    load.stateBytesByVnode(),
                    load.busyTimeMsPerSecond(),
                    load.replication(),
                    load.replicaStoreFullAgoMillis());
        } else if (event instanceof GateLocationEvent location) {
            hub.gateStarted(
                    subtask,
                    attemptNumber,
                    location.taskManager(),
                    location.replicationAddress(),
                    location.replicaStoreFullAgoMillis(),
                    location.restoreSourceByVnode());
        } else {
            throw new IllegalArgumentException("Unexpected event from a Rhino gate: " + event);
        }
    }

    @Override
    public void checkpointCoordinator(long checkpointId, CompletableFuture<byte[]> result) {
        if (hub.isFailingOver()) {
            // routers may already route by a table no completed handover produced
            result.completeExceptionally(
                    new FlinkException(
                            "Rhino operator '"
                                    + spec.name()
                                    + "' asked to restart the job after a failed handover"));
            return;
        }
        hub.beforeCheckpoint(
                checkpointId,
                () -> {
                    try {
                        result.complete(InstantiationUtil.serializeObject(manager.routingTable()));
                    } catch (Exception e) {
                        result.completeExceptionally(e);
                    }
                });
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        hub.checkpointEnded(checkpointId);
    }

    @Override
    public void notifyCheckpointAborted(long checkpointId) {
        hub.checkpointEnded(checkpointId);
    }

    @Override
    public void resetToCheckpoint(long checkpointId, byte[] checkpointData) throws Exception {
        RoutingTable restored =
                checkpointData == null || checkpointData.length == 0
                        ? null
                        : InstantiationUtil.<RoutingTable>deserializeObject(
                                checkpointData, context.getUserCodeClassloader());
        int gates = context.currentParallelism();
        Optional<String> refusal = spec.refusalToRestore(gates, restored);
        if (refusal.isPresent()) {
            // Throwing here would fail the JobMaster's start; the job fails instead, as the
            // routers' tasks would (they refuse the same table).
            refusedRestore = refusal.get();
            if (manager != null) {
                failUnrunnableRestore();
            }
            return;
        }
        refusedRestore = null;
        RoutingTable table = spec.routingTableAt(gates, restored);
        if (hub != null) {
            hub.checkpointsReset();
            hub.failoverDone();
            hub.allGone("the job restores checkpoint " + checkpointId);
        }
        restoredCheckpointId = checkpointId;
        if (hub != null) {
            hub.view().restoredCheckpoint(checkpointId);
        }
        if (manager != null) {
            manager.resetTo(table);
        } else {
            restoredTable = table;
        }
    }

    private void failUnrunnableRestore() {
        LOG.error("{}", refusedRestore);
        context.failJob(UnsupportedJobShapeException.atTaskStart(refusedRestore));
    }

    @Override
    public void subtaskReset(int subtask, long checkpointId) {
        // A region failover: the routers restart too (one region) and report the table they
        // restored; until then handovers are refused.
        hub.gateGone(
                subtask,
                -1,
                "gate subtask " + subtask + " restarts from checkpoint " + checkpointId);
    }

    @Override
    public void executionAttemptFailed(int subtask, int attemptNumber, Throwable reason) {
        if (hub != null) {
            hub.gateGone(subtask, attemptNumber, hub.attemptEnded("gate", subtask, reason));
        }
    }

    @Override
    public void executionAttemptReady(int subtask, int attemptNumber, SubtaskGateway gateway) {
        hub.gateReady(subtask, gateway);
    }

    /** Creates the coordinator. */
    public static final class Provider implements OperatorCoordinator.Provider {
        private static final long serialVersionUID = 1L;
        private final OperatorID operatorId;
        private final RhinoOperatorSpec spec;
        private final int routerParallelism;
        private final RhinoRuntimeSettings settings;
        private final OperatorServing serving;

        /** {@code serving} serves the operator beyond the Java API while it runs (e.g. REST). */
        public Provider(
                OperatorID operatorId,
                RhinoOperatorSpec spec,
                int routerParallelism,
                RhinoRuntimeSettings settings,
                OperatorServing serving) {
            this.operatorId = operatorId;
            this.spec = spec;
            this.routerParallelism = routerParallelism;
            this.settings = settings;
            this.serving = serving;
        }

        @Override
        public OperatorID getOperatorId() {
            return operatorId;
        }

        @Override
        public OperatorCoordinator create(Context context) {
            return new RhinoGateCoordinator(context, spec, routerParallelism, settings, serving);
        }
    }
}
