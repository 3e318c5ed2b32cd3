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

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.flink.runtime.state.CheckpointableKeyedStateBackend;

/**
 * Copies a subtask's vnode checkpoints to other TaskManagers. A checkpoint's vnodes are captured in
 * its synchronous phase and replicated in its asynchronous phase, before the subtask reports the
 * checkpoint: a failed replication fails (declines) that checkpoint.
 */
public interface VnodeReplication {

    /**
     * The live files of the vnodes about to be checkpointed, taken in the task thread. The {@code
     * relisted} vnodes are idle: the checkpoint reuses their snapshot of an earlier one, and the
     * chain lists its replica of that snapshot again instead of receiving their files ({@link
     * #mayRelist}).
     */
    Capture capture(
            long checkpointId,
            Map<Integer, CheckpointableKeyedStateBackend<?>> vnodes,
            Map<Integer, Relist> relisted)
            throws Exception;

    /**
     * Whether the chain holds, as its last complete replica of the vnode's RocksDB instance {@code
     * instance}, the files of that instance's snapshot for checkpoint {@code snapshotOf}: a
     * checkpoint that reuses that snapshot can then list it again without capturing anything.
     */
    default boolean mayRelist(int vnode, Object instance, long snapshotOf) {
        return false;
    }

    /**
     * An idle vnode a checkpoint lists again.
     *
     * @param instance the vnode's RocksDB instance
     * @param snapshotOf the checkpoint whose snapshot of the instance the checkpoint reuses
     */
    record Relist(Object instance, long snapshotOf) {}

    /** Flink completed this checkpoint: copies of older ones may go. */
    default void checkpointCompleted(long checkpointId) {}

    /**
     * The vnode's RocksDB instance {@code instance} was built from a replica whose SST files {@code
     * sstFiles} lie in {@code directory} of the vnode's replica directory: the chain probably holds
     * them already, so the next round need not send them (a member that lacks one refuses the
     * listing, and that round sends everything).
     */
    default void seed(
            int vnode, Object instance, String directory, java.util.Set<String> sstFiles) {}

    /**
     * SST files a chain holds of one vnode instance.
     *
     * @param directory the instance's directory in the vnode's replica directory
     */
    record HeldReplica(String directory, Set<String> sstFiles) implements java.io.Serializable {
        public HeldReplica {
            sstFiles = Set.copyOf(sstFiles);
        }
    }

    /**
     * The services ("host:port") that held this subtask's copies of {@code vnodes} before, under an
     * earlier chain or task attempt: those that are not in this chain drop the copies once the
     * chain holds a completed checkpoint of its own.
     */
    default void retire(
            java.util.Collection<String> formerHolders, java.util.Set<Integer> vnodes) {}

    /** One checkpoint's captured vnode files. */
    interface Capture {

        /**
         * Keeps the captured files that the vnodes' snapshots delete when they end (Flink's own
         * RocksDB checkpoints of the vnodes): called before those run, so that {@link #replicate}
         * may run alongside them. Idempotent.
         */
        default void secure() throws Exception {}

        /**
         * Replicates them; returns once every copy is stored and verified. Secures them first if
         * {@link #secure} was not called.
         */
        void replicate() throws Exception;

        /** Deletes the captured files (after {@link #replicate}, or instead of it). */
        void discard();

        /** Where the copies went ("host:port" of each member), once {@link #replicate} returned. */
        List<String> holders();

        /**
         * Where every chain member holds the captured SST files of {@code vnode}, once {@link
         * #replicate} returned: the seed of a later restore of the same files from another copy
         * (its task-local one). Empty if unknown.
         */
        default Optional<HeldReplica> held(int vnode) {
            return Optional.empty();
        }
    }
}
