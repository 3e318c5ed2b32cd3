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
import java.util.Set;
import java.util.concurrent.RunnableFuture;
import java.util.function.IntFunction;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.runtime.checkpoint.CheckpointOptions;
import org.apache.flink.runtime.state.CheckpointStreamFactory;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.SavepointResources;
import org.apache.flink.runtime.state.SnapshotResult;

/**
 * The checkpoints and savepoints of a subtask's owned vnodes, and what a checkpoint's completion or
 * abort tells their instances and the backend's bookkeeping of uploaded files.
 */
final class VnodeCheckpoints<K> {

    private final VnodeBackends<K> backends;
    private final OwnedVnodes<K> owned;
    private final VnodeFileRegistry files;
    private final VnodeUploadHistory uploads;
    private final VnodeDisposal disposal;
    private final VnodeLayout layout;
    private final KeyGroupRange subtaskKeyGroups;
    private final int subtaskIndex;
    private final int parallelism;
    private final TypeSerializer<K> keySerializer;
    private final VnodeSnapshotter<K> snapshotter;

    VnodeCheckpoints(
            VnodeBackends<K> backends,
            OwnedVnodes<K> owned,
            VnodeFileRegistry files,
            VnodeUploadHistory uploads,
            VnodeDisposal disposal,
            VnodeLayout layout,
            KeyGroupRange subtaskKeyGroups,
            int subtaskIndex,
            int parallelism,
            TypeSerializer<K> keySerializer,
            IntFunction<TimerQueueHeads> timerHeads,
            IdleVnodeReuse reuseIdleVnodes) {
        this.backends = backends;
        this.owned = owned;
        this.files = files;
        this.uploads = uploads;
        this.disposal = disposal;
        this.layout = layout;
        this.subtaskKeyGroups = subtaskKeyGroups;
        this.subtaskIndex = subtaskIndex;
        this.parallelism = parallelism;
        this.keySerializer = keySerializer;
        this.snapshotter =
                new VnodeSnapshotter<>(
                        backends,
                        files,
                        uploads,
                        disposal,
                        subtaskIndex,
                        parallelism,
                        layout.numKeyGroups(),
                        timerHeads,
                        reuseIdleVnodes);
    }

    RunnableFuture<SnapshotResult<KeyedStateHandle>> snapshot(
            long checkpointId,
            long timestamp,
            CheckpointStreamFactory streamFactory,
            CheckpointOptions checkpointOptions)
            throws Exception {
        return snapshotter.snapshot(checkpointId, timestamp, streamFactory, checkpointOptions);
    }

    SavepointResources<K> savepoint() throws Exception {
        return CanonicalSavepoints.prepare(
                backends,
                disposal,
                layout,
                subtaskKeyGroups,
                subtaskIndex,
                parallelism,
                keySerializer);
    }

    /** Tells the current replication, if any, what its chain probably holds of the vnode. */
    void seedReplication(int vnode, Object instance, String directory, Set<String> sstFiles) {
        snapshotter.seedReplication(vnode, instance, directory, sstFiles);
    }

    /** From the next checkpoint on, vnode checkpoints are also replicated this way. */
    void replicateWith(VnodeReplication replication) {
        snapshotter.replicateWith(replication);
    }

    void completed(long checkpointId) throws Exception {
        owned.notifyCheckpointComplete(checkpointId);
        files.checkpointCompleted(checkpointId);
        uploads.completed(checkpointId);
        snapshotter.checkpointCompleted(checkpointId);
    }

    void aborted(long checkpointId) throws Exception {
        owned.notifyCheckpointAborted(checkpointId);
        uploads.aborted(checkpointId);
        snapshotter.checkpointAborted(checkpointId);
    }

    /** Vnodes whose snapshot the last checkpoint reused, unchanged since an earlier one. */
    int lastReused() {
        return snapshotter.lastReused();
    }

    /** Vnodes the last checkpoint snapshotted. */
    int lastSnapshotted() {
        return snapshotter.lastSnapshotted();
    }
}
