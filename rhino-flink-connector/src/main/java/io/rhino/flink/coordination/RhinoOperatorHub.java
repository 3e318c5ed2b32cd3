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
import io.rhino.flink.replication.ReplicationProgress;
import io.rhino.flink.spec.RhinoOperatorSpec;
import io.rhino.flink.state.RestoreSource;
import io.rhino.handover.HandoverManager;
import io.rhino.handover.HandoverManagerOptions;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.api.common.JobID;
import org.apache.flink.runtime.operators.coordination.CoordinatorStore;
import org.apache.flink.runtime.operators.coordination.OperatorCoordinator;
import org.apache.flink.runtime.operators.coordination.OperatorCoordinator.SubtaskGateway;

/**
 * Where the router coordinator and the gate coordinator of one Rhino operator meet, in the job's
 * {@link CoordinatorStore}; it outlives coordinator re-creation on failover. It hands their
 * callbacks to the parts of the operator's coordination: the port to the subtasks ({@link
 * OperatorLink}), their attempts ({@link SubtaskAttempts}), the manager and its timer ({@link
 * ManagerRuntime}), the replica chains ({@link ReplicaChains}) and the full-store back-off ({@link
 * FullStoreBackoff}), checkpoint admission ({@link CheckpointAdmission}), and what others read
 * ({@link OperatorReadModel}).
 *
 * <p>Threads: the coordinators call it on the JobManager's main thread, the back-off check on the
 * operator's timer thread; both take this hub's monitor, which guards all mutable coordination
 * state. The hub calls the manager under it, so nothing the manager calls back takes it: the port
 * is lock-free, and readers on other threads (REST, metrics, the auto-balancer, {@link
 * RhinoHandovers}) read the {@link #view()}'s immutable snapshots. {@link CheckpointAdmission}
 * guards itself: the manager admits checkpoints from its own threads.
 */
final class RhinoOperatorHub {

    private final JobID jobId;
    private final RhinoOperatorSpec spec;
    private final int routerParallelism;
    private final OperatorLink link;
    private final OperatorReadModel readModel;
    private final SubtaskAttempts attempts;
    private final ReplicaChains chains;
    private final CheckpointAdmission checkpointAdmission = new CheckpointAdmission();
    private ManagerRuntime runtime; // null until the gate coordinator's first start

    private RhinoOperatorHub(JobID jobId, RhinoOperatorSpec spec, int routerParallelism) {
        this.jobId = jobId;
        this.spec = spec;
        this.routerParallelism = routerParallelism;
        this.link = new OperatorLink(spec.name(), routerParallelism);
        this.readModel = new OperatorReadModel(jobId, spec);
        this.attempts = new SubtaskAttempts(spec.name(), routerParallelism, spec.parallelism());
        this.chains = new ReplicaChains(spec.name(), spec.numVnodes(), link, readModel);
    }

    /**
     * The router coordinator, when it is created, records how many routers run: its vertex's
     * parallelism, which a restore or the adaptive scheduler may have changed from the built one.
     * Flink creates every coordinator of a job before it starts any.
     */
    static void routersRunAt(OperatorCoordinator.Context routerContext, String operatorName) {
        routerContext
                .getCoordinatorStore()
                .compute(
                        routersKey(operatorName), (key, old) -> routerContext.currentParallelism());
    }

    /**
     * The hub of the operator as it runs ({@code running}: the gates' parallelism and the restored
     * vnodes), created by the gate coordinator's first start; the routers run at the parallelism
     * their coordinator recorded, else at {@code builtRouters}.
     */
    static RhinoOperatorHub of(
            OperatorCoordinator.Context gateContext, RhinoOperatorSpec running, int builtRouters) {
        CoordinatorStore store = gateContext.getCoordinatorStore();
        Object recorded = store.get(routersKey(running.name()));
        int routers = recorded instanceof Integer count ? count : builtRouters;
        return (RhinoOperatorHub)
                store.compute(
                        hubKey(running.name()),
                        (key, existing) ->
                                existing != null
                                        ? existing
                                        : new RhinoOperatorHub(
                                                gateContext.getJobID(), running, routers));
    }

    /** The hub, once the gate coordinator started; null before. */
    static RhinoOperatorHub find(OperatorCoordinator.Context context, String operatorName) {
        return (RhinoOperatorHub) context.getCoordinatorStore().get(hubKey(operatorName));
    }

    private static String hubKey(String operatorName) {
        return "rhino-operator:" + operatorName;
    }

    private static String routersKey(String operatorName) {
        return "rhino-routers:" + operatorName;
    }

    JobID flinkJobId() {
        return jobId;
    }

    RhinoOperatorSpec spec() {
        return spec;
    }

    /** What REST, the metrics and the auto-balancer read of the operator. */
    OperatorReadModel view() {
        return readModel;
    }

    /** The manager, once the gate coordinator started. */
    Optional<HandoverManager> existingManager() {
        return readModel.manager();
    }

