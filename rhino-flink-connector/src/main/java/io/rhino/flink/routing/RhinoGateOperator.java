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

import io.rhino.core.routing.VnodeLayout;
import io.rhino.flink.config.RhinoRuntimeSettings;
import io.rhino.flink.coordination.InheritedContextLoaders;
import io.rhino.flink.coordination.RecordMethodCaches;
import io.rhino.flink.events.InstallVnodesEvent;
import io.rhino.flink.events.ReplicationChainEvent;
import io.rhino.flink.handover.StateTransfer;
import io.rhino.flink.metrics.RhinoMetric;
import io.rhino.flink.replication.GateReplication;
import io.rhino.flink.replication.ReplicaRestore;
import io.rhino.flink.spec.RhinoOperatorSpec;
import io.rhino.flink.state.RhinoStateBackendCheck;
import io.rhino.flink.state.RhinoTaskRegistry;
import io.rhino.flink.state.VnodeKeyedStateBackend;
import java.time.Duration;
import org.apache.flink.api.common.operators.MailboxExecutor;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.runtime.execution.Environment;
import org.apache.flink.runtime.executiongraph.ExecutionAttemptID;
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
 * <p>Markers and coordinator events are handled in the task's mailbox, ordered with records. The
 * steps live in their own classes: {@link GateAlignment} (markers and event time), {@link
 * GateShipper}, {@link GateInstaller}, {@link GateReplication} and {@link GateLoadReporter}.
 */
public final class RhinoGateOperator<T> extends AbstractStreamOperator<T>
        implements OneInputStreamOperator<RhinoElement<T>, T>, OperatorEventHandler {

    private static final long serialVersionUID = 1L;

    private final RhinoOperatorSpec spec;
    private transient VnodeLayout layout; // the backend's: the restored vnodes
    private final KeySelector<T, ?> keySelector;
    private final StateTransfer stateTransfer;
    private final OperatorEventGateway coordinator;
    private final MailboxExecutor mailbox;
    private final Duration handoverTimeout;
    private final Duration loadReportInterval;
    private final ExecutionAttemptID task;
    private final long handoverBufferMemory;
    private final int handoverThreads;
    // holds the TaskManager's replication service from here to close()
    private final transient GateReplication replication;
    // a gate that finished its input never restarts: its job's replicas need no retention
    private transient boolean finished;
    private transient IncomingVnodeBuffer<T> incoming;
    // ships outgoing vnodes and opens incoming ones, several at once
    private transient VnodeTransfers vnodeTransfers;
    private transient GateAlignment alignment;
    private transient GateInstaller<T> installer;

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
        // before the keyed operator restores (Flink initialises the chain from its tail), so that
        // its restore can fetch replicas from peers through this TaskManager's service; first, so
        // that a service that cannot start leaves nothing registered
        this.replication = GateReplication.start(env, spec.name(), replication);
        RhinoTaskRegistry.registerGate(
                task,
                env.getJobID(),
                spec,
                env.getTaskInfo().getIndexOfThisSubtask(),
                ReplicaRestore.forTask(
                        env, this.replication.prefix(), replication.checkReplicasBeforeOpen()));
    }

    public RhinoOperatorSpec spec() {
        return spec;
    }

    @SuppressWarnings("unchecked")
    @Override
    public void open() throws Exception {
        super.open();
        RecordMethodCaches.releaseWith(getRuntimeContext());
        InheritedContextLoaders.releaseWith(getRuntimeContext());
        GateLoadReporter loadReporter =
                new GateLoadReporter(
                        task,
                        coordinator,
                        replication,
                        getContainingTask().getEnvironment().getMetricGroup().getIOMetricGroup());
        // Flink initialises a chain from its tail: the keyed operator's backend exists by now
        GateChainCheck.requireVnodeBackend(spec, RhinoTaskRegistry.backendOf(task).isPresent());
        layout = backend().layout();
        TypeSerializer<?> input =
                getOperatorConfig().getTypeSerializerIn(0, getUserCodeClassloader());
        TypeSerializer<T> valueSerializer = ((RhinoElementSerializer<T>) input).valueSerializer();
        // Resolves the Flink internals it needs now, so a mismatch fails the job at start.
        ProcessingTimerWakeup timerWakeup = new ProcessingTimerWakeup(getContainingTask());
        incoming =
                new IncomingVnodeBuffer<>(
                        valueSerializer.duplicate(),
                        handoverBufferMemory,
                        getContainingTask()
                                .getEnvironment()
                                .getIOManager()
                                .getSpillingDirectories());
        RhinoMetric.BUFFERED_RECORDS.gauge(getMetricGroup(), incoming::size);
        RhinoMetric.BUFFERED_BYTES.gauge(
                getMetricGroup(), () -> incoming.memoryBytes() + incoming.spilledBytes());
        RhinoMetric.SPILLED_BYTES.gauge(getMetricGroup(), incoming::spilledBytes);
        loadReporter.registerOwnedVnodes(getMetricGroup());
        replication.open(getMetricGroup());
        String name = spec.name();
        int subtask = subtask();
        StateTransfer transfer = replication.transferFor(stateTransfer);
        vnodeTransfers = new VnodeTransfers(name + " gate " + subtask, handoverThreads);
        GateShipper shipper =
                new GateShipper(
                        name,
                        subtask,
                        this::backend,
                        vnodeTransfers,
                        transfer,
                        coordinator,
                        RhinoMetric.HANDOVER_BYTES_SENT.counter(getMetricGroup()));
        alignment =
                new GateAlignment(
                        name,
                        subtask,
                        incoming,
                        shipper,
                        this::backend,
                        super::processWatermark,
                        RhinoTaskRegistry::isReplayedHandoverOfThisTask);
        installer =
                new GateInstaller<>(
                        name,
                        subtask,
                        this::backend,
                        vnodeTransfers,
                        transfer,
                        mailbox,
                        timerWakeup,
                        incoming,
                        record -> output.collect(record),
                        RhinoMetric.BUFFER_SPILLED_BYTES_TOTAL.counter(getMetricGroup()),
                        alignment,
                        coordinator);
        loadReporter.start(getProcessingTimeService(), loadReportInterval);
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
        replication.release(finished);
        if (vnodeTransfers != null) {
            // instances still being opened are dropped once open
            vnodeTransfers.close();
        }
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
            alignment.onRouterEnded(rhinoElement.endedRouter());
            return;
        }
        if (rhinoElement.isMarker()) {
            alignment.onMarker(rhinoElement.marker(), rhinoElement.routerParallelism());
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
        alignment.onWatermark(mark);
    }

    @Override
    public void handleOperatorEvent(OperatorEvent event) {
        if (event instanceof ReplicationChainEvent chain) {
            replication.onChain(chain.serviceBySubtask(), chain.chain(), this::backend);
            return;
        }
        if (!(event instanceof InstallVnodesEvent install)) {
            throw new IllegalArgumentException("Unexpected event for a Rhino gate: " + event);
        }
        installer.start(install);
    }

    private int vnodeOf(T value) throws Exception {
        return layout.vnodeOfKeyGroup(
                KeyGroupRangeAssignment.assignToKeyGroup(
                        keySelector.getKey(value), layout.numKeyGroups()));
    }

    private int subtask() {
        return getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
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
