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

import io.rhino.core.handover.HandoverCommand;
import io.rhino.core.handover.HandoverId;
import io.rhino.core.routing.RoutingTable;
import io.rhino.flink.config.RhinoRuntimeSettings;
import io.rhino.flink.events.InstallVnodesEvent;
import io.rhino.flink.events.ReplicationChainEvent;
import io.rhino.flink.events.RouterCommandEvent;
import io.rhino.flink.reconfiguration.AutoBalancer;
import io.rhino.flink.reconfiguration.OperatorView;
import io.rhino.flink.reconfiguration.ReplicationView;
import io.rhino.flink.replication.ReplicationProgress;
import io.rhino.flink.spec.RhinoOperatorSpec;
import io.rhino.handover.CommandNotDeliveredException;
import io.rhino.handover.HandoverManager;
import io.rhino.handover.HandoverManagerOptions;
import io.rhino.handover.ShippedVnode;
import io.rhino.handover.load.VnodeLoads;
import io.rhino.handover.policy.AutoBalanceTrigger;
import io.rhino.handover.replication.FullStores;
import io.rhino.handover.replication.ReplicaGroups;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobID;
import org.apache.flink.runtime.operators.coordination.CoordinatorStore;
import org.apache.flink.runtime.operators.coordination.OperatorCoordinator;
import org.apache.flink.runtime.operators.coordination.OperatorCoordinator.SubtaskGateway;
import org.apache.flink.util.concurrent.ExecutorThreadFactory;

/**
 * Where the router coordinator and the gate coordinator of one Rhino operator meet, in the job's
 * {@link CoordinatorStore}: it holds the operator's {@link HandoverManager} (which outlives
 * coordinator re-creation on failover) and the gateways to the running subtasks, and is the
 * manager's port to them.
 */
final class RhinoOperatorHub implements HandoverManager.ProtocolPort, OperatorView {

    private static final org.slf4j.Logger LOG =
            org.slf4j.LoggerFactory.getLogger(RhinoOperatorHub.class);

    private final JobID jobId;
    private final RhinoOperatorSpec spec;
    private final SubtaskRecovery recovery;
    private final Map<Integer, SubtaskGateway> routers = new ConcurrentHashMap<>();
    private final Map<Integer, SubtaskGateway> gates = new ConcurrentHashMap<>();
    private final Map<Integer, String> gateTaskManagers = new ConcurrentHashMap<>();
    private final Map<String, String> replicationAddressByTaskManager = new ConcurrentHashMap<>();
    // the replica chain (TaskManagers) of each gate subtask, as last sent
    private volatile Map<Integer, List<String>> replicaChains = Map.of();
    private final Map<Integer, ReceivedProgress> replicationProgress = new ConcurrentHashMap<>();
    private final Map<Integer, Double> busyTimeBySubtask = new ConcurrentHashMap<>();
    private volatile OperatorCoordinator.Context gateContext;
    private final int routerParallelism;
    private volatile boolean failingOver;
    // the first failure of the failover under way, named for the attempts Flink cancels after it
    private String failoverCause;
    private final CheckpointAdmission checkpointAdmission = new CheckpointAdmission();
    private HandoverManager manager;
    private volatile VnodeLoads loads;
    private volatile RhinoRuntimeSettings settings;
    private volatile AutoBalancer autoBalancer;
    private FullStores fullStores;
    // the timer's check of the earliest full-store back-off's end, and when it runs
    private ScheduledFuture<?> backoffCheck;
    private long backoffCheckAtMillis;

    /**
     * The manager's timeouts. The operator's own, shut down with it: a thread that outlived the job
     * would keep the job's class loader, and with it every class of the job, on a session cluster.
     */
    private ScheduledExecutorService timer;

    private RhinoOperatorHub(JobID jobId, RhinoOperatorSpec spec, int routerParallelism) {
        this.jobId = jobId;
        this.spec = spec;
        this.routerParallelism = routerParallelism;
        this.recovery = new SubtaskRecovery(routerParallelism, spec.parallelism());
    }

    static RhinoOperatorHub of(
            OperatorCoordinator.Context context, RhinoOperatorSpec spec, int routerParallelism) {
        return (RhinoOperatorHub)
                context.getCoordinatorStore()
                        .compute(
                                "rhino-operator:" + spec.name(),
                                (key, existing) ->
                                        existing != null
                                                ? existing
                                                : new RhinoOperatorHub(
                                                        context.getJobID(),
                                                        spec,
                                                        routerParallelism));
    }

