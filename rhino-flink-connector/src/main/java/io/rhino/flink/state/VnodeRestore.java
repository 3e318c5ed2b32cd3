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

import io.rhino.core.routing.RescaleAssignment;
import io.rhino.core.routing.VnodeLayout;
import io.rhino.flink.config.RhinoOptions;
import io.rhino.flink.spec.RhinoOperatorSpec;
import io.rhino.flink.spec.UnsupportedJobShapeException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.flink.runtime.state.KeyGroupsSavepointStateHandle;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.StreamStateHandle;

/**
 * Reads the vnode manifests (or the canonical savepoint) Flink hands a restoring subtask, checks
 * they fit it, and picks its vnodes: at the parallelism they were written with, those of its own
 * manifest (ownership follows the checkpoint, handovers included); at another, those {@link
 * RescaleAssignment} gives it, from whichever subtask wrote them.
 */
final class VnodeRestore {

    private VnodeRestore() {}

    /**
     * What a subtask restores.
     *
     * @param running the operator as it runs: the restored vnode count, the running parallelism
     * @param handlesByVnode the vnodes the subtask owns, each with the handles to restore it from
     *     (none for a vnode that had no state)
     * @param replicaHolders the replication services ("host:port") that acked the checkpoint's
     *     replicas of these vnodes (none if it was not replicated)
     * @param localCopyByVnode where Flink's task-local recovery kept a vnode's copy on this
     *     TaskManager, when Flink restores the subtask from it ({@link TaskLocalVnodes})
     * @param heldByChain where the replica chain held those vnodes' files
     * @param timerHeadsByVnode the first timers of the vnodes' timer queues as of the checkpoint
     *     (none for a canonical savepoint or a checkpoint of an earlier version)
     * @param recut whether the restore re-cut the key groups into another vnode count ({@link
     *     RecutVnodes}): the vnodes are not the checkpoint's, and no replica, local copy or timer
     *     heads of the checkpoint's vnodes apply to them
     */
    record Restored(
            RhinoOperatorSpec running,
            Map<Integer, List<KeyedStateHandle>> handlesByVnode,
            List<String> replicaHolders,
            Map<Integer, Path> localCopyByVnode,
            Map<Integer, VnodeReplication.HeldReplica> heldByChain,
            Map<Integer, TimerQueueHeads> timerHeadsByVnode,
            boolean recut) {}

    /** What the subtask restores, or null when it starts without state. */
    static Restored read(
            Collection<KeyedStateHandle> handles,
            RhinoOperatorSpec spec,
            int subtaskIndex,
            int parallelism,
            TaskManagerLocalCopies taskManagerCopies,
            ClassLoader userCodeClassLoader)
            throws IOException {
        if (handles == null || handles.isEmpty()) {
            return null;
        }
        List<WrittenSubtask> written = new ArrayList<>();
        List<KeyedStateHandle> keyedByFlink = new ArrayList<>();
        for (KeyedStateHandle handle : handles) {
            WrittenSubtask part =
                    writtenSubtask(handle, spec, taskManagerCopies, userCodeClassLoader);
            if (part != null) {
                written.add(part);
            } else {
                keyedByFlink.add(handle);
            }
        }
        if (!keyedByFlink.isEmpty()) {
            if (!written.isEmpty()) {
                throw new IOException(
                        "Rhino keyed operator '"
                                + spec.name()
                                + "' restores a savepoint that mixes state of Flink's keyBy and"
                                + " of Rhino: it is not one savepoint of one operator.");
            }
            // no routing table was restored either: the routers start from the initial one
            RhinoOperatorSpec running = spec.running(parallelism, null);
            return new Restored(
                    running,
                    MigratedKeyedState.handlesByVnode(keyedByFlink, running, subtaskIndex),
                    List.of(),
                    Map.of(),
                    Map.of(),
                    Map.of(),
                    false);
        }
        VnodeLayout layout = commonLayout(written, spec);
        RhinoOperatorSpec running = spec.running(parallelism, layout);
        if (spec.recuts(layout)) {
            return RecutVnodes.read(written, layout, running, subtaskIndex);
        }
        Set<Integer> mine = vnodesOf(written, running, subtaskIndex);
        Map<Integer, List<KeyedStateHandle>> handlesByVnode = new TreeMap<>();
        Set<String> holders = new LinkedHashSet<>();
        Map<Integer, Path> localCopies = new TreeMap<>();
        Map<Integer, VnodeReplication.HeldReplica> heldByChain = new TreeMap<>();
        Map<Integer, TimerQueueHeads> timerHeads = new TreeMap<>();
        for (WrittenSubtask part : written) {
            boolean taken = false;
            for (Map.Entry<Integer, List<KeyedStateHandle>> vnode :
                    part.handlesByVnode().entrySet()) {
                int id = vnode.getKey();
                if (!mine.contains(id)) {
                    continue;
                }
                taken = true;
                handlesByVnode.put(id, vnode.getValue());
                copyIfPresent(part.localCopyByVnode(), localCopies, id);
                copyIfPresent(part.heldByChain(), heldByChain, id);
                copyIfPresent(part.timerHeadsByVnode(), timerHeads, id);
            }
            if (taken) {
                holders.addAll(part.replicaHolders());
            }
        }
        Set<Integer> missing = new TreeSet<>(mine);
        missing.removeAll(handlesByVnode.keySet());
        if (!missing.isEmpty()) {
            throw new IOException(
                    "Rhino keyed operator '"
                            + spec.name()
                            + "': subtask "
                            + subtaskIndex
                            + " of "
                            + parallelism
                            + " restores vnodes "
                            + mine
                            + ", but vnodes "
                            + missing
                            + " are in none of the "
                            + written.size()
                            + " handles Flink gave it. The state was probably written by a Rhino"
                            + " version whose checkpoints name only their subtask's key groups:"
                            + " restore it at the parallelism it was written with ("
                            + written.get(0).parallelism()
                            + "), take a checkpoint or savepoint, and rescale from that.");
        }
        return new Restored(
                running,
                handlesByVnode,
                List.copyOf(holders),
                localCopies,
                heldByChain,
                timerHeads,
                false);
    }

