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
import io.rhino.flink.state.VnodeKeyedStateBackend.PreparedVnode;
import io.rhino.flink.state.VnodeStateRegistry.Prebound;
import java.io.File;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.flink.runtime.state.CheckpointableKeyedStateBackend;
import org.apache.flink.runtime.state.IncrementalLocalKeyedStateHandle;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.util.function.ThrowingConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens vnodes' instances and hands them to the {@link OwnedVnodes}: at once on the task thread, or
 * in two steps, opened off it by a {@link Preparation} and adopted on it later.
 */
final class VnodeInstaller<K> {

    // under the backend's name: its DEBUG lines time each vnode's install (docs/benchmarks.md)
    private static final Logger LOG = LoggerFactory.getLogger(VnodeKeyedStateBackend.class);

    private final String operatorIdentifier;
    private final VnodeLayout layout;
    private final VnodeBackendFactory<K> backendFactory;
    private final VnodeStateRegistry<K> states;
    private final OwnedVnodes<K> owned;

    VnodeInstaller(
            String operatorIdentifier,
            VnodeLayout layout,
            VnodeBackendFactory<K> backendFactory,
            VnodeStateRegistry<K> states,
            OwnedVnodes<K> owned) {
        this.operatorIdentifier = operatorIdentifier;
        this.layout = layout;
        this.backendFactory = backendFactory;
        this.states = states;
        this.owned = owned;
    }

    /** Opens the vnode's instance and adopts it; on the task thread. */
    void install(int vnode, VnodeSource source) throws Exception {
        layout.checkVnode(vnode);
        owned.requireNotOwned(vnode);
        owned.adopt(
                vnode, backendFactory.create(vnode, source.restoreFrom()), Prebound.none(), source);
    }

    /**
     * Runs {@code installs} against a {@link Preparation}, which only opens the instances; returns
     * them, or drops those opened if an install fails.
     */
    List<PreparedVnode> prepare(
            ThrowingConsumer<VnodeInstallTarget, Exception> installs, File transferDirectory)
            throws Exception {
        Preparation preparation = new Preparation(transferDirectory);
        try {
            installs.accept(preparation);
        } catch (Exception e) {
            preparation.prepared.forEach(PreparedVnode::discard);
            throw e;
        }
        return preparation.prepared;
    }

    /** Makes a prepared vnode owned; on the task thread. */
    @SuppressWarnings("unchecked")
    void adopt(PreparedVnode prepared) throws Exception {
        layout.checkVnode(prepared.vnode());
        if (owned.owns(prepared.vnode())) {
            prepared.discard();
            owned.requireNotOwned(prepared.vnode());
        }
        owned.adopt(
                prepared.vnode(),
                (CheckpointableKeyedStateBackend<K>) prepared.instance,
                (Prebound<K>) prepared.prebound,
                prepared.source);
    }

    /**
     * The installs of one preparation: each opens its vnode's instance and creates its states and
     * timer queues on it, changing nothing of the backend. Safe off the task thread, the new
     * instances are not shared yet.
     */
    private final class Preparation implements VnodeInstallTarget {
        private final File transferDirectory;
        private final List<PreparedVnode> prepared = new ArrayList<>();

        private Preparation(File transferDirectory) {
            this.transferDirectory = transferDirectory;
        }

        @Override
        public void installVnode(int vnode, Collection<KeyedStateHandle> restoreFrom)
                throws Exception {
            open(vnode, VnodeSource.restored(restoreFrom));
        }

        @Override
        public void installMovedVnode(
                int vnode,
                IncrementalLocalKeyedStateHandle export,
                VnodeReplication.HeldReplica heldByChains)
                throws Exception {
            open(vnode, VnodeSource.moved(export, heldByChains));
        }

        @Override
        public File transferDirectory() {
            return transferDirectory;
        }

        private void open(int vnode, VnodeSource source) throws Exception {
            layout.checkVnode(vnode);
            long start = System.nanoTime();
            CheckpointableKeyedStateBackend<K> instance =
                    backendFactory.create(vnode, source.restoreFrom());
            PreparedVnode opened = new PreparedVnode(vnode, instance, source);
            prepared.add(opened);
            long restored = System.nanoTime();
            opened.prebound = states.prebind(instance, source.shipped());
            LOG.debug(
                    "{} restored vnode {} in {} ms, created its states and timer queues in {} ms",
                    operatorIdentifier,
                    vnode,
                    (restored - start) / 1_000_000,
                    (System.nanoTime() - restored) / 1_000_000);
        }
    }
}