    JobID flinkJobId() {
        return jobId;
    }

    @Override
    public String jobId() {
        return jobId.toHexString();
    }

    @Override
    public String name() {
        return spec.name();
    }

    @Override
    public int parallelism() {
        return spec.parallelism();
    }

    @Override
    public Optional<HandoverManager> manager() {
        return existingManager();
    }

    @Override
    public double[] recordsPerSecond() {
        VnodeLoads current = loads;
        return current == null
                ? new double[spec.numVnodes()]
                : current.recordsPerSecond(System.currentTimeMillis());
    }

    @Override
    public long stateBytes(int vnode) {
        VnodeLoads current = loads;
        return current == null ? -1 : current.stateBytes(vnode);
    }

    /** A router's records per vnode over its last report period. */
    void routerLoad(int router, long[] recordsByVnode, long periodMillis) {
        VnodeLoads current = loads;
        if (current != null) {
            current.routerReport(router, recordsByVnode, periodMillis, System.currentTimeMillis());
        }
    }

    /** A gate's state sizes of the vnodes it owns, and its replication progress. */
    void gateLoad(
            int subtask,
            Map<Integer, Long> stateBytesByVnode,
            double busyTimeMsPerSecond,
            ReplicationProgress replication,
            long replicaStoreFullAgoMillis) {
        VnodeLoads current = loads;
        if (current != null) {
            stateBytesByVnode.forEach(current::stateBytes);
        }
        if (!Double.isNaN(busyTimeMsPerSecond)) {
            busyTimeBySubtask.put(subtask, busyTimeMsPerSecond);
        }
        if (replication != null) {
            replicationProgress.put(
                    subtask, new ReceivedProgress(replication, System.currentTimeMillis()));
        }
        String taskManager = gateTaskManagers.get(subtask);
        if (taskManager != null) {
            replicaStoreReport(taskManager, replicaStoreFullAgoMillis);
        }
    }

    /**
     * A TaskManager whose replica store ran out of space leaves every chain for the back-off time
     * (its own subtasks replicate to the others), so that the next checkpoints of the subtasks that
     * replicated to it succeed; then it is tried again.
     */
    private synchronized void replicaStoreReport(String taskManager, long fullAgoMillis) {
        FullStores stores = fullStores;
        if (stores == null || manager == null) {
            return;
        }
        long now = System.currentTimeMillis();
        boolean changed = stores.report(taskManager, fullAgoMillis, now);
        changed |= stores.expired(now);
        if (changed) {
            fullStoresChanged(now);
        }
        checkWhenBackoffEnds();
    }

    private void fullStoresChanged(long now) {
        LOG.warn(
                "Replica stores of Rhino operator '{}' that ran out of space recently, left"
                        + " out of replica chains for {}: {}",
                spec.name(),
                settings.replication().fullStoreBackoff(),
                fullStores.excluded(now));
        sendReplicationChains();
    }

    /**
     * Has the timer take a freed TaskManager back into the chains when its back-off ends, not only
     * when a gate's next report arrives: a gate whose input ended reports no more.
     */
    private void checkWhenBackoffEnds() {
        OptionalLong next = fullStores.nextExpiryMillis();
        if (next.isEmpty()
                || timer.isShutdown()
                || (backoffCheck != null
                        && !backoffCheck.isDone()
                        && backoffCheckAtMillis == next.getAsLong())) {
            return;
        }
        if (backoffCheck != null) {
            backoffCheck.cancel(false);
        }
        backoffCheckAtMillis = next.getAsLong();
        long delay = Math.max(0, backoffCheckAtMillis - System.currentTimeMillis());
        backoffCheck = timer.schedule(this::backoffEnded, delay, TimeUnit.MILLISECONDS);
    }

    private synchronized void backoffEnded() {
        if (timer.isShutdown()) {
            return; // closed while this check waited for the lock
        }
        long now = System.currentTimeMillis();
        if (fullStores.expired(now)) {
            fullStoresChanged(now);
        }
        checkWhenBackoffEnds();
    }

    /** A gate's report and when it arrived here (ages are aged by this JVM's clock only). */
    private record ReceivedProgress(ReplicationProgress progress, long receivedAtMillis) {}

