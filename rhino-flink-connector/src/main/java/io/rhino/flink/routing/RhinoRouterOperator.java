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

import io.rhino.core.handover.HandoverCommand;
import io.rhino.core.handover.HandoverMarker;
import io.rhino.core.routing.RoutingTable;
import io.rhino.flink.coordination.InheritedContextLoaders;
import io.rhino.flink.coordination.RecordMethodCaches;
import io.rhino.flink.events.RouterAckEvent;
import io.rhino.flink.events.RouterCommandEvent;
import io.rhino.flink.events.RouterFinishingEvent;
import io.rhino.flink.events.RouterStartedEvent;
import io.rhino.flink.metrics.RhinoMetric;
import io.rhino.flink.spec.RhinoOperatorSpec;
import java.time.Duration;
import java.util.List;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeutils.base.array.BytePrimitiveArraySerializer;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.runtime.io.network.api.writer.ResultPartitionWriter;
import org.apache.flink.runtime.operators.coordination.OperatorEvent;
import org.apache.flink.runtime.operators.coordination.OperatorEventGateway;
import org.apache.flink.runtime.operators.coordination.OperatorEventHandler;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.operators.StreamOperatorParameters;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.tasks.ProcessingTimeService;
import org.apache.flink.util.InstantiationUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The upstream half of a Rhino keyed stream, chained to the upstream operator: sends each record to
 * the subtask owning its key's vnode. On a handover command from the coordinator it emits a marker
 * on every channel, then switches to the new routing table: records before the marker went by the
 * old table, records after it by the new one.
 *
 * <p>The table is kept in union operator state, so after a restore every router routes by the table
 * of the checkpoint, matching the vnode ownership in the restored keyed state.
 */
public final class RhinoRouterOperator<T, K> extends AbstractStreamOperator<RhinoElement<T>>
        implements OneInputStreamOperator<T, RhinoElement<T>>, OperatorEventHandler {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(RhinoRouterOperator.class);

    private final RhinoOperatorSpec spec;
    private final KeySelector<T, K> keySelector;
    private final int gateParallelism;
    private final OperatorEventGateway coordinator;
    private final Duration loadReportInterval;
    private transient ListState<byte[]> tableState;
    private transient VnodeRecordCounts routed;
    private transient RoutingTable table;

    RhinoRouterOperator(
            StreamOperatorParameters<RhinoElement<T>> parameters,
            RhinoOperatorSpec spec,
            KeySelector<T, K> keySelector,
            int gateParallelism,
            OperatorEventGateway coordinator,
            Duration loadReportInterval) {
        super(parameters);
        this.spec = spec;
        this.keySelector = keySelector;
        this.gateParallelism = gateParallelism;
        this.coordinator = coordinator;
        this.loadReportInterval = loadReportInterval;
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        tableState =
                context.getOperatorStateStore()
                        .getUnionListState(
                                new ListStateDescriptor<>(
                                        "rhino-routing-table",
                                        BytePrimitiveArraySerializer.INSTANCE));
        RoutingTable restored = null;
        for (byte[] bytes : tableState.get()) {
            RoutingTable candidate =
                    InstantiationUtil.deserializeObject(bytes, getClass().getClassLoader());
            if (restored == null || candidate.epoch() > restored.epoch()) {
                restored = candidate;
            }
        }
        // A restored table wins even at epoch 0: the restored vnode state follows it, whatever
        // the initial table of this build (e.g. another active parallelism) says. At another
        // parallelism the gates' backends redistribute the vnodes as the rescaled table does.
        table = spec.routingTableAt(gateParallelism, restored);
        RhinoMetric.ROUTING_EPOCH.gauge(getMetricGroup(), () -> table.epoch());
    }

    @Override
    public void open() throws Exception {
        super.open();
        RecordMethodCaches.releaseWith(getRuntimeContext());
        InheritedContextLoaders.releaseWith(getRuntimeContext());
        // The manager adopts this table before it plans a handover: after a restore it may hold a
        // newer one that no restored subtask knows.
        coordinator.sendEventToCoordinator(new RouterStartedEvent(table));
        ProcessingTimeService time = getProcessingTimeService();
        routed = new VnodeRecordCounts(table.layout().numVnodes(), time.getCurrentProcessingTime());
        long interval = loadReportInterval.toMillis();
        time.scheduleWithFixedDelay(
                now -> coordinator.sendEventToCoordinator(routed.report(now)), interval, interval);
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        tableState.update(List.of(InstantiationUtil.serializeObject(table)));
    }

    @Override
    public void processElement(StreamRecord<T> element) throws Exception {
        int keyGroup =
                KeyGroupRangeAssignment.assignToKeyGroup(
                        keySelector.getKey(element.getValue()), table.layout().numKeyGroups());
        int vnode = table.layout().vnodeOfKeyGroup(keyGroup);
        routed.count(vnode);
        output.collect(
                element.replace(RhinoElement.record(table.ownerOf(vnode), element.getValue())));
    }

    /**
     * The input ended: the last element on every channel says so, and the gates count it as this
     * router's marker of every handover, running or to come. So a handover in flight completes
     * without this router's output staying open, and the router need not wait for the coordinator
     * (whose events Flink holds while a checkpoint is in flight: this task could then not take the
     * checkpoint, whose barrier follows the end of its input). The coordinator, told as well,
     * counts it as the router's acknowledgement and starts no handover any more.
     */
    @Override
    public void finish() throws Exception {
        int subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
        int routers = getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks();
        for (int channel = 0; channel < table.parallelism(); channel++) {
            output.collect(new StreamRecord<>(RhinoElement.routerEnded(channel, subtask, routers)));
        }
        coordinator.sendEventToCoordinator(new RouterFinishingEvent());
        super.finish();
    }

    @Override
    public void handleOperatorEvent(OperatorEvent event) {
        if (!(event instanceof RouterCommandEvent commandEvent)) {
            throw new IllegalArgumentException("Unexpected event for a Rhino router: " + event);
        }
        HandoverCommand command = commandEvent.command();
        if (command.newEpoch() <= table.epoch()) {
            // already applied (a resent command): acknowledge again, emit nothing
            coordinator.sendEventToCoordinator(
                    new RouterAckEvent(command.handoverId(), command.newEpoch()));
            return;
        }
        int subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
        int routers = getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks();
        RoutingTable next = table.apply(command.plan());
        HandoverMarker marker =
                new HandoverMarker(
                        command.handoverId(),
                        command.newEpoch(),
                        subtask,
                        command.plan(),
                        table.layout().numVnodes());
        for (int channel = 0; channel < table.parallelism(); channel++) {
            output.collect(new StreamRecord<>(RhinoElement.marker(channel, marker, routers)));
        }
        sendMarkersNow();
        table = next;
        coordinator.sendEventToCoordinator(
                new RouterAckEvent(command.handoverId(), command.newEpoch()));
    }

    /**
     * Hands the markers to the network now. Flink sends a partly filled network buffer only when
     * the buffer timeout next fires (every 100 ms by default, never with a timeout of -1), and each
     * origin waits for the marker of every router; this is the flush that timeout would do.
     */
    private void sendMarkersNow() {
        for (ResultPartitionWriter partition :
                getContainingTask().getEnvironment().getAllWriters()) {
            partition.flushAll();
        }
    }
}
