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

import io.rhino.core.routing.RescaleAssignment;
import io.rhino.core.routing.VnodeLayout;
import io.rhino.flink.state.RhinoTaskRegistry;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.runtime.io.network.api.writer.SubtaskStateMapper;
import org.apache.flink.runtime.plugable.SerializationDelegate;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.streaming.runtime.partitioner.StreamPartitioner;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * The router-to-gate edge: every element goes to the gate subtask its router chose.
 *
 * <p>A partitioner of its own rather than {@code partitionCustom}: Flink refuses unaligned
 * checkpoints for {@code partitionCustom} edges, and this edge is the job's shuffle, where
 * unaligned checkpoints matter most. In-flight elements persisted by an unaligned checkpoint are
 * replayed into the channel their router chose; gates ignore replayed handover markers that
 * contradict the restored routing table (see {@code GateHandover}).
 *
 * <p>At a restore at another parallelism Flink hands every new gate all in-flight elements ({@link
 * SubtaskStateMapper#FULL}) and keeps, at each, those a {@link #copy()} of this partitioner selects
 * for it. Those elements were routed by the old table; the copy selects the owner of the record's
 * vnode in the rescaled one ({@link RescaleAssignment}), which is what the restored gates own. The
 * vnodes are those the task's backend restored, which differ from the job's when it was built at
 * another parallelism with {@code rhino.vnodes} unset (the restored count wins). Flink copies a
 * partitioner only for that filter; the routers' writers use a serialized clone.
 */
public final class ChannelPartitioner<T> extends StreamPartitioner<RhinoElement<T>> {

    private static final long serialVersionUID = 3L;

    private final KeySelector<T, ?> keySelector;
    private final VnodeLayout layout;
    private final boolean filtersRescaledState;
    private transient VnodeLayout restoredLayout; // the filter's: read at its first record

    /**
     * @param keySelector the Rhino keyed stream's key selector
     * @param layout the operator's vnodes as the job was built; a restore's filter follows those
     *     its task's backend restored
     */
    public ChannelPartitioner(KeySelector<T, ?> keySelector, VnodeLayout layout) {
        this(keySelector, layout, false);
    }

    private ChannelPartitioner(
            KeySelector<T, ?> keySelector, VnodeLayout layout, boolean filtersRescaledState) {
        this.keySelector = keySelector;
        this.layout = layout;
        this.filtersRescaledState = filtersRescaledState;
    }

    @Override
    public int selectChannel(SerializationDelegate<StreamRecord<RhinoElement<T>>> record) {
        RhinoElement<T> element = record.getInstance().getValue();
        if (filtersRescaledState) {
            return rescaledOwnerOf(element);
        }
        int channel = element.channel();
        if (channel < 0 || channel >= numberOfChannels) {
            throw new IllegalStateException(
                    "Rhino router chose channel "
                            + channel
                            + " but the gate has "
                            + numberOfChannels
                            + " subtasks; the router and gate disagree on the operator's "
                            + "parallelism.");
        }
        return channel;
    }

    private int rescaledOwnerOf(RhinoElement<T> element) {
        if (element.isMarker() || element.isRouterEnded()) {
            // markers are stale after the restore and ignored; keep each at one gate
            return Math.floorMod(element.channel(), numberOfChannels);
        }
        if (restoredLayout == null) {
            // Flink filters on the task's thread, after its operators restored their state
            restoredLayout = RhinoTaskRegistry.restoredLayoutOfThisTask().orElse(layout);
        }
        try {
            int keyGroup =
                    KeyGroupRangeAssignment.assignToKeyGroup(
                            keySelector.getKey(element.value()), restoredLayout.numKeyGroups());
            return RescaleAssignment.ownerOf(
                    restoredLayout, numberOfChannels, restoredLayout.vnodeOfKeyGroup(keyGroup));
        } catch (Exception e) {
            throw new IllegalStateException(
                    "The key of a record in flight at the restored checkpoint cannot be read", e);
        }
    }

    @Override
    public StreamPartitioner<RhinoElement<T>> copy() {
        return new ChannelPartitioner<>(keySelector, layout, true);
    }

    @Override
    public SubtaskStateMapper getDownstreamSubtaskStateMapper() {
        return SubtaskStateMapper.FULL;
    }

    @Override
    public boolean isPointwise() {
        return false;
    }

    @Override
    public String toString() {
        return "RHINO";
    }
}