    @Override
    public boolean servedOverRest() {
        RhinoRuntimeSettings current = settings;
        return current != null && current.rest().enabled();
    }

    @Override
    public Optional<String> restToken() {
        RhinoRuntimeSettings current = settings;
        return current == null ? Optional.empty() : current.rest().token();
    }

    /** The settings the operator's gate coordinator runs with, once it started. */
    Optional<RhinoRuntimeSettings> settings() {
        return Optional.ofNullable(settings);
    }

    /** The auto-balancer, if {@code rhino.balancer.auto} is on and the manager runs. */
    Optional<AutoBalancer> autoBalancer() {
        return Optional.ofNullable(autoBalancer);
    }

    RhinoOperatorSpec spec() {
        return spec;
    }

    /**
     * The manager, created by the gate coordinator's first start. It refuses handovers until every
     * router and gate subtask runs.
     */
    synchronized HandoverManager manager(
            OperatorCoordinator.Context gateContext,
            HandoverManagerOptions options,
            RhinoRuntimeSettings settings) {
        this.gateContext = gateContext;
        if (manager == null) {
            this.settings = settings;
            this.fullStores = new FullStores(settings.replication().fullStoreBackoff());
            this.loads = new VnodeLoads(spec.numVnodes(), settings.loadWindow());
            timer =
                    Executors.newSingleThreadScheduledExecutor(
                            new ExecutorThreadFactory("rhino-handover-timer-" + spec.name()));
            manager =
                    new HandoverManager(
                            spec.name(),
                            spec.initialRoutingTable(),
                            routerParallelism,
                            this,
                            options,
                            System::currentTimeMillis,
                            timer);
            manager.suspend("starting; waiting for " + recovery.waitingFor());
            resumeIfAllRunning();
            startAutoBalancer(settings.balancer());
        }
        return manager;
    }

    private void startAutoBalancer(RhinoRuntimeSettings.Balancer balancer) {
        if (!balancer.auto()) {
            return;
        }
        autoBalancer =
                new AutoBalancer(
                        this,
                        RhinoHandovers.directory(),
                        new AutoBalanceTrigger(
                                balancer.maxImbalance(),
                                balancer.interval().toMillis(),
                                balancer.cooldown().toMillis(),
                                balancer.minBusyMsPerSecond()),
                        System::currentTimeMillis);
        // checks a few times per interval, so an imbalance is acted on soon after it lasted
        long period = Math.max(100, balancer.interval().toMillis() / 4);
        timer.scheduleWithFixedDelay(autoBalancer, period, period, TimeUnit.MILLISECONDS);
        LOG.info(
                "Auto-balancer of Rhino operator '{}' is on: rebalances above {} max/mean load"
                        + " sustained for {} while the busiest subtask is busy at least {} ms/s,"
                        + " then waits {}",
                spec.name(),
                balancer.maxImbalance(),
                balancer.interval(),
                balancer.minBusyMsPerSecond(),
                balancer.cooldown());
    }

    /**
     * The job ends (its coordinators close): fails what still runs, refuses what comes, and stops
     * the timer thread.
     */
    synchronized void close() {
        if (manager != null) {
            manager.close();
            timer.shutdownNow();
        }
    }

    synchronized Optional<HandoverManager> existingManager() {
        return Optional.ofNullable(manager);
    }

    void routerReady(int subtask, SubtaskGateway gateway) {
        routers.put(subtask, gateway);
    }

    /** A router attempt opened and routes by {@code table}. */
    synchronized void routerStarted(int subtask, int attempt, RoutingTable table) {
        recovery.routerStarted(subtask, attempt, table);
        resumeIfAllRunning();
    }

    /** A router attempt failed ({@code attempt} >= 0) or is being reset ({@code attempt} = -1). */
    synchronized void routerGone(int subtask, int attempt, String reason) {
        routers.remove(subtask);
        recovery.routerGone(subtask, attempt);
        suspend(reason);
    }

    /**
     * A router's input ended: no handover starts any more, and a running one counts the router's
     * end as its acknowledgement.
     */
    void routerFinishing(int subtask) {
        existingManager().ifPresent(manager -> manager.routerInputEnded(subtask));
    }

    void gateReady(int subtask, SubtaskGateway gateway) {
        gates.put(subtask, gateway);
    }

