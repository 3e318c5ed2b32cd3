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

import static org.apache.flink.util.Preconditions.checkNotNull;

import io.rhino.core.routing.VnodeLayout;
import io.rhino.flink.state.VnodeStateRegistry.Prebound;
import java.io.Closeable;
import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RunnableFuture;
import java.util.stream.Stream;
import javax.annotation.Nonnull;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.common.state.State;
import org.apache.flink.api.common.state.StateDescriptor;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.runtime.checkpoint.CheckpointOptions;
import org.apache.flink.runtime.state.CheckpointStreamFactory;
import org.apache.flink.runtime.state.CheckpointableKeyedStateBackend;
import org.apache.flink.runtime.state.IncrementalLocalKeyedStateHandle;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupedInternalPriorityQueue;
import org.apache.flink.runtime.state.Keyed;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.KeyedStateFunction;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.PriorityComparable;
import org.apache.flink.runtime.state.SavepointResources;
import org.apache.flink.runtime.state.SnapshotResult;
import org.apache.flink.runtime.state.StateSnapshotTransformer.StateSnapshotTransformFactory;
import org.apache.flink.runtime.state.TestableKeyedStateBackend;
import org.apache.flink.runtime.state.heap.HeapPriorityQueueElement;
import org.apache.flink.runtime.state.internal.InternalKvState;
import org.apache.flink.util.IOUtils;
import org.apache.flink.util.function.ThrowingConsumer;

/**
 * The keyed state backend of one subtask of a Rhino operator: one delegate RocksDB backend per
 * owned vnode, picked by the current key's key group.
 *
 * <p>This class is Flink's face of it and each job behind it has its part: {@link VnodeKeyContext}
 * maps the key to its vnode, {@link VnodeStateRegistry} hands out dispatching states and timer
 * queues, {@link OwnedVnodes} keeps the vnodes' instances, {@link VnodeInstaller} opens new ones
 * (on the task thread, or off it for {@link #prepareInstalls}), {@link ReplicaSeeds} keeps what a
 * replica restore left for replication, {@link VnodeSnapshotter} checkpoints, and {@link
 * VnodeExporter} exports a vnode for another subtask to {@link #installVnode install}. All methods
 * run in the task's thread except the futures returned by {@link #snapshot}, and the installs
 * {@link #prepareInstalls} runs, as for any Flink keyed backend.
 */
