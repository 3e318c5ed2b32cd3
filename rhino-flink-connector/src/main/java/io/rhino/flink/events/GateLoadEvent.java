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

package io.rhino.flink.events;

import io.rhino.flink.replication.ReplicationProgress;
import java.util.Map;
import org.apache.flink.runtime.operators.coordination.OperatorEvent;

/**
 * Gate subtask → coordinator, periodically: the state size of each vnode it owns, in bytes, how
 * busy its task is (Flink's busyTimeMsPerSecond), where its checkpoint replication stands (null
 * without replication), and how long ago its TaskManager's replica store last ran out of space (-1:
 * never, or no replication).
 */
public record GateLoadEvent(
        Map<Integer, Long> stateBytesByVnode,
        double busyTimeMsPerSecond,
        ReplicationProgress replication,
        long replicaStoreFullAgoMillis)
        implements OperatorEvent {

    public GateLoadEvent {
        stateBytesByVnode = Map.copyOf(stateBytesByVnode);
    }
}
