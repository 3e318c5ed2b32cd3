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

import io.rhino.core.handover.HandoverId;
import io.rhino.core.handover.HandoverMarker;
import io.rhino.core.routing.VnodeLayout;
import io.rhino.flink.config.ReplicationMode;
import io.rhino.flink.config.RhinoRuntimeSettings;
import io.rhino.flink.events.GateLoadEvent;
import io.rhino.flink.events.GateLocationEvent;
import io.rhino.flink.events.InstallVnodesEvent;
import io.rhino.flink.events.OriginShippedEvent;
import io.rhino.flink.events.ReplicationChainEvent;
import io.rhino.flink.events.TargetInstalledEvent;
import io.rhino.flink.handover.DfsStateTransfer;
import io.rhino.flink.handover.StateTransfer;
import io.rhino.flink.replication.PeerStateTransfer;
import io.rhino.flink.replication.PeerVnodeReplication;
import io.rhino.flink.replication.ReplicaRestore;
import io.rhino.flink.replication.ReplicationProgressTracker;
import io.rhino.flink.replication.TaskManagerReplication;
import io.rhino.flink.spec.RhinoOperatorSpec;
import io.rhino.flink.state.RhinoStateBackendCheck;
import io.rhino.flink.state.RhinoTaskRegistry;
import io.rhino.flink.state.VnodeKeyedStateBackend;
import io.rhino.handover.ShippedVnode;
import io.rhino.replication.PeerAddress;
import io.rhino.replication.ReplicationService;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.operators.MailboxExecutor;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.execution.CancelTaskException;
import org.apache.flink.runtime.execution.Environment;
import org.apache.flink.runtime.executiongraph.ExecutionAttemptID;
import org.apache.flink.runtime.metrics.groups.TaskIOMetricGroup;
import org.apache.flink.runtime.metrics.groups.TaskMetricGroup;
import org.apache.flink.runtime.operators.coordination.OperatorEvent;
import org.apache.flink.runtime.operators.coordination.OperatorEventGateway;
import org.apache.flink.runtime.operators.coordination.OperatorEventHandler;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.operators.StreamOperatorParameters;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.tasks.mailbox.TaskMailbox;
import org.apache.flink.util.ExceptionUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The downstream half of a Rhino keyed stream, chained in front of the user's keyed operator. It
 * unwraps records, and runs the subtask's side of the handover protocol:
 *
 * <ul>
 *   <li>as a <b>target</b>, from the first marker of a handover on, it holds back records of the
 *       vnodes it receives until the coordinator delivers their state, installs it and replays them
 *       in arrival order;
 *   <li>as an <b>origin</b>, it keeps processing; once every router's marker arrived no record of
 *       its outgoing vnodes can come any more, so it ships their state and drops them.
 * </ul>
 *
 * In both roles it holds back watermarks until its part is done, so that no event-time timer of a
 * moving vnode fires while some of its records wait elsewhere: at the target a watermark passed
 * before the replay would make the buffered records late; at the origin it would fire windows
 * without the records routers already send to the target.
 *
 * <p>Markers and coordinator events are handled in the task's mailbox, ordered with records.
 */
