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

import io.rhino.flink.state.RestoreSource;
import java.util.Map;
import org.apache.flink.runtime.operators.coordination.OperatorEvent;

/**
 * Gate subtask → coordinator, once at start: the TaskManager it runs on and, with replication on,
 * that TaskManager's replication service ("host:port"; null otherwise) and how long ago its replica
 * store last ran out of space (-1: never), so that the chains sent when the job (re)starts already
 * leave a full store out; and where its restore took each vnode from (empty for a fresh start).
 */
public record GateLocationEvent(
        String taskManager,
        String replicationAddress,
        long replicaStoreFullAgoMillis,
        Map<Integer, RestoreSource> restoreSourceByVnode)
        implements OperatorEvent {

    public GateLocationEvent {
        restoreSourceByVnode = Map.copyOf(restoreSourceByVnode);
    }
}
