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

import org.apache.flink.api.common.functions.Partitioner;

/** Sends a {@link RhinoElement} to the channel its router chose. */
public final class ChannelPartitioner implements Partitioner<Integer> {

    private static final long serialVersionUID = 1L;

    @Override
    public int partition(Integer channel, int numPartitions) {
        if (channel < 0 || channel >= numPartitions) {
            throw new IllegalStateException(
                    "Rhino router chose channel "
                            + channel
                            + " but the gate has "
                            + numPartitions
                            + " subtasks; the router and gate disagree on the operator's "
                            + "parallelism.");
        }
        return channel;
    }
}
