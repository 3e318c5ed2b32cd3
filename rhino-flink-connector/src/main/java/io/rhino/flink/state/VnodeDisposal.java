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

import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.runtime.state.CheckpointableKeyedStateBackend;
import org.apache.flink.util.IOUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Disposes the RocksDB instances of removed vnodes, but not while a snapshot still reads them.
 *
 * <p>The asynchronous part of a RocksDB incremental snapshot uploads the files of a local RocksDB
 * checkpoint that lies inside the instance's directory, and disposing the instance deletes that
 * directory. A handover may remove a vnode at any time after the subtask took its snapshot, while
 * the upload still runs; the instance is then kept until every snapshot that includes it ended.
 *
 * <p>Snapshots lease the instances they include ({@link #lease}) and release them when they end, on
 * the thread that ends them; {@link #retire} disposes an instance at once if no snapshot holds it,
 * else when the last one releases it. Thread-safe.
 */
final class VnodeDisposal {

    private static final Logger LOG = LoggerFactory.getLogger(VnodeDisposal.class);

    private final Map<CheckpointableKeyedStateBackend<?>, Integer> leasesByInstance =
            new IdentityHashMap<>();
    private final Set<CheckpointableKeyedStateBackend<?>> retired =
            java.util.Collections.newSetFromMap(new IdentityHashMap<>());

    /** A snapshot starts reading {@code instances}. */
    synchronized void lease(Collection<? extends CheckpointableKeyedStateBackend<?>> instances) {
        for (CheckpointableKeyedStateBackend<?> instance : instances) {
            leasesByInstance.merge(instance, 1, Integer::sum);
        }
    }

    /** A snapshot of {@code instances} ended; disposes those retired meanwhile. */
    void release(Collection<? extends CheckpointableKeyedStateBackend<?>> instances) {
        List<CheckpointableKeyedStateBackend<?>> toDispose = new ArrayList<>();
        synchronized (this) {
            for (CheckpointableKeyedStateBackend<?> instance : instances) {
                Integer left = leasesByInstance.merge(instance, -1, Integer::sum);
                if (left != null && left <= 0) {
                    leasesByInstance.remove(instance);
                    if (retired.remove(instance)) {
                        toDispose.add(instance);
                    }
                }
            }
        }
        toDispose.forEach(VnodeDisposal::dispose);
    }

    /** The instance no longer serves a vnode: disposes it now, or once no snapshot reads it. */
    void retire(CheckpointableKeyedStateBackend<?> instance) {
        synchronized (this) {
            if (leasesByInstance.containsKey(instance)) {
                retired.add(instance);
                LOG.debug("Keeping a removed vnode instance until its snapshot ends");
                return;
            }
        }
        dispose(instance);
    }

    /** The backend closes: disposes every retired instance whatever snapshots still run. */
    void disposeRetired() {
        List<CheckpointableKeyedStateBackend<?>> toDispose;
        synchronized (this) {
            toDispose = new ArrayList<>(retired);
            retired.clear();
            leasesByInstance.clear();
        }
        toDispose.forEach(VnodeDisposal::dispose);
    }

    private static void dispose(CheckpointableKeyedStateBackend<?> instance) {
        IOUtils.closeQuietly(instance);
        instance.dispose();
    }
}
