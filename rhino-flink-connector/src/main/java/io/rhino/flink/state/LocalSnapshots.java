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

import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import org.apache.flink.runtime.state.IncrementalLocalKeyedStateHandle;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.SnapshotResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drops task-local copies of vnode snapshots that no local alternative reports to Flink (local
 * recovery configured: {@code execution.checkpointing.local-backup.enabled}): those of savepoints,
 * and those of a checkpoint that failed or whose copies do not share one directory. Left alone,
 * each would stay until the job ends, holding hard links to SST files RocksDB has since compacted
 * away. The copies of checkpoints are reported instead ({@link TaskLocalVnodes}).
 */
final class LocalSnapshots {

    private static final Logger LOG = LoggerFactory.getLogger(LocalSnapshots.class);

    private LocalSnapshots() {}

    static void discard(SnapshotResult<KeyedStateHandle> result) {
        KeyedStateHandle local = result.getTaskLocalSnapshot();
        if (local != null) {
            discard(local);
        }
    }

    static void discardAll(Collection<? extends KeyedStateHandle> locals) {
        locals.forEach(LocalSnapshots::discard);
    }

    private static void discard(KeyedStateHandle local) {
        try {
            local.discardState();
            if (local instanceof IncrementalLocalKeyedStateHandle incremental) {
                // the snapshot's checkpoint directory (chk_<id>) is left behind, empty unless
                // another operator of the task keeps its own local copy there
                Path checkpointDirectory =
                        incremental.getDirectoryStateHandle().getDirectory().getParent();
                Files.deleteIfExists(checkpointDirectory);
            }
        } catch (DirectoryNotEmptyException shared) {
            // Flink's local state store deletes it with the other operators' copies
        } catch (Exception e) {
            LOG.warn("Could not delete the local copy of a vnode snapshot: {}", local, e);
        }
    }
}
