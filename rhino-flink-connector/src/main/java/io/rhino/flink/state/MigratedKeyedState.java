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

import io.rhino.core.routing.KeyGroupSpan;
import io.rhino.core.routing.VnodeLayout;
import io.rhino.flink.spec.RhinoOperatorSpec;
import io.rhino.flink.spec.UnsupportedJobShapeException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupsStateHandle;
import org.apache.flink.runtime.state.KeyedStateHandle;

/**
 * Keyed state a job on Flink's own {@code keyBy} wrote, entering a Rhino operator of the same uid
 * (migration in): a canonical savepoint (Flink's key-group format), or a native savepoint or
 * retained checkpoint of Flink's RocksDB backend (one RocksDB handle per old subtask, incremental
 * or full). Flink hands each subtask the old subtasks' handles that intersect its range for the new
 * parallelism; the subtask owns the vnodes the initial routing table gives it (the routers restore
 * no table either), each restored from the parts of the handles that hold its key groups, from one
 * or several of the old subtasks. A key-group stream is cut to the vnode's key groups; a RocksDB
 * handle goes whole to the vnode's RocksDB backend, whose restore clips it to the vnode's range
 * (and merges several), as Flink's own RocksDB backend restores at another parallelism.
 */
final class MigratedKeyedState {

    private MigratedKeyedState() {}

    static Map<Integer, List<KeyedStateHandle>> handlesByVnode(
            List<KeyedStateHandle> handles, RhinoOperatorSpec running, int subtask) {
        VnodeLayout layout = running.layout();
        Map<Integer, List<KeyedStateHandle>> byVnode = new TreeMap<>();
        List<Integer> beyond = new ArrayList<>();
        for (int vnode : running.initialRoutingTable().vnodesOwnedBy(subtask)) {
            KeyGroupSpan span = layout.keyGroupsOf(vnode);
            KeyGroupRange range = new KeyGroupRange(span.startKeyGroup(), span.endKeyGroup());
            List<KeyedStateHandle> parts = new ArrayList<>();
            int covered = 0;
            for (KeyedStateHandle handle : handles) {
                covered += handle.getKeyGroupRange().getIntersection(range).getNumberOfKeyGroups();
                KeyedStateHandle part = cutTo(handle, range);
                if (part != null) {
                    parts.add(part);
                }
            }
            if (covered != range.getNumberOfKeyGroups()) {
                beyond.add(vnode);
            }
            byVnode.put(vnode, parts);
        }
        if (!beyond.isEmpty()) {
            // a restart would restore the same savepoint at the same parallelism
            throw UnsupportedJobShapeException.atTaskStart(
                    "Rhino keyed operator '"
                            + running.name()
                            + "' restores state of Flink's keyBy at parallelism "
                            + running.parallelism()
                            + ", but Flink hands subtask "
                            + subtask
                            + " only the key groups of its own range, and its vnodes "
                            + beyond
                            + " reach beyond it. Restore at a parallelism that divides the "
                            + layout.numKeyGroups()
                            + " key groups, with "
                            + "rhino.vnodes unset (4 per subtask) or a multiple of it.");
        }
        return byVnode;
    }

    /**
     * The part of {@code handle} a vnode of {@code range} restores from: a key-group stream cut to
     * the range; a RocksDB handle whole, which Flink's RocksDB restore clips to the range of the
     * backend it restores; null if the handle holds none of the range.
     */
    static KeyedStateHandle cutTo(KeyedStateHandle handle, KeyGroupRange range) {
        if (handle instanceof KeyGroupsStateHandle keyGroups) {
            return keyGroups.getIntersection(range);
        }
        return handle.getKeyGroupRange().getIntersection(range).getNumberOfKeyGroups() > 0
                ? handle
                : null;
    }
}