    private static <V> void copyIfPresent(Map<Integer, V> from, Map<Integer, V> to, int vnode) {
        V value = from.get(vnode);
        if (value != null) {
            to.put(vnode, value);
        }
    }

    private static WrittenSubtask writtenSubtask(
            KeyedStateHandle handle,
            RhinoOperatorSpec spec,
            TaskManagerLocalCopies taskManagerCopies,
            ClassLoader userCodeClassLoader)
            throws IOException {
        if (CanonicalSavepoints.isCanonical(handle)) {
            return CanonicalSavepoints.read(
                    (KeyGroupsSavepointStateHandle) handle,
                    spec.numKeyGroups(),
                    spec.name(),
                    userCodeClassLoader);
        }
        Optional<TaskLocalVnodes.Pointer> local =
                TaskLocalVnodes.pointerOf(handle, userCodeClassLoader);
        StreamStateHandle manifestHandle =
                local.isPresent()
                        ? local.get().manifest()
                        : SubtaskSnapshotHandle.manifestOf(handle);
        if (manifestHandle == null) {
            throw new IOException(
                    "Rhino keyed operator '"
                            + spec.name()
                            + "' cannot restore a "
                            + handle.getClass().getSimpleName()
                            + ": its state was written neither by the Rhino state backend nor by"
                            + " Flink's RocksDB or heap backend (a native RocksDB snapshot or a"
                            + " savepoint in Flink's key-group format). Take a canonical savepoint"
                            + " of the job instead.");
        }
        if (local.isEmpty() && !VnodeManifest.isManifest(manifestHandle)) {
            // a native snapshot of Flink's own backend, of a job on keyBy (MigratedKeyedState)
            return null;
        }
        if (local.isEmpty()) {
            // Flink offers only the copies of this subtask's index in its slot; other subtasks of
            // this TaskManager may have left these
            local = taskManagerCopies.pointerFor(manifestHandle);
        }
        VnodeManifest manifest = VnodeManifest.readFrom(manifestHandle);
        return new WrittenSubtask(
                manifest.subtaskIndex(),
                manifest.parallelism(),
                new VnodeLayout(manifest.numKeyGroups(), manifest.numVnodes()),
                false,
                manifest.restoreHandlesByVnode(),
                manifest.replicaHolders(),
                manifest.timerHeadsByVnode(),
                local.map(TaskLocalVnodes.Pointer::copyByVnode).orElse(Map.of()),
                local.map(TaskLocalVnodes.Pointer::heldByChain).orElse(Map.of()));
    }

