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

import org.apache.flink.runtime.io.network.api.writer.SubtaskStateMapper;
import org.apache.flink.runtime.plugable.SerializationDelegate;
import org.apache.flink.streaming.runtime.partitioner.StreamPartitioner;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * The router-to-gate edge: every element goes to the gate subtask its router chose.
 *
 * <p>A partitioner of its own rather than {@code partitionCustom}: Flink refuses unaligned
 * checkpoints for {@code partitionCustom} edges, and this edge is the job's shuffle, where
 * unaligned checkpoints matter most. In-flight elements persisted by an unaligned checkpoint are
 * replayed into the channel their router chose; gates ignore replayed handover markers that
 * contradict the restored routing table (see {@code GateHandover}). Rhino refuses parallelism
 * changes of routers and gates, so the in-flight data is never redistributed; the mappers below
 * only name what Flink would otherwise do.
 */
public final class ChannelPartitioner<T> extends StreamPartitioner<RhinoElement<T>> {

    private static final long serialVersionUID = 2L;

    @Override
    public int selectChannel(SerializationDelegate<StreamRecord<RhinoElement<T>>> record) {
        int channel = record.getInstance().getValue().channel();
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

    @Override
    public StreamPartitioner<RhinoElement<T>> copy() {
        return new ChannelPartitioner<>();
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
