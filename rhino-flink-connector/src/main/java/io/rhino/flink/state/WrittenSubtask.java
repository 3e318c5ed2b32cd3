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

package io.rhino.flink.state;

import io.rhino.core.routing.VnodeLayout;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import org.apache.flink.runtime.state.KeyedStateHandle;

/**
 * What one subtask wrote into the checkpoint or savepoint a subtask restores: its vnodes, each with
 * the handles to restore it from, and what it knew about them. At an unchanged parallelism Flink
 * hands a subtask its own; at another, those of every subtask whose key groups it may now hold.
 *
 * @param subtask the writing subtask's index
 * @param parallelism the parallelism it ran at, or {@link #UNKNOWN_PARALLELISM} for a canonical
 *     savepoint of a version that did not record it
 * @param layout the vnodes it split the key groups into
 * @param canonical whether it is a canonical savepoint, whose key groups Flink cut by its ranges
 * @param handlesByVnode the vnodes it owned (none for one without state)
 * @param replicaHolders the replication services that acked its vnodes' replicas
 * @param timerHeadsByVnode its vnodes' first timers, where recorded
 * @param localCopyByVnode task-local copies of its vnodes on this TaskManager
 * @param heldByChain where this TaskManager's replica chain held its vnodes' files
 */
record WrittenSubtask(
        int subtask,
        int parallelism,
        VnodeLayout layout,
        boolean canonical,
        SortedMap<Integer, List<KeyedStateHandle>> handlesByVnode,
        List<String> replicaHolders,
        Map<Integer, TimerQueueHeads> timerHeadsByVnode,
        Map<Integer, Path> localCopyByVnode,
        Map<Integer, VnodeReplication.HeldReplica> heldByChain) {

    static final int UNKNOWN_PARALLELISM = -1;

    WrittenSubtask {
        handlesByVnode = new TreeMap<>(handlesByVnode);
        replicaHolders = List.copyOf(replicaHolders);
        timerHeadsByVnode = Map.copyOf(timerHeadsByVnode);
        localCopyByVnode = Map.copyOf(localCopyByVnode);
        heldByChain = Map.copyOf(heldByChain);
    }

    static WrittenSubtask canonical(
            int subtask,
            int parallelism,
            VnodeLayout layout,
            SortedMap<Integer, List<KeyedStateHandle>> handlesByVnode) {
        return new WrittenSubtask(
                subtask,
                parallelism,
                layout,
                true,
                handlesByVnode,
                List.of(),
                Map.of(),
                Map.of(),
                Map.of());
    }
}