    /** A gate attempt opened on {@code taskManager}. */
    synchronized void gateStarted(
            int subtask,
            int attempt,
            String taskManager,
            String replicationAddress,
            long replicaStoreFullAgoMillis) {
        gateTaskManagers.put(subtask, taskManager);
        if (replicationAddress != null) {
            replicationAddressByTaskManager.put(taskManager, replicationAddress);
        }
        if (fullStores != null && replicaStoreFullAgoMillis >= 0) {
            // chains go out when every gate runs again, below
            fullStores.report(taskManager, replicaStoreFullAgoMillis, System.currentTimeMillis());
            checkWhenBackoffEnds();
        }
        recovery.gateStarted(subtask, attempt);
        resumeIfAllRunning();
    }

    /** A gate attempt failed ({@code attempt} >= 0) or is being reset ({@code attempt} = -1). */
    /**
     * Why a router or gate attempt ended, for the suspension and the handovers it fails. Flink
     * gives no reason for an attempt it cancels (its region restarts after another task failed, or
     * the job is cancelled): that one is named a cancellation, after the failure that caused it
     * when this operator saw one.
     */
    synchronized String attemptEnded(String role, int subtask, Throwable reason) {
        if (reason != null) {
            String failure = role + " subtask " + subtask + " failed: " + reason;
            if (failoverCause == null) {
                failoverCause = failure;
            }
            return failure;
        }
        return role
                + " subtask "
                + subtask
                + " was cancelled while the job failed over"
                + (failoverCause != null
                        ? " after " + failoverCause
                        : " (after a task of another operator failed) or was cancelled");
    }

    synchronized void gateGone(int subtask, int attempt, String reason) {
        gates.remove(subtask);
        gateTaskManagers.remove(subtask);
        replicationProgress.remove(subtask);
        busyTimeBySubtask.remove(subtask);
        recovery.gateGone(subtask, attempt);
        suspend(reason);
    }

    /** The whole job restores a checkpoint (global failover, JobManager failover). */
    synchronized void allGone(String reason) {
        recovery.allGone();
        gateTaskManagers.clear();
        replicationProgress.clear();
        busyTimeBySubtask.clear();
        suspend(reason);
    }

    private void suspend(String reason) {
        if (manager != null) {
            manager.suspend(reason);
        }
    }

    /**
     * Once every subtask runs again, the manager adopts the routers' table, which the restored
     * gates agree with, and accepts handovers.
     */
    private void resumeIfAllRunning() {
        if (manager == null) {
            return;
        }
        recovery.agreedTable()
                .ifPresent(
                        table -> {
                            if (recovery.routersDisagree()) {
                                LOG.warn(
                                        "Routers of Rhino operator '{}' restored different routing"
                                                + " tables; following the newest, {}",
                                        spec.name(),
                                        table);
                            }
                            manager.resume(table);
                            failoverCause = null;
                            sendReplicationChains();
                        });
    }

    /**
     * With replication on, tells every gate its chain: replica groups over the TaskManagers the
     * gates run on now, balanced by their state bytes.
     */
    private void sendReplicationChains() {
        RhinoRuntimeSettings current = settings;
        if (current == null || !current.replication().peers()) {
            return;
        }
        Map<Integer, Long> bytesBySubtask = new TreeMap<>();
        RoutingTable table = manager.routingTable();
        for (int vnode = 0; vnode < spec.numVnodes(); vnode++) {
            long bytes = Math.max(0, stateBytes(vnode));
            bytesBySubtask.merge(table.ownerOf(vnode), bytes, Long::sum);
        }
        Map<Integer, List<String>> chains =
                ReplicaGroups.assign(
                        new TreeMap<>(gateTaskManagers),
                        bytesBySubtask,
                        current.replication().factor(),
                        fullStores.excluded(System.currentTimeMillis()));
        replicaChains = Map.copyOf(chains);
        Map<Integer, String> serviceBySubtask = new TreeMap<>();
        gateTaskManagers.forEach(
                (subtask, taskManager) -> {
                    String address = replicationAddressByTaskManager.get(taskManager);
                    if (address != null) {
                        serviceBySubtask.put(subtask, address);
                    }
                });
        chains.forEach(
                (subtask, taskManagers) -> {
                    List<String> addresses = new ArrayList<>();
                    for (String taskManager : taskManagers) {
                        String address = replicationAddressByTaskManager.get(taskManager);
                        if (address != null) {
                            addresses.add(address);
                        }
                    }
                    SubtaskGateway gate = gates.get(subtask);
                    if (gate != null) {
                        gate.sendEvent(new ReplicationChainEvent(addresses, serviceBySubtask));
                    }
                });
        LOG.info("Replica chains of Rhino operator '{}': {}", spec.name(), chains);
    }

