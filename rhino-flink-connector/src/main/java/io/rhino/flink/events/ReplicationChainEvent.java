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

import java.util.List;
import java.util.Map;
import org.apache.flink.runtime.operators.coordination.OperatorEvent;

/**
 * Coordinator → gate subtask: the replication services ("host:port", nearest first) its vnode
 * checkpoints go to from now on, empty for none; and the service of every gate subtask's
 * TaskManager, where handovers send vnodes.
 */
public record ReplicationChainEvent(List<String> chain, Map<Integer, String> serviceBySubtask)
        implements OperatorEvent {

    public ReplicationChainEvent {
        chain = List.copyOf(chain);
        serviceBySubtask = Map.copyOf(serviceBySubtask);
    }
}
