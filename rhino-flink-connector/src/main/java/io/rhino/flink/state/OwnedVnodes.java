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
import io.rhino.core.routing.VnodeLayout;
import io.rhino.flink.state.VnodeStateRegistry.Prebound;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.runtime.state.CheckpointableKeyedStateBackend;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.TestableKeyedStateBackend;
import org.apache.flink.util.IOUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The vnodes a subtask owns and the life of their RocksDB instances: adopted, exported, removed,
 * notified of checkpoints, disposed with the backend. On the task thread, except exports.
 */
final class OwnedVnodes<K> {

    // under the backend's name: its DEBUG lines time each vnode's install (docs/benchmarks.md)
    private static final Logger LOG = LoggerFactory.getLogger(VnodeKeyedStateBackend.class);

    private final String operatorIdentifier;
    private final VnodeLayout layout;
    private final VnodeBackends<K> backends;
    private final VnodeStateRegistry<K> states;
    private final VnodeFileRegistry files;
    private final VnodeUploadHistory uploads;
    private final VnodeDisposal disposal;
    private final PendingExports pendingExports = new PendingExports();

    OwnedVnodes(
            String operatorIdentifier,
            VnodeLayout layout,
            VnodeBackends<K> backends,
            VnodeStateRegistry<K> states,
            VnodeFileRegistry files,
            VnodeUploadHistory uploads,
            VnodeDisposal disposal) {
        this.operatorIdentifier = operatorIdentifier;
        this.layout = layout;
        this.backends = backends;
        this.states = states;
        this.files = files;
        this.uploads = uploads;
        this.disposal = disposal;
    }

    boolean owns(int vnode) {
        return backends.owns(vnode);
    }

    /** Owned vnodes, ascending. */
    int[] vnodes() {
        return backends.ownedVnodes();
    }

    Set<Integer> vnodeSet() {
        Set<Integer> vnodes = new TreeSet<>();
        for (int vnode : backends.ownedVnodes()) {
            vnodes.add(vnode);
        }
        return vnodes;
    }

    /** The instance of an owned vnode. */
    CheckpointableKeyedStateBackend<K> instance(int vnode) {
        if (!backends.owns(vnode)) {
            throw new IllegalStateException(operatorIdentifier + " does not own vnode " + vnode);
        }
        return backends.get(vnode);
    }

    void requireNotOwned(int vnode) {
        if (backends.owns(vnode)) {
            throw new IllegalStateException(
                    operatorIdentifier + " already owns vnode " + vnode + "; cannot install it");
        }
    }

    /**
     * Makes an opened instance the vnode's: its states and timer queues bound, the files it
     * inherited registered; the instance is dropped if binding fails.
     */
    void adopt(
            int vnode,
            CheckpointableKeyedStateBackend<K> instance,
            Prebound<K> prebound,
            VnodeSource source)
            throws Exception {
        long bindStart = System.nanoTime();
        try {
            states.bindVnode(vnode, instance, prebound, source.shipped());
        } catch (Exception e) {
            states.unbindVnode(vnode);
            IOUtils.closeQuietly(instance);
            instance.dispose();
            throw e;
        }
        UploadedFiles inherited = source.inherited();
        backends.add(vnode, instance);
        uploads.added(vnode, inherited);
        if (!inherited.isEmpty()) {
            files.registerInherited(inherited);
        }
        LOG.debug(
                "{} installed vnode {} (bound in {} us; {} files, {} bytes, of checkpoint {} need"
                        + " no new upload)",
                operatorIdentifier,
                vnode,
                (System.nanoTime() - bindStart) / 1000,
                inherited.files().size(),
                inherited.bytes(),
                inherited.checkpointId());
    }

    /**
     * Drops a vnode. Its instance is disposed at once, or, if a checkpoint still uploads it, when
     * that upload ends.
     */
    void remove(int vnode) {
        uploads.removed(vnode);
        if (!backends.owns(vnode)) {
            throw new IllegalStateException(
                    operatorIdentifier + " does not own vnode " + vnode + "; cannot remove it");
        }
        states.unbindVnode(vnode);
        disposal.retire(backends.remove(vnode));
        LOG.debug("{} removed vnode {}", operatorIdentifier, vnode);
    }

    /** Writes an owned vnode's current state to {@code directory} (see {@link VnodeExporter}). */
    VnodeExport export(int vnode, Path directory) throws Exception {
        if (!backends.owns(vnode)) {
            throw new IllegalStateException(
                    operatorIdentifier + " does not own vnode " + vnode + "; cannot export it");
        }
        return pendingExports.export(
                directory,
                target ->
                        VnodeExporter.export(
                                backends.get(vnode),
                                vnode,
                                keyGroupRange(vnode),
                                target,
                                uploads.reusable(vnode),
                                states.cachedTimerHeadsOf(vnode)));
    }

    private KeyGroupRange keyGroupRange(int vnode) {
        KeyGroupSpan span = layout.keyGroupsOf(vnode);
        return new KeyGroupRange(span.startKeyGroup(), span.endKeyGroup());
    }

    /** The state entries of every owned vnode, summed. */
    int numKeyValueStateEntries() {
        int entries = 0;
        for (int vnode : backends.ownedVnodes()) {
            if (!(backends.get(vnode) instanceof TestableKeyedStateBackend<?> testable)) {
                throw new UnsupportedOperationException(
                        "The backend of vnode " + vnode + " cannot count its state entries.");
            }
            entries += testable.numKeyValueStateEntries();
        }
        return entries;
    }

    /** Passes a checkpoint's completion on to every owned instance that listens. */
    void notifyCheckpointComplete(long checkpointId) throws Exception {
        for (int vnode : backends.ownedVnodes()) {
            if (backends.get(vnode) instanceof CheckpointListener listener) {
                listener.notifyCheckpointComplete(checkpointId);
            }
        }
    }

    /** Passes a checkpoint's abort on to every owned instance that listens. */
    void notifyCheckpointAborted(long checkpointId) throws Exception {
        for (int vnode : backends.ownedVnodes()) {
            if (backends.get(vnode) instanceof CheckpointListener listener) {
                listener.notifyCheckpointAborted(checkpointId);
            }
        }
    }

    /**
     * Disposes every owned instance, the exports no target installed and the removed instances the
     * snapshots no longer hold.
     */
    void disposeAll() {
        pendingExports.deleteUninstalled();
        for (int vnode : backends.ownedVnodes()) {
            states.unbindVnode(vnode);
            backends.remove(vnode).dispose();
        }
        disposal.disposeRetired();
    }

    /** Closes every owned instance; throws the first failure after trying them all. */
    void closeAll() throws IOException {
        IOException first = null;
        for (int vnode : backends.ownedVnodes()) {
            try {
                backends.get(vnode).close();
            } catch (IOException e) {
                first = first == null ? e : first;
            }
        }
        if (first != null) {
            throw first;
        }
    }

    @Override
    public String toString() {
        return Arrays.toString(backends.ownedVnodes());
    }
}