    /**
     * The TaskManagers of each vnode's owner's replica chain: they hold the vnode's state as of the
     * owner's last replicated checkpoint (once one ran since the chains were set).
     */
    @Override
    public Map<Integer, Set<String>> replicaHolders() {
        Map<Integer, List<String>> chains = replicaChains;
        if (chains.isEmpty()) {
            return Map.of();
        }
        RoutingTable table = manager.routingTable();
        Map<Integer, Set<String>> holders = new TreeMap<>();
        for (int vnode = 0; vnode < spec.numVnodes(); vnode++) {
            holders.put(
                    vnode,
                    new LinkedHashSet<>(chains.getOrDefault(table.ownerOf(vnode), List.of())));
        }
        return holders;
    }

    @Override
    public ReplicationView replication() {
        RhinoRuntimeSettings current = settings;
        if (current == null || !current.replication().peers()) {
            return current == null
                    ? ReplicationView.NONE
                    : new ReplicationView(
                            current.replication().mode().optionValue(),
                            1,
                            Map.of(),
                            Map.of(),
                            Set.of());
        }
        long now = System.currentTimeMillis();
        Map<Integer, ReplicationProgress> progress = new TreeMap<>();
        replicationProgress.forEach(
                (subtask, received) ->
                        progress.put(
                                subtask,
                                received.progress().agedBy(now - received.receivedAtMillis())));
        return new ReplicationView(
                current.replication().mode().optionValue(),
                current.replication().factor(),
                replicaChains,
                progress,
                fullStoresNow());
    }

    private synchronized Set<String> fullStoresNow() {
        return fullStores == null ? Set.of() : fullStores.excluded(System.currentTimeMillis());
    }

    @Override
    public Map<Integer, Double> busyTimeMsPerSecond() {
        return new TreeMap<>(busyTimeBySubtask);
    }

    /** Which TaskManager each gate subtask runs on, as reported by the subtasks. */
    @Override
    public Map<Integer, String> taskManagerBySubtask() {
        return new TreeMap<>(gateTaskManagers);
    }

    /**
     * Sends the command to every router, or to none: if one is not running, nothing is sent and the
     * handover fails without restarting the job.
     */
    @Override
    public void sendToRouters(HandoverCommand command) {
        List<SubtaskGateway> targets = new ArrayList<>(routerParallelism);
        for (int subtask = 0; subtask < routerParallelism; subtask++) {
            SubtaskGateway router = routers.get(subtask);
            if (router == null) {
                throw new CommandNotDeliveredException(
                        "Router subtask "
                                + subtask
                                + " of Rhino operator '"
                                + spec.name()
                                + "' is not running; nothing was sent, retry once the job runs");
            }
            targets.add(router);
        }
        for (SubtaskGateway router : targets) {
            router.sendEvent(new RouterCommandEvent(command));
        }
    }

    @Override
    public void sendToTarget(int targetSubtask, HandoverId id, List<ShippedVnode> vnodes) {
        SubtaskGateway gate = gates.get(targetSubtask);
        if (gate == null) {
            throw new IllegalStateException(
                    "Gate subtask "
                            + targetSubtask
                            + " of Rhino operator '"
                            + spec.name()
                            + "' is not running.");
        }
        gate.sendEvent(new InstallVnodesEvent(id, vnodes))
                .whenComplete(
                        (ack, failure) -> {
                            if (failure != null) {
                                LOG.warn(
                                        "Could not send vnodes of handover {} to gate {} of '{}'",
                                        id,
                                        targetSubtask,
                                        spec.name(),
                                        failure);
                            }
                        });
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
        return failingOver;
    }

    void failoverDone() {
        failingOver = false;
    }

    @Override
    public void failJob(Throwable cause) {
        failingOver = true;
        OperatorCoordinator.Context context = gateContext;
        if (context != null) {
            context.failJob(cause);
        }
    }
}
