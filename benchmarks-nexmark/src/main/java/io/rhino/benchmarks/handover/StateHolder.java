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

package io.rhino.benchmarks.handover;

import io.rhino.core.routing.VnodeLayout;
import java.util.BitSet;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Stores each fill record's payload as its key's value (the state a handover moves) and counts
 * probes per key (a read-modify-write, like real processing), reporting probe latencies to the
 * run's {@link RunProbe}.
 */
public final class StateHolder extends KeyedProcessFunction<Long, LoadEvent, Void> {

    private static final long serialVersionUID = 1L;
    private static final long FAR_FUTURE = Long.MAX_VALUE / 2;

    private final String runId;
    private final VnodeLayout layout;
    private final BitSet movingVnodes;
    private final int timersPerRecord;

    private transient ValueState<byte[]> values;
    private transient ValueState<Long> probeCounts;
    private transient RunProbe probe;
    private transient int subtask;

    /**
     * @param timersPerRecord event-time timers each fill record registers, far in the future (the
     *     job has no watermarks, so they never fire)
     */
    public StateHolder(String runId, VnodeLayout layout, BitSet movingVnodes, int timersPerRecord) {
        this.runId = runId;
        this.layout = layout;
        this.movingVnodes = (BitSet) movingVnodes.clone();
        this.timersPerRecord = timersPerRecord;
    }

    @Override
    public void open(OpenContext openContext) {
        values =
                getRuntimeContext()
                        .getState(
                                new ValueStateDescriptor<>(
                                        "value",
                                        PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO));
        probeCounts =
                getRuntimeContext().getState(new ValueStateDescriptor<>("probes", Types.LONG));
        probe = RunProbe.of(runId);
        subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
    }

    @Override
    public void processElement(LoadEvent event, Context ctx, Collector<Void> out) throws Exception {
        if (!event.isProbe()) {
            values.update(event.payload);
            for (int i = 0; i < timersPerRecord; i++) {
                // a thousand distinct times, like windows' ends
                ctx.timerService()
                        .registerEventTimeTimer(FAR_FUTURE + (event.key + i) % 1000 * 1000);
            }
            probe.recordFill(event.payload.length);
            return;
        }
        Long count = probeCounts.value();
        probeCounts.update(count == null ? 1 : count + 1);
        RunProbe.Group group =
                movingVnodes.get(layout.vnodeOfKey(event.key))
                        ? RunProbe.Group.MOVING
                        : RunProbe.Group.STAYING;
        probe.recordProbe(subtask, group, System.currentTimeMillis() - event.createdMillis);
    }
}
