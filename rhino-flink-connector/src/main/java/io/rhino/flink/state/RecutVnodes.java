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
import io.rhino.core.routing.RescaleAssignment;
import io.rhino.core.routing.VnodeLayout;
import io.rhino.flink.spec.RhinoOperatorSpec;
import io.rhino.flink.spec.UnsupportedJobShapeException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyedStateHandle;

/**
 * A restore that re-cuts the restored key groups into the vnode count the job chose ({@link
 * RhinoOperatorSpec#recuts}): each new vnode the subtask owns restores from every old vnode whose
 * key groups it shares.
 *
 * <p>Native state (a retained checkpoint, a native savepoint) hands the new vnode's RocksDB backend
 * the old vnodes' RocksDB handles whole; Flink's own restore clips a handle to the backend's
 * key-group range, or with several handles opens the best one clipped and copies the others' keys
 * of the range in, as at any rescale of its RocksDB backend. A canonical savepoint's part of each
 * old vnode is cut to the new vnode's key groups, as Flink cuts it at a rescale.
 *
 * <p>Which new vnodes the subtask owns is what {@link io.rhino.core.routing.RoutingTable#recutTo}
 * gives it: at another parallelism Flink's ranges (every subtask has every old subtask's vnodes
 * then), at an unchanged one the new vnodes cut from its own old vnodes.
 *
 * <p>Replicas, task-local copies and timer heads are kept per old vnode: a re-cut vnode takes none
 * of them, restores from the checkpoint storage, and its timer queues read their heads from
 * RocksDB.
 */
final class RecutVnodes {

    private RecutVnodes() {}

    static VnodeRestore.Restored read(
            List<WrittenSubtask> written,
            VnodeLayout restored,
            RhinoOperatorSpec running,
            int subtaskIndex)
            throws IOException {
        VnodeLayout layout = running.layout();
        int parallelism = running.parallelism();
        WrittenSubtask first = written.get(0);
        boolean unchangedParallelism =
                first.parallelism() == parallelism
                        || first.parallelism() == WrittenSubtask.UNKNOWN_PARALLELISM;
        Set<Integer> mine =
                unchangedParallelism
                        ? cutFromOwnVnodes(written, restored, running, subtaskIndex)
                        : RescaleAssignment.vnodesOf(layout, parallelism, subtaskIndex);
        if (!unchangedParallelism && written.stream().anyMatch(WrittenSubtask::canonical)) {
            VnodeRestore.refuseSplitCanonical(layout, running, mine);
        }
        Map<Integer, List<KeyedStateHandle>> oldHandles = new TreeMap<>();
        for (WrittenSubtask part : written) {
            oldHandles.putAll(part.handlesByVnode());
        }
        Map<Integer, List<KeyedStateHandle>> handlesByVnode = new TreeMap<>();
        Set<Integer> missing = new TreeSet<>();
        for (int vnode : mine) {
            KeyGroupSpan span = layout.keyGroupsOf(vnode);
            KeyGroupRange range = new KeyGroupRange(span.startKeyGroup(), span.endKeyGroup());
            List<KeyedStateHandle> handles = new ArrayList<>();
            for (int old = restored.vnodeOfKeyGroup(span.startKeyGroup());
                    old <= restored.vnodeOfKeyGroup(span.endKeyGroup());
                    old++) {
                List<KeyedStateHandle> ofOld = oldHandles.get(old);
                if (ofOld == null) {
                    missing.add(old);
                    continue;
                }
                for (KeyedStateHandle handle : ofOld) {
                    KeyedStateHandle part = MigratedKeyedState.cutTo(handle, range);
                    if (part != null) {
                        handles.add(part);
                    }
                }
            }
            handlesByVnode.put(vnode, handles);
        }
        if (!missing.isEmpty()) {
            throw new IOException(
                    "Rhino keyed operator '"
                            + running.name()
                            + "': subtask "
                            + subtaskIndex
                            + " of "
                            + parallelism
                            + " re-cuts "
                            + restored.numVnodes()
                            + " vnodes into "
                            + layout.numVnodes()
                            + " and restores new vnodes "
                            + mine
                            + ", but old vnodes "
                            + missing
                            + " are in none of the "
                            + written.size()
                            + " handles Flink gave it. The state was probably written by a Rhino"
                            + " version whose checkpoints name only their subtask's key groups:"
                            + " restore it with its vnode count ("
                            + restored.numVnodes()
                            + ") at the parallelism it was written with ("
                            + first.parallelism()
                            + "), take a checkpoint or savepoint, and re-cut from that.");
        }
        return new VnodeRestore.Restored(
                running, handlesByVnode, List.of(), Map.of(), Map.of(), Map.of(), true);
    }

    /**
     * At an unchanged parallelism Flink hands the subtask only its own old state: the new vnodes it
     * owns are those cut from its old vnodes alone. One cut from its and other subtasks' old vnodes
     * cannot restore anywhere (the routers refuse the same, from the restored table).
     */
    private static Set<Integer> cutFromOwnVnodes(
            List<WrittenSubtask> written,
            VnodeLayout restored,
            RhinoOperatorSpec running,
            int subtaskIndex)
            throws IOException {
        Set<Integer> ownOld = null;
        for (WrittenSubtask part : written) {
            if (part.subtask() == subtaskIndex) {
                ownOld = part.handlesByVnode().keySet();
            }
        }
        if (ownOld == null) {
            throw new IOException(
                    "Rhino keyed operator '"
                            + running.name()
                            + "' re-cuts state at its unchanged parallelism "
                            + running.parallelism()
                            + ", but Flink handed subtask "
                            + subtaskIndex
                            + " no state of its own: the checkpoint or savepoint does not belong"
                            + " to this operator's subtasks.");
        }
        VnodeLayout layout = running.layout();
        Set<Integer> mine = new TreeSet<>();
        List<Integer> mixed = new ArrayList<>();
        for (int vnode = 0; vnode < layout.numVnodes(); vnode++) {
            KeyGroupSpan span = layout.keyGroupsOf(vnode);
            int owned = 0;
            int first = restored.vnodeOfKeyGroup(span.startKeyGroup());
            int last = restored.vnodeOfKeyGroup(span.endKeyGroup());
            for (int old = first; old <= last; old++) {
                owned += ownOld.contains(old) ? 1 : 0;
            }
            if (owned == last - first + 1) {
                mine.add(vnode);
            } else if (owned > 0) {
                mixed.add(vnode);
            }
        }
        if (!mixed.isEmpty()) {
            throw UnsupportedJobShapeException.atTaskStart(
                    RhinoOperatorSpec.recutAcrossSubtasks(
                            running.name(),
                            restored.numVnodes(),
                            layout.numVnodes(),
                            running.parallelism(),
                            mixed));
        }
        return mine;
    }
}