    /**
     * The manager, created by the gate coordinator's first start. It refuses handovers until every
     * router and gate subtask runs.
     */
    synchronized HandoverManager manager(
            OperatorCoordinator.Context gateContext,
            HandoverManagerOptions options,
            RhinoRuntimeSettings settings) {
        link.gateCoordinatorStarted(gateContext);
        readModel.gateVertex(gateContext.getOperatorId().toHexString());
        if (runtime == null) {
            runtime =
                    new ManagerRuntime(
                            spec,
                            routerParallelism,
                            link,
                            options,
                            settings,
                            this::backoffEnded,
                            readModel,
                            RhinoHandovers.directory());
            if (attempts.managerStarted(runtime.manager())) {
                chains.send(runtime);
            }
            runtime.startAutoBalancer();
            readModel.running(runtime);
        }
        return runtime.manager();
    }

    /** The job ends (its coordinators close): the manager and its timer thread stop. */
    synchronized void close() {
        if (runtime != null) {
            runtime.close();
        }
    }

    void routerReady(int subtask, SubtaskGateway gateway) {
        link.routerReady(subtask, gateway);
    }

    /** A router attempt opened and routes by {@code table}. */
    synchronized void routerStarted(int subtask, int attempt, RoutingTable table) {
        if (attempts.routerStarted(subtask, attempt, table)) {
            chains.send(runtime);
        }
    }

    /** A router attempt failed ({@code attempt} >= 0) or is being reset ({@code attempt} = -1). */
    synchronized void routerGone(int subtask, int attempt, String reason) {
        link.routerGone(subtask);
        attempts.routerGone(subtask, attempt, reason);
    }

    /** A router's records per vnode over its last report period. */
    synchronized void routerLoad(int router, long[] recordsByVnode, long periodMillis) {
        readModel.routerReported(router, recordsByVnode, periodMillis);
    }

    /**
     * A router's input ended: no handover starts any more, and a running one counts the router's
     * end as its acknowledgement.
     */
    void routerFinishing(int subtask) {
        existingManager().ifPresent(manager -> manager.routerInputEnded(subtask));
    }

    void gateReady(int subtask, SubtaskGateway gateway) {
        link.gateReady(subtask, gateway);
    }

    /** A gate attempt opened on {@code taskManager}. */
    synchronized void gateStarted(
            int subtask,
            int attempt,
            String taskManager,
            String replicationAddress,
            long replicaStoreFullAgoMillis,
            Map<Integer, RestoreSource> restoreSources) {
        readModel.gateLocated(subtask, taskManager, restoreSources);
        if (replicationAddress != null) {
            chains.serviceAt(taskManager, replicationAddress);
        }
        if (runtime != null) {
            runtime.backoff().gateStarted(taskManager, replicaStoreFullAgoMillis);
        }
        if (attempts.gateStarted(subtask, attempt)) {
            chains.send(runtime);
        }
    }

    /** A gate's state sizes of the vnodes it owns, and its replication progress. */
    synchronized void gateLoad(
            int subtask,
            Map<Integer, Long> stateBytesByVnode,
            double busyTimeMsPerSecond,
            ReplicationProgress replication,
            long replicaStoreFullAgoMillis) {
        readModel.gateReported(subtask, stateBytesByVnode, busyTimeMsPerSecond, replication);
        Optional<String> taskManager = readModel.taskManagerOf(subtask);
        if (taskManager.isPresent()
                && runtime != null
                && runtime.backoff().report(taskManager.get(), replicaStoreFullAgoMillis)) {
            chains.send(runtime);
        }
    }

    /** A gate attempt failed ({@code attempt} >= 0) or is being reset ({@code attempt} = -1). */
    synchronized void gateGone(int subtask, int attempt, String reason) {
        link.gateGone(subtask);
        readModel.gateGone(subtask);
        attempts.gateGone(subtask, attempt, reason);
    }

    /** Why a router or gate attempt ended (see {@link SubtaskAttempts#attemptEnded}). */
    synchronized String attemptEnded(String role, int subtask, Throwable reason) {
        return attempts.attemptEnded(role, subtask, reason);
    }

    /** The whole job restores a checkpoint (global failover, JobManager failover). */
    synchronized void allGone(String reason) {
        readModel.allGatesGone();
        attempts.allGone(reason);
    }

    /** The timer's check when a full store's back-off should have ended. */
    private synchronized void backoffEnded() {
        if (runtime.backoff().backoffEnded()) {
            chains.send(runtime);
        }
    }

    /**
     * Runs {@code proceed} when this operator's coordinators may complete their part of the
     * checkpoint: when no handover is in flight. Both coordinators call this, so neither closes its
     * subtasks' gateways under a running handover.
     */
    void beforeCheckpoint(long checkpointId, Runnable proceed) {
        Optional<HandoverManager> existing = existingManager();
        if (existing.isEmpty()) {
            proceed.run(); // no manager yet, so no handover either
            return;
        }
        checkpointAdmission.whenAdmitted(checkpointId, existing.get(), proceed);
    }

    /** The checkpoint completed or was aborted. */
    void checkpointEnded(long checkpointId) {
        checkpointAdmission.ended(checkpointId);
        existingManager().ifPresent(m -> m.checkpointEnded(checkpointId));
    }

    /** The job restored a checkpoint: checkpoints in flight will never be heard of again. */
    void checkpointsReset() {
        checkpointAdmission.reset();
    }

    /** Between asking Flink to restart the job and the restore: no checkpoint may complete. */
    boolean isFailingOver() {
        return link.isFailingOver();
    }

    void failoverDone() {
        link.failoverDone();
    }
}