public final class VnodeKeyedStateBackend<K>
        implements CheckpointableKeyedStateBackend<K>,
                CheckpointListener,
                TestableKeyedStateBackend<K>,
                VnodeInstallTarget {

    private final String operatorIdentifier;
    private final TypeSerializer<K> keySerializer;
    private final KeyGroupRange subtaskKeyGroups;
    private final VnodeLayout layout;
    private final VnodeKeyDispatch<K> keys;
    private final VnodeStateRegistry<K> states;
    private final OwnedVnodes<K> owned;
    private final VnodeInstaller<K> installer;
    private final VnodeCheckpoints<K> checkpoints;
    private final ReplicaSeeds replicaSeeds = new ReplicaSeeds();
    private volatile Map<Integer, RestoreSource> restoreSources = Map.of();
    private final TransferDirectory transferDirectory;
    private final Closeable installResources;
    private final List<AutoCloseable> closeWithBackend = new CopyOnWriteArrayList<>();

    VnodeKeyedStateBackend(
            String operatorIdentifier,
            TypeSerializer<K> keySerializer,
            KeyGroupRange subtaskKeyGroups,
            int subtaskIndex,
            int parallelism,
            VnodeLayout layout,
            VnodeBackendFactory<K> backendFactory,
            VnodeFileRegistry files,
            TransferDirectory transferDirectory,
            Closeable installResources,
            boolean checkpointTimerHeads,
            IdleVnodeReuse reuseIdleVnodes) {
        this.operatorIdentifier = operatorIdentifier;
        this.keySerializer = keySerializer;
        this.subtaskKeyGroups = subtaskKeyGroups;
        this.layout = layout;
        this.transferDirectory = transferDirectory;
        this.installResources = installResources;
        VnodeKeyContext<K> keyContext = new VnodeKeyContext<>(layout);
        VnodeBackends<K> backends = new VnodeBackends<>(layout.numVnodes());
        VnodeUploadHistory uploads = new VnodeUploadHistory();
        VnodeDisposal disposal = new VnodeDisposal();
        this.keys = new VnodeKeyDispatch<>(operatorIdentifier, keyContext, backends);
        this.states = new VnodeStateRegistry<>(keyContext, keySerializer, backends);
        this.owned =
                new OwnedVnodes<>(
                        operatorIdentifier, layout, backends, states, files, uploads, disposal);
        this.installer =
                new VnodeInstaller<>(operatorIdentifier, layout, backendFactory, states, owned);
        this.checkpoints =
                new VnodeCheckpoints<>(
                        backends,
                        owned,
                        files,
                        uploads,
                        disposal,
                        layout,
                        subtaskKeyGroups,
                        subtaskIndex,
                        parallelism,
                        keySerializer,
                        checkpointTimerHeads
                                ? states::cachedTimerHeadsOf
                                : vnode -> TimerQueueHeads.NONE,
                        reuseIdleVnodes);
    }

    /** Vnodes whose snapshot the last checkpoint reused, idle since an earlier one. */
    int lastCheckpointReusedVnodes() {
        return checkpoints.lastReused();
    }

    /** Vnodes the last checkpoint snapshotted. */
    int lastCheckpointSnapshottedVnodes() {
        return checkpoints.lastSnapshotted();
    }

    // ------------------------------------------------------------------ vnode lifecycle

    @Override
    public void installVnode(int vnode, Collection<KeyedStateHandle> restoreFrom) throws Exception {
        installer.install(vnode, VnodeSource.restored(restoreFrom));
    }

    /**
     * Lets the restored vnodes create their timer queues from the first timers their checkpoint
     * stored instead of seeking each key group's in RocksDB; call after installing them, before the
     * operator creates its timer queues.
     */
    void startTimerQueuesFrom(Map<Integer, TimerQueueHeads> restored) {
        states.startQueuesFrom(restored);
    }

    @Override
    public void installMovedVnode(
            int vnode,
            IncrementalLocalKeyedStateHandle export,
            VnodeReplication.HeldReplica heldByChains)
            throws Exception {
        VnodeSource source = VnodeSource.moved(export, heldByChains);
        installer.install(vnode, source);
        seedFrom(vnode, source);
    }

    /** What replica holders keep of a vnode installed from {@code source}, for replication. */
    private void seedFrom(int vnode, VnodeSource source) {
        VnodeReplication.HeldReplica held = source.heldByChains();
        if (held != null) {
            seedReplica(vnode, held.directory(), held.sstFiles());
        }
    }

    /**
     * A vnode's RocksDB instance opened by {@link #prepareInstalls}, not yet part of the backend.
     */
    public static final class PreparedVnode {
        private final int vnode;
        final CheckpointableKeyedStateBackend<?> instance;
        final VnodeSource source;
        // set by the thread that opens it, read by the task thread once the open completed
        Prebound<?> prebound = Prebound.none();

        PreparedVnode(int vnode, CheckpointableKeyedStateBackend<?> instance, VnodeSource source) {
            this.vnode = vnode;
            this.instance = instance;
            this.source = source;
        }

        public int vnode() {
            return vnode;
        }

        /** Drops an instance that will not be adopted. */
        public void discard() {
            IOUtils.closeQuietly(instance);
            instance.dispose();
        }
    }

    /**
     * Runs {@code installs} (a state transfer's installs, say) against a target that only opens the
     * vnodes' RocksDB instances, and returns them, for {@link #adoptVnode} on the task thread.
     * Opening an instance (links, restore, RocksDB open) takes hundreds of milliseconds with large
     * state; run here on another thread, the task keeps processing the records of its other vnodes
     * meanwhile. Safe off the task thread: the new instances are not shared yet, and nothing of
     * this backend changes until they are adopted.
     */
    public List<PreparedVnode> prepareInstalls(
            ThrowingConsumer<VnodeInstallTarget, Exception> installs) throws Exception {
        return installer.prepare(installs, transferDirectory());
    }

    /** Makes a prepared vnode part of this backend; on the task thread. */
    public void adoptVnode(PreparedVnode prepared) throws Exception {
        installer.adopt(prepared);
        seedFrom(prepared.vnode(), prepared.source);
    }

    /**
     * Drops a vnode. Its local RocksDB instance is disposed at once, or, if a checkpoint still
     * uploads it, when that upload ends.
     */
    public void removeVnode(int vnode) {
        layout.checkVnode(vnode);
        replicaSeeds.forget(vnode);
        owned.remove(vnode);
    }

    /**
     * Writes the vnode's current state to {@code directory} as a local snapshot that another
     * subtask on this machine installs with hard links: a RocksDB checkpoint of the instance (its
     * SST files linked, not copied) and Flink's metadata for it. The export lists the files a
     * completed checkpoint already holds, for the new owner's checkpoints to refer to.
     */
    public VnodeExport exportVnode(int vnode, Path directory) throws Exception {
        layout.checkVnode(vnode);
        return owned.export(vnode, directory);
    }

    /** From the next checkpoint on, vnode checkpoints are also replicated this way. */
    public void replicateWith(VnodeReplication replication) {
        if (replication != null) {
            replicaSeeds.handTo(replication, owned);
        }
        checkpoints.replicateWith(replication);
    }

    /**
     * The owned vnode's instance was built from a replica: its SST files {@code sstFiles} lie in
     * {@code directory} of the vnode's replica directory on the holders, which replication may then
     * skip (see {@link VnodeReplication#seed}).
     */
    public void seedReplica(int vnode, String directory, Set<String> sstFiles) {
        if (owned.owns(vnode)) {
            replicaSeeds.seed(vnode, owned.instance(vnode), directory, sstFiles);
            // a replication already running (a vnode moved in) builds on it from its next round
            checkpoints.seedReplication(vnode, owned.instance(vnode), directory, sstFiles);
        }
    }

    /**
     * The replication services that held the restored checkpoint's copies, named by its manifest;
     * the first chain this backend replicates along retires those it does not include.
     */
    public void restoredFrom(List<String> holders) {
        replicaSeeds.restoredFrom(holders);
    }

    /** Closes {@code resource} when this backend closes or is disposed. */
    void closeWith(AutoCloseable resource) {
        closeWithBackend.add(resource);
    }

    /** Records where the restore took each vnode from, for the gate to report. */
    void restoredFrom(Map<Integer, RestoreSource> sources) {
        restoreSources = Map.copyOf(sources);
    }

    /** Where this subtask's restore took each vnode from; empty if it started without state. */
    public Map<Integer, RestoreSource> restoreSources() {
        return restoreSources;
    }

    @Override
    public File transferDirectory() {
        return transferDirectory.path().toFile();
    }

    /** Whether this subtask owns {@code vnode}. */
    public boolean owns(int vnode) {
        return owned.owns(vnode);
    }

    /** Vnodes this subtask owns, ascending. */
    public int[] ownedVnodes() {
        return owned.vnodes();
    }

    /** The delegate backend of an owned vnode. */
    public CheckpointableKeyedStateBackend<K> vnodeBackend(int vnode) {
        return owned.instance(vnode);
    }

    /**
     * The size of an owned vnode's state: its live SST files plus its memtables, as RocksDB reports
     * them; -1 if it is not measurable.
     */
    public long stateBytes(int vnode) {
        return LiveInstanceFiles.stateBytes(owned.instance(vnode));
    }

    // ------------------------------------------------------------------ keys

    /** How this backend cuts its key groups into vnodes: the restored state's, if any. */
    public VnodeLayout layout() {
        return layout;
    }

    @Override
    public void setCurrentKey(K newKey) {
        keys.setCurrentKey(newKey);
    }

    @Override
    public void setCurrentKeyAndKeyGroup(K newKey, int newKeyGroupIndex) {
        keys.setCurrentKeyAndKeyGroup(newKey, newKeyGroupIndex);
    }

    @Override
    public K getCurrentKey() {
        return keys.currentKey();
    }

    @Override
    public TypeSerializer<K> getKeySerializer() {
        return keySerializer;
    }

    @Override
    public KeyGroupRange getKeyGroupRange() {
        return subtaskKeyGroups;
    }

    @Override
    public <N> Stream<K> getKeys(String state, N namespace) {
        return keys.acrossVnodes(vnodeBackend -> vnodeBackend.getKeys(state, namespace));
    }

    @Override
    public <N> Stream<K> getKeys(List<String> states, N namespace) {
        return keys.acrossVnodes(vnodeBackend -> vnodeBackend.getKeys(states, namespace));
    }

    @Override
    public <N> Stream<Tuple2<K, N>> getKeysAndNamespaces(String state) {
        return keys.acrossVnodes(vnodeBackend -> vnodeBackend.getKeysAndNamespaces(state));
    }

    @Override
    public <N, S extends State, T> void applyToAllKeys(
            N namespace,
            TypeSerializer<N> namespaceSerializer,
            StateDescriptor<S, T> stateDescriptor,
            KeyedStateFunction<K, S> function)
            throws Exception {
        S state = getPartitionedState(namespace, namespaceSerializer, stateDescriptor);
        List<K> allKeys;
        try (Stream<K> keyStream = getKeys(stateDescriptor.getName(), namespace)) {
            allKeys = keyStream.toList();
        }
        for (K key : allKeys) {
            setCurrentKey(key);
            function.process(key, state);
        }
    }

    // ------------------------------------------------------------------ states and timers

    @Override
    public <N, S extends State, T> S getOrCreateKeyedState(
            TypeSerializer<N> namespaceSerializer, StateDescriptor<S, T> stateDescriptor)
            throws Exception {
        return states.getOrCreateState(
                namespaceSerializer,
                stateDescriptor,
                vnodeBackend ->
                        (InternalKvState<K, ?, ?>)
                                vnodeBackend.getOrCreateKeyedState(
                                        namespaceSerializer, stateDescriptor));
    }

    @SuppressWarnings("unchecked")
    @Override
    public <N, S extends State> S getPartitionedState(
            N namespace,
            TypeSerializer<N> namespaceSerializer,
            StateDescriptor<S, ?> stateDescriptor)
            throws Exception {
        checkNotNull(namespace, "Namespace");
        checkNotNull(namespaceSerializer, "Namespace serializer");
        S state =
                getOrCreateKeyedState(
                        namespaceSerializer, (StateDescriptor<S, Object>) stateDescriptor);
        ((InternalKvState<K, N, ?>) state).setCurrentNamespace(namespace);
        return state;
    }

    @Nonnull
    @Override
    public <N, SV, SEV, S extends State, IS extends S> IS createOrUpdateInternalState(
            @Nonnull TypeSerializer<N> namespaceSerializer,
            @Nonnull StateDescriptor<S, SV> stateDesc,
            @Nonnull StateSnapshotTransformFactory<SEV> snapshotTransformFactory)
            throws Exception {
        return states.getOrCreateState(
                namespaceSerializer,
                stateDesc,
                vnodeBackend ->
                        vnodeBackend.createOrUpdateInternalState(
                                namespaceSerializer, stateDesc, snapshotTransformFactory));
    }

    @Nonnull
    @Override
    public <T extends HeapPriorityQueueElement & PriorityComparable<? super T> & Keyed<?>>
            KeyGroupedInternalPriorityQueue<T> create(
                    @Nonnull String stateName,
                    @Nonnull TypeSerializer<T> byteOrderedElementSerializer) {
        return states.getOrCreateQueue(
                stateName,
                // a copy per vnode: a vnode's queue may be created off the task thread, and reads
                // its heads from RocksDB with it meanwhile (see VnodeStateRegistry#prebind)
                (vnodeBackend, shipped) ->
                        RocksDbTimerQueueFactory.create(
                                vnodeBackend,
                                stateName,
                                byteOrderedElementSerializer.duplicate(),
                                shipped));
    }

    @Override
    public void registerKeySelectionListener(KeySelectionListener<K> listener) {
        keys.addListener(listener);
    }

    @Override
    public boolean deregisterKeySelectionListener(KeySelectionListener<K> listener) {
        return keys.removeListener(listener);
    }

    /** The state entries of every owned vnode, summed. */
    @Override
    public int numKeyValueStateEntries() {
        return owned.numKeyValueStateEntries();
    }

    /**
     * The backend this one delegates the current key to: its vnode's (the first owned vnode's
     * before any key is set).
     */
    @Override
    public KeyedStateBackend<K> getDelegatedKeyedStateBackend(boolean recursive) {
        KeyedStateBackend<K> delegate = keys.delegate(recursive);
        return delegate == null ? this : delegate;
    }

    @Override
    public String getBackendTypeIdentifier() {
        return "rhino-vnode-rocksdb";
    }

    // ------------------------------------------------------------------ checkpoints

    @Nonnull
    @Override
    public RunnableFuture<SnapshotResult<KeyedStateHandle>> snapshot(
            long checkpointId,
            long timestamp,
            @Nonnull CheckpointStreamFactory streamFactory,
            @Nonnull CheckpointOptions checkpointOptions)
            throws Exception {
        return checkpoints.snapshot(checkpointId, timestamp, streamFactory, checkpointOptions);
    }

    @Nonnull
    @Override
    public SavepointResources<K> savepoint() throws Exception {
        return checkpoints.savepoint();
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        checkpoints.completed(checkpointId);
    }

    @Override
    public void notifyCheckpointAborted(long checkpointId) throws Exception {
        checkpoints.aborted(checkpointId);
    }

    // ------------------------------------------------------------------ lifecycle

    @Override
    public void dispose() {
        IOUtils.closeQuietly(installResources);
        closeWithBackend.forEach(IOUtils::closeQuietly);
        owned.disposeAll();
        // whatever scratch of transfers is left: none of them can complete any more
        transferDirectory.delete();
    }

    @Override
    public void close() throws IOException {
        IOUtils.closeQuietly(installResources);
        closeWithBackend.forEach(IOUtils::closeQuietly);
        owned.closeAll();
    }

    @Override
    public String toString() {
        return "VnodeKeyedStateBackend{" + operatorIdentifier + ", vnodes=" + owned + "}";
    }
}
