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
import java.util.function.Consumer;
import org.apache.flink.runtime.state.KeyedStateHandle;

/**
 * A subtask's restore of vnodes from replicas (see {@link TaskReplicas}): it swaps a vnode's
 * checkpoint handles for a local handle over its replica where one is usable, and counts what it
 * restored. Closing it deletes its scratch files; restored instances keep their own links.
 */
public interface RestoreFromReplicas extends AutoCloseable {

    /**
     * Where the SST files of a vnode restored from a replica lie in the vnode's replica directory
     * on its holders, and their names.
     */
    record Seed(String directory, Set<String> sstFiles) {}

    /** Starts fetching the replicas of these vnodes from peers, before their restore asks. */
    void prefetch(Map<Integer, List<KeyedStateHandle>> handlesByVnode);

    /**
     * The handles to restore {@code vnode} from: one local handle over its replica, or {@code
     * handles} if no usable replica is here. Called for several vnodes at once, from the threads
     * that open them.
     */
    List<KeyedStateHandle> handlesFor(int vnode, List<KeyedStateHandle> handles);

    /**
     * Starts checking, off the task thread, the replica files vnodes opened before they were
     * checked; {@code onDamaged} hears once, with what to do, if one is damaged. Closing the result
     * stops the check. Called once, after the vnodes opened.
     */
    AutoCloseable checkAfterOpen(String owner, Consumer<String> onDamaged);

    /** The seed of a vnode restored from a replica, for its replication to skip those files. */
    Optional<Seed> seedOf(int vnode);

    /** Vnodes restored from replicas so far. */
    int restoredVnodes();

    /** Where each vnode restored from a replica took it so far: this TaskManager or a peer. */
    Map<Integer, RestoreSource> sources();

    /** Bytes of the replicas those vnodes were restored from. */
    long linkedBytes();

    /** Of those, the vnodes whose replica was fetched from another TaskManager. */
    int fetchedVnodes();

    /** Bytes fetched from other TaskManagers' replicas. */
    long fetchedBytes();

    @Override
    void close();
}
