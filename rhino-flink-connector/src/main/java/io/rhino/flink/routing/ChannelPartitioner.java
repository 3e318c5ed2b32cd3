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
import io.rhino.flink.state.RestoredVnodes;
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
 * replayed into the channel their router chose; gates ignore replayed handover markers (see {@code
 * GateAlignment}).
 *
 * <p>When Flink redistributes in-flight elements at a restore, it hands every gate all of them
 * ({@link SubtaskStateMapper#FULL}) and keeps, at each, those a {@link #copy()} of this partitioner
 * selects for it. It does so at another parallelism, and also at an unchanged one whenever the
 * routers' parallelism differs from the gates' (Flink 2.2 compares the gates' old parallelism with
 * the routers' new one). Those elements were routed by the old table; the copy keeps a record at
 * the gate whose backend restored its vnode ({@link RestoredVnodes}), which is the owner in the
 * rescaled table at another parallelism, the owner in the restored table at an unchanged one (after
 * handovers, not Flink's key-group range), and the owner in the re-cut table after a re-cut.
 * Markers are kept at one gate each and noted as replayed, since the subtasks and vnodes they name
 * may have been renumbered. Flink copies a partitioner only for that filter; the routers' writers
 * use a serialized clone.
 */
public final class ChannelPartitioner<T> extends StreamPartitioner<RhinoElement<T>> {

    private static final long serialVersionUID = 3L;

    private final KeySelector<T, ?> keySelector;
    private final VnodeLayout layout;
    private final boolean filtersRescaledState;
    private transient RestoredVnodes restored; // the filter's: read at its first record

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
        if (element.isMarker()) {
            // replayed: its handover ended before the checkpoint, and the subtasks it names may
            // be renumbered; the gate it is kept at learns that here and ignores it
            RhinoTaskRegistry.noteReplayedHandover(element.marker().handoverId());
            return Math.floorMod(element.channel(), numberOfChannels);
        }
        if (element.isRouterEnded()) {
            return Math.floorMod(element.channel(), numberOfChannels);
        }
        if (restored == null) {
            // Flink filters on the task's thread, after its operators restored their state
            restored = RhinoTaskRegistry.restoredVnodesOfThisTask().orElse(null);
        }
        VnodeLayout vnodes = restored == null ? layout : restored.layout();
        int vnode;
        try {
            vnode =
                    vnodes.vnodeOfKeyGroup(
                            KeyGroupRangeAssignment.assignToKeyGroup(
                                    keySelector.getKey(element.value()), vnodes.numKeyGroups()));
        } catch (Exception e) {
            throw new IllegalStateException(
                    "The key of a record in flight at the restored checkpoint cannot be read", e);
        }
        if (restored == null) {
            return RescaleAssignment.ownerOf(vnodes, numberOfChannels, vnode);
        }
        // Flink keeps a record where this returns the task's own index: at the gate that restored
        // its vnode, which after handovers need not be the owner of Flink's key-group range
        return restored.owns(vnode)
                ? restored.subtask()
                : (restored.subtask() + 1) % numberOfChannels;
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
