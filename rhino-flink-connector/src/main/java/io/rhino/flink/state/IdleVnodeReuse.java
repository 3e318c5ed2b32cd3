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

import java.nio.file.Path;
import javax.annotation.Nullable;
import org.apache.flink.runtime.state.LocalRecoveryConfig;
import org.apache.flink.runtime.state.LocalSnapshotDirectoryProvider;

/**
 * Whether a subtask's checkpoints reuse idle vnodes' snapshots ({@code
 * rhino.state.reuse-idle-vnodes}), and, with Flink's local backup on, where a reusing checkpoint
 * keeps the reused snapshot's task-local copy: in that checkpoint's local directory, as hard links
 * of the copy the checkpoint before kept, so that Flink's local state store keeps it exactly as
 * long as the checkpoint and the vnode keeps its local recovery.
 *
 * @param enabled whether idle vnodes' snapshots are reused at all
 * @param localCopies the subtask's local checkpoint directories; null without local backup
 */
record IdleVnodeReuse(boolean enabled, @Nullable LocalSnapshotDirectoryProvider localCopies) {

    /** Reuse as {@code enabled} says, keeping local copies where {@code local} backs up. */
    static IdleVnodeReuse of(boolean enabled, LocalRecoveryConfig local) {
        return new IdleVnodeReuse(
                enabled,
                local.isLocalBackupEnabled()
                        ? local.getLocalStateDirectoryProvider().orElse(null)
                        : null);
    }

    /** Whether each reused snapshot needs a task-local copy (local backup on). */
    boolean keepsLocalCopies() {
        return localCopies != null;
    }

    /** The local directory of {@code checkpointId}'s copies; only with local backup on. */
    Path localCheckpointDirectory(long checkpointId) {
        if (localCopies == null) {
            throw new IllegalStateException("Local backup is off: no local checkpoint directory");
        }
        return localCopies.subtaskSpecificCheckpointDirectory(checkpointId).toPath();
    }
}
