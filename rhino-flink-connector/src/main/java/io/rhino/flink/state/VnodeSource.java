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
import java.util.Collection;
import java.util.List;
import org.apache.flink.runtime.state.IncrementalLocalKeyedStateHandle;
import org.apache.flink.runtime.state.KeyedStateHandle;

/**
 * What a vnode's instance is opened from: the handles it restores, the files of a completed
 * checkpoint it inherits from its previous owner and the first timers that owner shipped.
 */
record VnodeSource(
        Collection<KeyedStateHandle> restoreFrom,
        UploadedFiles inherited,
        TimerQueueHeads shipped,
        VnodeReplication.HeldReplica heldByChains) {

    /** A vnode restored from a checkpoint's handles (none for a new vnode). */
    static VnodeSource restored(Collection<KeyedStateHandle> restoreFrom) {
        return new VnodeSource(restoreFrom, UploadedFiles.NONE, TimerQueueHeads.NONE, null);
    }

    /**
     * A vnode moved here from another subtask, from its export, with the files replica holders
     * probably keep of it ({@code heldByChains}, null: none known).
     */
    static VnodeSource moved(
            IncrementalLocalKeyedStateHandle export, VnodeReplication.HeldReplica heldByChains) {
        TimerQueueHeads shipped =
                TimerQueueHeads.takeFrom(
                        Path.of(export.getDirectoryStateHandle().getDirectory().toUri()));
        return new VnodeSource(List.of(export), UploadedFiles.of(export), shipped, heldByChains);
    }
}