public final class RhinoGateOperator<T> extends AbstractStreamOperator<T>
        implements OneInputStreamOperator<RhinoElement<T>, T>, OperatorEventHandler {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(RhinoGateOperator.class);

    private final RhinoOperatorSpec spec;
    private final VnodeLayout layout;
    private final KeySelector<T, ?> keySelector;
    private final StateTransfer stateTransfer;
    private final OperatorEventGateway coordinator;
    private final MailboxExecutor mailbox;
    private final Duration handoverTimeout;
    private final Duration loadReportInterval;
    private final RhinoRuntimeSettings.Replication replication;
    private transient ReplicationService replicationService;
    private transient String replicationTaskManager;
    // a gate that finished its input never restarts: its job's replicas need no retention
    private transient boolean finished;
    // what moves vnodes: the configured transfer, or over replication when that is on
    private transient StateTransfer transfer;
    private transient volatile Map<Integer, String> replicationServiceBySubtask;
    private transient volatile PeerVnodeReplication currentReplication;
    // ships outgoing vnodes and opens incoming ones, several at once
    private transient VnodeTransfers vnodeTransfers;
    private transient PeerVnodeReplication formerReplication;
    private transient Counter handoverBytesSent;
    private transient ReplicationProgressTracker replicationProgress;
    private final ExecutionAttemptID task;
    private final Map<HandoverId, GateHandover> handovers = new HashMap<>();
    private final StaleHandovers staleHandovers = new StaleHandovers();

    /** Routers whose output ended: their markers count as arrived for every handover. */
    private final java.util.BitSet endedRouters = new java.util.BitSet();

    private final long handoverBufferMemory;
    private final int handoverThreads;
    private transient IncomingVnodeBuffer<T> incoming;
    private transient Counter bufferSpilledBytes;
    private final WatermarkHold watermarkHold = new WatermarkHold();
    private transient TypeSerializer<T> valueSerializer;
    private transient ProcessingTimerWakeup timerWakeup;

    // Flink's idle and back-pressure gauges average 5-second windows and read 0 until the first
    // one closed, which would make every starting task look fully busy
    private static final long BUSY_TIME_SETTLES_NANOS = TimeUnit.SECONDS.toNanos(11);
    private transient long openedAtNanos;

    RhinoGateOperator(
            StreamOperatorParameters<T> parameters,
            RhinoOperatorSpec spec,
            KeySelector<T, ?> keySelector,
            StateTransfer stateTransfer,
            OperatorEventGateway coordinator,
            Duration handoverTimeout,
            long handoverBufferMemory,
            int handoverThreads,
            Duration loadReportInterval,
            RhinoRuntimeSettings.Replication replication) {
        super(parameters);
        this.spec = spec;
        this.layout = spec.layout();
        this.keySelector = keySelector;
        this.stateTransfer = stateTransfer;
        this.coordinator = coordinator;
        // Coordinator events reach the task at the lowest mailbox priority, which an operator's own
        // executor does not run: waiting for an install yields on one of that priority.
        this.mailbox =
                parameters
                        .getContainingTask()
                        .getMailboxExecutorFactory()
                        .createExecutor(TaskMailbox.MIN_PRIORITY);
        this.handoverTimeout = handoverTimeout;
        this.handoverBufferMemory = handoverBufferMemory;
        this.handoverThreads = handoverThreads;
        this.loadReportInterval = loadReportInterval;
        this.replication = replication;
        Environment env = parameters.getContainingTask().getEnvironment();
        RhinoStateBackendCheck.requireRhinoStateBackend(
                spec.name(),
                parameters.getStreamConfig(),
                env.getJobConfiguration(),
                env.getTaskManagerInfo().getConfiguration(),
                env.getUserCodeClassLoader().asClassLoader());
        GateChainCheck.check(
                spec,
                parameters.getStreamConfig(),
                env.getUserCodeClassLoader().asClassLoader(),
                env.getTaskInfo().getNumberOfParallelSubtasks());
        this.task = env.getExecutionId();
        if (replication.peers()) {
            // before the keyed operator restores (Flink initialises the chain from its tail), so
            // that its restore can fetch replicas from peers through this TaskManager's service;
            // first, so that a service that cannot start leaves nothing registered
            acquireReplicationService(env);
        }
        RhinoTaskRegistry.registerGate(
                task,
                env.getJobID(),
                spec,
                env.getTaskInfo().getIndexOfThisSubtask(),
                ReplicaRestore.forTask(
                        env,
                        PeerVnodeReplication.operatorPrefix(
                                env.getJobID().toString(), spec.name())));
    }

    private void acquireReplicationService(Environment env) {
        String taskManager = TaskManagerReplication.taskManagerName(env);
        try {
            replicationService =
                    TaskManagerReplication.acquire(
                            taskManager,
                            env.getJobID().toString(),
                            PeerVnodeReplication.operatorPrefix(
                                    env.getJobID().toString(), spec.name()),
                            replication,
                            env.getTaskManagerInfo().getConfiguration(),
                            env.getTaskManagerInfo().getTaskManagerExternalAddress(),
                            Path.of(
                                    env.getTaskManagerInfo().getTmpDirectories()[0],
                                    "rhino-replicas"),
                            taskManagerMetricGroup(env));
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "Rhino keyed stream '"
                            + spec.name()
                            + "': the replication service of TaskManager "
                            + taskManager
                            + " cannot start: "
                            + e.getMessage(),
                    e);
        }
        replicationTaskManager = taskManager;
    }

    public RhinoOperatorSpec spec() {
        return spec;
    }

    @SuppressWarnings("unchecked")
    @Override
    public void open() throws Exception {
        super.open();
        openedAtNanos = System.nanoTime();
        // Flink initialises a chain from its tail: the keyed operator's backend exists by now
        GateChainCheck.requireVnodeBackend(spec, RhinoTaskRegistry.backendOf(task).isPresent());
        TypeSerializer<?> input =
                getOperatorConfig().getTypeSerializerIn(0, getUserCodeClassloader());
        valueSerializer = ((RhinoElementSerializer<T>) input).valueSerializer();
        // Resolves the Flink internals it needs now, so a mismatch fails the job at start.
        timerWakeup = new ProcessingTimerWakeup(getContainingTask());
        incoming =
                new IncomingVnodeBuffer<>(
                        valueSerializer.duplicate(),
                        handoverBufferMemory,
                        getContainingTask()
                                .getEnvironment()
                                .getIOManager()
                                .getSpillingDirectories());
        getMetricGroup().gauge("rhinoBufferedRecords", incoming::size);
        getMetricGroup()
                .gauge(
                        "rhinoBufferedBytes",
                        () -> incoming.memoryBytes() + incoming.spilledBytes());
        getMetricGroup().gauge("rhinoSpilledBytes", incoming::spilledBytes);
        bufferSpilledBytes = getMetricGroup().counter("rhinoBufferSpilledBytesTotal");
        getMetricGroup()
                .gauge(
                        "rhinoOwnedVnodes",
                        () ->
                                RhinoTaskRegistry.backendOf(task)
                                        .map(b -> b.ownedVnodes().length)
                                        .orElse(0));
        handoverBytesSent = getMetricGroup().counter("rhinoHandoverBytesSent");
        replicationProgress = new ReplicationProgressTracker().register(getMetricGroup());
        Environment env = getContainingTask().getEnvironment();
        String taskManager = TaskManagerReplication.taskManagerName(env);
        String replicationAddress = null;
        replicationServiceBySubtask = Map.of();
        transfer = transferFor(replication.mode());
        if (replication.peers()) {
            replicationAddress = replicationService.address().toString();
        }
        coordinator.sendEventToCoordinator(
                new GateLocationEvent(
                        taskManager, replicationAddress, replicaStoreFullAgoMillis()));
        long interval = loadReportInterval.toMillis();
        getProcessingTimeService()
                .scheduleWithFixedDelay(now -> reportStateBytes(), interval, interval);
    }

    /** How this gate moves vnodes, chosen once from the operator's replication mode. */
    private StateTransfer transferFor(ReplicationMode mode) {
        return switch (mode) {
            case NONE -> stateTransfer;
            case PEERS ->
                    new PeerStateTransfer(
                            stateTransfer,
                            replicationService,
                            subtask -> replicationServiceBySubtask.get(subtask),
                            () -> currentReplication,
                            replicaPrefix(),
                            replication.timeout().toMillis());
            case DFS -> {
                DfsStateTransfer dfs = new DfsStateTransfer(replication.dfsPath(), replicaPrefix());
                if (subtask() == 0) {
                    // no handover runs until every gate reported below: none is mid-transfer
                    dfs.removeLeftovers();
                }
                yield dfs;
            }
        };
    }

    private void reportStateBytes() {
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
                                            replicationService == null
                                                    ? null
                                                    : replicationProgress.snapshot(),
                                            replicaStoreFullAgoMillis()));
                        });
    }

    /** The TaskManager's own metric group (Flink's taskmanager scope), above the task's. */
    private static MetricGroup taskManagerMetricGroup(Environment env) {
        TaskMetricGroup task = env.getMetricGroup();
        return task.parent() == null ? null : task.parent().parent();
    }

    private long replicaStoreFullAgoMillis() {
        return replicationService == null ? -1 : replicationService.store().outOfSpaceAgoMillis();
    }

    /** What Flink reports as the task's busyTimeMsPerSecond: neither idle nor back-pressured. */
    private double busyTimeMsPerSecond() {
        if (System.nanoTime() - openedAtNanos < BUSY_TIME_SETTLES_NANOS) {
            return Double.NaN; // not measured yet: Flink's gauges read "never idle" until then
        }
        TaskIOMetricGroup io =
                getContainingTask().getEnvironment().getMetricGroup().getIOMetricGroup();
        double notBusy =
                io.getIdleTimeMsPerSecond().getValue() + io.getBackPressuredTimeMsPerSecond();
        return 1000.0 - Math.min(notBusy, 1000.0);
    }

    /**
     * Every router's output ended, possibly while this subtask still waits for the state of
     * incoming vnodes (their records and the final watermark wait here): wait for the installs,
     * serving the mailbox, before the keyed operator finishes. Flink holds no coordinator event
     * from this task now: a checkpoint that could hold the install was taken before the handover's
     * markers arrived, and later ones wait for the handover to end.
     */
    @Override
    public void finish() throws Exception {
        long deadline = System.nanoTime() + handoverTimeout.toNanos();
        while (incoming.isHolding()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        "Rhino gate of '"
                                + spec.name()
                                + "' subtask "
                                + subtask()
                                + " ends its input while still waiting after "
                                + handoverTimeout
                                + " for the state of vnodes "
                                + incoming.pending()
                                + "; the job restarts from its last checkpoint.");
            }
            if (!mailbox.tryYield()) {
                Thread.sleep(1);
            }
        }
        super.finish();
        finished = true;
    }

    @Override
    public void close() throws Exception {
        if (replicationTaskManager != null) {
            RhinoTaskRegistry.backendOf(task).ifPresent(b -> b.replicateWith(null));
            TaskManagerReplication.release(
                    replicationTaskManager,
                    getContainingTask().getEnvironment().getJobID().toString(),
                    finished ? java.time.Duration.ZERO : replication.retainAfterTasks());
            replicationTaskManager = null;
        }
        dropUnadoptedInstalls();
        RhinoTaskRegistry.unregisterGate(task);
        if (incoming != null) {
            incoming.close();
        }
        super.close();
    }

    @Override
    public void processElement(StreamRecord<RhinoElement<T>> element) throws Exception {
        RhinoElement<T> rhinoElement = element.getValue();
        if (rhinoElement.isRouterEnded()) {
            onRouterEnded(rhinoElement.endedRouter());
            return;
        }
        if (rhinoElement.isMarker()) {
            onMarker(rhinoElement);
            return;
        }
        T value = rhinoElement.value();
        if (incoming.isHolding()) {
            int vnode = vnodeOf(value);
            if (incoming.isPending(vnode)) {
                // held serialized: object reuse cannot change it
                incoming.add(vnode, element.replace(value));
                return;
            }
        }
        output.collect(element.replace(value));
    }

    @Override
    public void processWatermark(Watermark mark) throws Exception {
        if (eventTimeHeld()) {
            watermarkHold.hold(mark);
        } else {
            super.processWatermark(mark);
        }
    }

    private boolean eventTimeHeld() {
        return incoming.isHolding()
                || handovers.values().stream().anyMatch(GateHandover::awaitsShipping);
    }

    /** Lets the held watermark through once no handover here needs event time to stand still. */
    private void releaseWatermarkIfFree() throws Exception {
        if (!eventTimeHeld()) {
            Watermark watermark = watermarkHold.release();
            if (watermark != null) {
                super.processWatermark(watermark);
            }
        }
    }

    private int vnodeOf(T value) throws Exception {
        return layout.vnodeOfKeyGroup(
                KeyGroupRangeAssignment.assignToKeyGroup(
                        keySelector.getKey(value), spec.numKeyGroups()));
    }

    private int subtask() {
        return getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
    }

    private GateHandover handover(HandoverId id) {
        return handovers.computeIfAbsent(id, key -> new GateHandover(key, subtask(), endedRouters));
    }

    /**
     * A router's output ended (its input did): every handover here counts its marker as arrived,
     * those to come included, so an origin that waited only for it ships now.
     */
    private void onRouterEnded(int router) throws Exception {
        endedRouters.set(router);
        for (GateHandover handover : List.copyOf(handovers.values())) {
            handover.routerEnded(router);
            if (handover.needsShipping()) {
                ship(handover);
            }
            forgetIfDone(handover);
        }
        releaseWatermarkIfFree();
    }

    private void onMarker(RhinoElement<T> element) throws Exception {
        HandoverMarker marker = element.marker();
        if (isStale(marker)) {
            return;
        }
        GateHandover handover = handover(marker.handoverId());
        if (handover.onMarker(marker, element.routerParallelism())) {
            incoming.expect(handover.pendingIncoming());
        }
        if (handover.needsShipping()) {
            ship(handover);
        }
        forgetIfDone(handover);
        releaseWatermarkIfFree();
    }

    /** A replayed marker of a handover that ended before the restored checkpoint. */
    private boolean isStale(HandoverMarker marker) {
        HandoverId id = marker.handoverId();
        if (handovers.containsKey(id)) {
            return false;
        }
        if (staleHandovers.contains(id)) {
            return true;
        }
        VnodeKeyedStateBackend<?> backend = backend();
        if (GateHandover.contradictsOwnership(marker, subtask(), backend::owns)) {
            LOG.info(
                    "{} gate {} ignores a replayed marker of handover {} (epoch {}), which ended"
                            + " before the checkpoint it restored",
                    spec.name(),
                    subtask(),
                    id,
                    marker.newEpoch());
            staleHandovers.add(id);
            return true;
        }
        return false;
    }

    private void ship(GateHandover handover) throws Exception {
        LOG.debug("{} gate {} ships {}", spec.name(), subtask(), handover.outgoing());
        long alignMillis = handover.millisSinceFirstMarker();
        long start = System.nanoTime();
        VnodeKeyedStateBackend<?> backend = backend();
        long[] copiedAndSent = new long[2];
        // Each vnode is reported as soon as it is shipped, so that its target opens it while the
        // others still ship. The exports are complete and independent of the origin's instances.
        vnodeTransfers()
                .ship(
                        backend,
                        List.copyOf(handover.outgoing()),
                        handover::targetOf,
                        handover.id(),
                        transfer,
                        (vnode, shipment) -> {
                            handoverBytesSent.inc(shipment.sentBytes());
                            copiedAndSent[0] += shipment.copiedBytes();
                            copiedAndSent[1] += shipment.sentBytes();
                            coordinator.sendEventToCoordinator(
                                    new OriginShippedEvent(
                                            handover.id(),
                                            List.of(
                                                    new ShippedVnode(
                                                            vnode,
                                                            subtask(),
                                                            handover.targetOf(vnode),
                                                            shipment.payload())),
                                            alignMillis,
                                            (System.nanoTime() - start) / 1_000_000,
                                            shipment.copiedBytes(),
                                            shipment.sentBytes()));
                        });
        handover.markShipped();
        LOG.info(
                "{} gate {} shipped vnodes {} of handover {} in {} ms ({} ms after its first"
                        + " marker), copying {} bytes (the rest hard-linked) and sending {} bytes"
                        + " to other TaskManagers",
                spec.name(),
                subtask(),
                handover.outgoing(),
                handover.id(),
                (System.nanoTime() - start) / 1_000_000,
                alignMillis,
                copiedAndSent[0],
                copiedAndSent[1]);
        // Closing a RocksDB instance waits for its running compactions, which grows with the
        // state: only now, while the targets already install.
        for (int vnode : handover.outgoing()) {
            backend.removeVnode(vnode);
        }
    }

    @Override
    public void handleOperatorEvent(OperatorEvent event) {
        if (event instanceof ReplicationChainEvent chain) {
            replicationServiceBySubtask = chain.serviceBySubtask();
            if (replicationTaskManager != null) {
                // before the chain starts: this TaskManager's hops of this job's chains
                TaskManagerReplication.admitMembers(
                        replicationTaskManager,
                        PeerVnodeReplication.operatorPrefix(
                                getContainingTask().getEnvironment().getJobID().toString(),
                                spec.name()),
                        chain.serviceBySubtask().values());
            }
            replicateAlong(chain.chain());
            return;
        }
        if (!(event instanceof InstallVnodesEvent install)) {
            throw new IllegalArgumentException("Unexpected event for a Rhino gate: " + event);
        }
        startInstall(install);
    }

    /**
     * Opens the incoming vnodes' instances on the handover threads while this task goes on with the
     * records of its other vnodes (those of the incoming ones wait in the buffer, and no checkpoint
     * starts before the handover ends), then adopts them in the mailbox.
     */
    private void startInstall(InstallVnodesEvent event) {
        LOG.debug("{} gate {} installs {}", spec.name(), subtask(), event);
        long start = System.nanoTime();
        VnodeKeyedStateBackend<?> backend = backend();
        CompletableFuture<List<VnodeKeyedStateBackend.PreparedVnode>> prepared =
                vnodeTransfers().open(backend, event.vnodes(), transfer);
        prepared.whenComplete(
                (vnodes, failure) ->
                        mailbox.execute(
                                () -> finishInstall(event, prepared, start),
                                "install vnodes of handover %s",
                                event.handoverId()));
    }

    private void finishInstall(
            InstallVnodesEvent event,
            CompletableFuture<List<VnodeKeyedStateBackend.PreparedVnode>> prepared,
            long start) {
        if (vnodeTransfers != null) {
            vnodeTransfers.forget(prepared);
        }
        try {
            install(event, prepared.join(), start);
        } catch (Throwable e) {
            Throwable failure =
                    e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
            LOG.error("{} gate {} failed to install {}", spec.name(), subtask(), event, failure);
            // A CancelTaskException anywhere in the cause would make Flink treat this failure as
            // a cancellation and swallow it; the job must fail and roll back instead.
            Throwable cause =
                    ExceptionUtils.findThrowable(failure, CancelTaskException.class).isPresent()
                            ? new RuntimeException(ExceptionUtils.stringifyException(failure))
                            : failure;
            throw new IllegalStateException(
                    "Rhino gate of '"
                            + spec.name()
                            + "' subtask "
                            + subtask()
                            + " could not install vnodes of handover "
                            + event.handoverId(),
                    cause);
        }
    }

    private void install(
            InstallVnodesEvent event,
            List<VnodeKeyedStateBackend.PreparedVnode> prepared,
            long start)
            throws Exception {
        VnodeKeyedStateBackend<?> backend = backend();
        Set<Integer> vnodes = new TreeSet<>();
        // The installed vnodes bring their timers; the keyed operator's timer services must
        // wake up for processing-time ones earlier than what they wait for.
        try {
            timerWakeup.install(
                    () -> {
                        for (VnodeKeyedStateBackend.PreparedVnode vnode : prepared) {
                            backend.adoptVnode(vnode);
                            vnodes.add(vnode.vnode());
                        }
                    });
        } catch (Exception e) {
            for (VnodeKeyedStateBackend.PreparedVnode vnode : prepared) {
                if (!vnodes.contains(vnode.vnode())) {
                    vnode.discard();
                }
            }
            throw e;
        }
        long installMillis = (System.nanoTime() - start) / 1_000_000;
        LOG.info(
                "{} gate {} installed vnodes {} in {} ms",
                spec.name(),
                subtask(),
                vnodes,
                installMillis);
        GateHandover handover = handover(event.handoverId());
        handover.markInstalled(vnodes);
        long spilled = incoming.spilledBytes();
        int replayed = incoming.release(vnodes, output::collect);
        bufferSpilledBytes.inc(spilled);
        forgetIfDone(handover);
        releaseWatermarkIfFree();
        LOG.debug(
                "{} gate {} installed {}, replayed {} ({} bytes had spilled to disk)",
                spec.name(),
                subtask(),
                vnodes,
                replayed,
                spilled);
        coordinator.sendEventToCoordinator(
                new TargetInstalledEvent(event.handoverId(), vnodes, installMillis, replayed));
    }

    private VnodeTransfers vnodeTransfers() {
        if (vnodeTransfers == null) {
            vnodeTransfers =
                    new VnodeTransfers(spec.name() + " gate " + subtask(), handoverThreads);
        }
        return vnodeTransfers;
    }

    /** Instances still being opened when the task ends are dropped once open. */
    private void dropUnadoptedInstalls() {
        if (vnodeTransfers != null) {
            vnodeTransfers.close();
            vnodeTransfers = null;
        }
    }

    /** From the next checkpoint on, vnode checkpoints go along {@code chain}. */
    private void replicateAlong(List<String> chain) {
        if (replicationService == null) {
            return;
        }
        VnodeKeyedStateBackend<?> backend = backend();
        if (chain.isEmpty()) {
            if (currentReplication != null) {
                // told to drop their copies once a chain exists again
                formerReplication = currentReplication;
            }
            currentReplication = null;
            backend.replicateWith(null);
            replicationProgress.chainChanged(0);
            LOG.warn(
                    "{} gate {}: no other TaskManager to replicate to; checkpoints are not"
                            + " replicated",
                    spec.name(),
                    subtask());
            return;
        }
        List<PeerAddress> peers = chain.stream().map(PeerAddress::parse).toList();
        if (currentReplication != null && currentReplication.chain().equals(peers)) {
            // the same chain sent again: what it holds is still known, nothing to resend
            return;
        }
        PeerVnodeReplication previous =
                currentReplication != null ? currentReplication : formerReplication;
        formerReplication = null;
        Environment env = getContainingTask().getEnvironment();
        currentReplication =
                new PeerVnodeReplication(
                        replicationService,
                        peers,
                        replicaPrefix(),
                        backend.transferDirectory()
                                .toPath()
                                .resolve("replication-" + env.getExecutionId()),
                        replication.timeout().toMillis(),
                        replicationProgress);
        if (previous != null) {
            previous.handOver(currentReplication);
        }
        replicationProgress.chainChanged(peers.size());
        backend.replicateWith(currentReplication);
        LOG.info(
                "{} gate {} replicates its vnode checkpoints to {}", spec.name(), subtask(), peers);
    }

    private String replicaPrefix() {
        return PeerVnodeReplication.operatorPrefix(
                getContainingTask().getEnvironment().getJobID().toString(), spec.name());
    }

    private void forgetIfDone(GateHandover handover) {
        if (handover.done()) {
            handovers.remove(handover.id());
        }
    }

    private VnodeKeyedStateBackend<?> backend() {
        return RhinoTaskRegistry.backendOf(task)
                .orElseThrow(
                        () ->
                                new IllegalStateException(
                                        "No Rhino vnode backend in the task of '"
                                                + spec.name()
                                                + "'; is the keyed operator chained to its gate?"));
    }
}
