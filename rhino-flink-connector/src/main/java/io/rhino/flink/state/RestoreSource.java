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

import java.util.Locale;

/** Where a subtask took a vnode's state from when it restored, cheapest first. */
public enum RestoreSource {
    /** The task-local copy Flink kept on the subtask's TaskManager. */
    TASK_LOCAL,
    /** A replica on the subtask's own TaskManager, hard-linked. */
    REPLICA,
    /** A replica fetched from a peer TaskManager's replication service. */
    PEER_REPLICA,
    /** Downloaded from the checkpoint storage. */
    CHECKPOINT_STORAGE;

    /** The name the REST API and the logs use, e.g. {@code peer-replica}. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