    private static VnodeLayout commonLayout(List<WrittenSubtask> written, RhinoOperatorSpec spec)
            throws IOException {
        VnodeLayout layout = written.get(0).layout();
        for (WrittenSubtask part : written) {
            if (!part.layout().equals(layout)) {
                throw new IOException(
                        "Rhino keyed operator '"
                                + spec.name()
                                + "' restores state whose subtasks disagree on the vnodes: "
                                + layout
                                + " and "
                                + part.layout()
                                + ". The checkpoint or savepoint is not one Rhino wrote whole.");
            }
        }
        return layout;
    }

    /**
     * The vnodes this subtask owns after the restore: its own manifest's at the parallelism the
     * state was written with; the rescale assignment's at another.
     */
    private static Set<Integer> vnodesOf(
            List<WrittenSubtask> written, RhinoOperatorSpec running, int subtaskIndex)
            throws IOException {
        int parallelism = running.parallelism();
        WrittenSubtask first = written.get(0);
        if (first.parallelism() == parallelism
                || first.parallelism() == WrittenSubtask.UNKNOWN_PARALLELISM) {
            // Flink hands a subtask its own state at an unchanged parallelism (a harness that cuts
            // handles by key-group range hands it everyone's, since every handle claims them all)
            for (WrittenSubtask part : written) {
                if (part.subtask() == subtaskIndex) {
                    return part.handlesByVnode().keySet();
                }
            }
            throw new IOException(
                    "Rhino keyed operator '"
                            + running.name()
                            + "' was "
                            + (first.canonical() ? "written" : "checkpointed")
                            + " by subtask "
                            + first.subtask()
                            + " of "
                            + (first.parallelism() == WrittenSubtask.UNKNOWN_PARALLELISM
                                    ? "a parallelism a canonical savepoint of an earlier Rhino"
                                            + " version did not record"
                                    : first.parallelism())
                            + " and is restored as subtask "
                            + subtaskIndex
                            + " of "
                            + parallelism
                            + ". A subtask restores its own state at the parallelism the state was"
                            + " written with; Flink hands it that, so the checkpoint or savepoint"
                            + " does not belong to this operator's subtasks.");
        }
        for (WrittenSubtask part : written) {
            if (part.parallelism() != first.parallelism()) {
                throw new IOException(
                        "Rhino keyed operator '"
                                + running.name()
                                + "' restores state written at parallelisms "
                                + first.parallelism()
                                + " and "
                                + part.parallelism()
                                + ". The checkpoint or savepoint is not one Rhino wrote whole.");
            }
        }
        Set<Integer> mine = RescaleAssignment.vnodesOf(running.layout(), parallelism, subtaskIndex);
        if (written.stream().anyMatch(WrittenSubtask::canonical)) {
            refuseSplitCanonical(running.layout(), running, mine);
        }
        return mine;
    }

    /**
     * Refuses a canonical savepoint's restore at a parallelism whose Flink key-group ranges split
     * any of {@code mine} (vnodes of {@code layout}): Flink hands each subtask only its range's key
     * groups of such a savepoint.
     */
    static void refuseSplitCanonical(
            VnodeLayout layout, RhinoOperatorSpec running, Set<Integer> mine) {
        int parallelism = running.parallelism();
        List<Integer> split = new ArrayList<>(RescaleAssignment.vnodesSplitAt(layout, parallelism));
        split.retainAll(mine);
        if (!split.isEmpty()) {
            throw UnsupportedJobShapeException.atTaskStart(
                    "Rhino keyed operator '"
                            + running.name()
                            + "' cannot restore this canonical savepoint into "
                            + layout.numVnodes()
                            + " vnodes at parallelism "
                            + parallelism
                            + ": Flink hands a canonical savepoint's key groups to subtasks"
                            + " by its own key-group ranges, and at "
                            + parallelism
                            + " they split vnodes "
                            + split
                            + ". Restore it at one of the parallelisms that split no vnode "
                            + RescaleAssignment.unsplitParallelisms(layout, layout.numVnodes())
                            + ", with another "
                            + RhinoOptions.VNODES.key()
                            + ", or restore from a"
                            + " retained checkpoint or a native savepoint, which restore at"
                            + " any parallelism.");
        }
    }
}
