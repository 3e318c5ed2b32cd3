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

import io.rhino.core.routing.KeyGroupSpan;
import io.rhino.core.routing.VnodeLayout;
import io.rhino.flink.state.VnodeStateRegistry.Prebound;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
import org.apache.flink.util.function.ThrowingRunnable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The keyed state backend of one subtask of a Rhino operator: one delegate RocksDB backend per
 * owned vnode, picked by the current key's key group.
 *
 * <p>Its parts each do one job: {@link VnodeKeyContext} maps the key to its vnode, {@link
 * VnodeStateRegistry} hands out dispatching states and timer queues, {@link VnodeSnapshotter}
 * checkpoints, and {@link VnodeExporter} exports a vnode for another subtask to {@link
 * #installVnode install}. All methods run in the task's thread except the futures returned by
 * {@link #snapshot}, as for any Flink keyed backend.
 */
public final class VnodeKeyedStateBackend<K>
        implements CheckpointableKeyedStateBackend<K>,
                CheckpointListener,
                TestableKeyedStateBackend<K> {

    private static final Logger LOG = LoggerFactory.getLogger(VnodeKeyedStateBackend.class);

    private final String operatorIdentifier;
    private final TypeSerializer<K> keySerializer;
    private final KeyGroupRange subtaskKeyGroups;
    private final int subtaskIndex;
    private final VnodeLayout layout;
    private final VnodeKeyContext<K> keyContext;
    private final VnodeBackends<K> backends;
    private final VnodeBackendFactory<K> backendFactory;
    private final VnodeStateRegistry<K> states;
    private final VnodeFileRegistry files;
    private final VnodeSnapshotter<K> snapshotter;
    private final VnodeDisposal disposal = new VnodeDisposal();
    private final VnodeUploadHistory uploads = new VnodeUploadHistory();
    private final List<KeySelectionListener<K>> keySelectionListeners = new ArrayList<>();
    private final TransferDirectory transferDirectory;
    private final PendingExports pendingExports = new PendingExports();
    private final Map<Integer, ReplicaSeed> replicaSeeds = new java.util.HashMap<>();
    private List<String> restoredHolders = List.of();
    private final java.io.Closeable installResources;

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
            java.io.Closeable installResources,
            boolean checkpointTimerHeads) {
        this.operatorIdentifier = operatorIdentifier;
        this.keySerializer = keySerializer;
        this.subtaskKeyGroups = subtaskKeyGroups;
        this.subtaskIndex = subtaskIndex;
        this.layout = layout;
        this.keyContext = new VnodeKeyContext<>(layout);
        this.backends = new VnodeBackends<>(layout.numVnodes());
        this.backendFactory = backendFactory;
        this.states = new VnodeStateRegistry<>(keyContext, keySerializer, backends);
        this.files = files;
        this.transferDirectory = transferDirectory;
        this.installResources = installResources;
        this.snapshotter =
                new VnodeSnapshotter<>(
                        backends,
                        files,
                        uploads,
                        disposal,
                        subtaskKeyGroups,
                        subtaskIndex,
                        parallelism,
                        layout.numKeyGroups(),
                        checkpointTimerHeads
                                ? states::cachedTimerHeadsOf
                                : vnode -> TimerQueueHeads.NONE);
    }

    // ------------------------------------------------------------------ vnode lifecycle

    /**
     * Adds a vnode to this subtask, restored from the given handles (empty for a new vnode). An
     * {@code IncrementalLocalKeyedStateHandle} is installed by hard-linking its SST files.
     */
    public void installVnode(int vnode, Collection<KeyedStateHandle> restoreFrom) throws Exception {
        install(vnode, restoreFrom, UploadedFiles.NONE, TimerQueueHeads.NONE);
    }

    /**
     * Lets the restored vnodes create their timer queues from the first timers their checkpoint
     * stored instead of seeking each key group's in RocksDB; call after installing them, before the
     * operator creates its timer queues.
     */
    void startTimerQueuesFrom(Map<Integer, TimerQueueHeads> restored) {
        states.startQueuesFrom(restored);
    }

    /**
     * Adds a vnode moved here from another subtask, installed from its export (see {@link
     * VnodeExport#localHandle}). Its next checkpoint refers to the files the export lists as
     * uploaded by a completed checkpoint instead of uploading them again, and its timer queues
     * start from the first timers the origin shipped in it instead of reading them.
     */
    public void installMovedVnode(int vnode, IncrementalLocalKeyedStateHandle export)
            throws Exception {
        TimerQueueHeads shipped =
                TimerQueueHeads.takeFrom(
                        java.nio.file.Path.of(
                                export.getDirectoryStateHandle().getDirectory().toUri()));
        install(vnode, List.of(export), UploadedFiles.of(export), shipped);
    }

    private void install(
            int vnode,
            Collection<KeyedStateHandle> restoreFrom,
            UploadedFiles inherited,
            TimerQueueHeads shipped)
            throws Exception {
        layout.checkVnode(vnode);
        Preparing preparing = PREPARING.get();
        if (preparing != null && preparing.backend() == this) {
            // opened here, off the task thread; adopted later on it (see prepareInstalls)
            long start = System.nanoTime();
            CheckpointableKeyedStateBackend<K> instance = backendFactory.create(vnode, restoreFrom);
            PreparedVnode prepared = new PreparedVnode(vnode, instance, inherited, shipped);
            preparing.prepared().add(prepared);
            long restored = System.nanoTime();
            prepared.prebound = states.prebind(instance, shipped);
            LOG.debug(
                    "{} restored vnode {} in {} ms, created its states and timer queues in {} ms",
                    operatorIdentifier,
                    vnode,
                    (restored - start) / 1_000_000,
                    (System.nanoTime() - restored) / 1_000_000);
            return;
        }
        requireNotOwned(vnode);
        adopt(
                vnode,
                backendFactory.create(vnode, restoreFrom),
                Prebound.none(),
                inherited,
                shipped);
    }

    private void requireNotOwned(int vnode) {
        if (backends.owns(vnode)) {
            throw new IllegalStateException(
                    operatorIdentifier + " already owns vnode " + vnode + "; cannot install it");
        }
    }

    /**
     * A vnode's RocksDB instance opened by {@link #prepareInstalls}, not yet part of the backend.
     */
    public static final class PreparedVnode {
        private final int vnode;
        private final CheckpointableKeyedStateBackend<?> instance;
        private final UploadedFiles inherited;
        private final TimerQueueHeads shipped;
        // set by the thread that opens it, read by the task thread once the open completed
        private Prebound<?> prebound = Prebound.none();

        private PreparedVnode(
                int vnode,
                CheckpointableKeyedStateBackend<?> instance,
                UploadedFiles inherited,
                TimerQueueHeads shipped) {
            this.vnode = vnode;
            this.instance = instance;
            this.inherited = inherited;
            this.shipped = shipped;
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

    private record Preparing(VnodeKeyedStateBackend<?> backend, List<PreparedVnode> prepared) {}

    private static final ThreadLocal<Preparing> PREPARING = new ThreadLocal<>();

    /**
     * Runs {@code installs} (a state transfer's installs, which call {@link #installVnode}) so that
     * they only open the vnodes' RocksDB instances and return them, for {@link #adoptVnode} on the
     * task thread. Opening an instance (links, restore, RocksDB open) takes hundreds of
     * milliseconds with large state; run here on another thread, the task keeps processing the
     * records of its other vnodes meanwhile. Safe off the task thread: the new instances are not
     * shared yet, and nothing of this backend changes until they are adopted.
     */
    public List<PreparedVnode> prepareInstalls(ThrowingRunnable<Exception> installs)
            throws Exception {
        Preparing preparing = new Preparing(this, new ArrayList<>());
        PREPARING.set(preparing);
        try {
            installs.run();
        } catch (Exception e) {
            preparing.prepared().forEach(PreparedVnode::discard);
            throw e;
        } finally {
            PREPARING.remove();
        }
        return preparing.prepared();
    }

    /** Makes a prepared vnode part of this backend; on the task thread. */
    @SuppressWarnings("unchecked")
    public void adoptVnode(PreparedVnode prepared) throws Exception {
        layout.checkVnode(prepared.vnode());
        if (backends.owns(prepared.vnode())) {
            prepared.discard();
            requireNotOwned(prepared.vnode());
        }
        adopt(
                prepared.vnode(),
                (CheckpointableKeyedStateBackend<K>) prepared.instance,
                (Prebound<K>) prepared.prebound,
                prepared.inherited,
                prepared.shipped);
    }

    private void adopt(
            int vnode,
            CheckpointableKeyedStateBackend<K> backend,
            Prebound<K> prebound,
            UploadedFiles inherited,
            TimerQueueHeads shipped)
            throws Exception {
        long bindStart = System.nanoTime();
        try {
            states.bindVnode(vnode, backend, prebound, shipped);
        } catch (Exception e) {
            states.unbindVnode(vnode);
            IOUtils.closeQuietly(backend);
            backend.dispose();
            throw e;
        }
        backends.add(vnode, backend);
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
     * Drops a vnode. Its local RocksDB instance is disposed at once, or, if a checkpoint still
     * uploads it, when that upload ends.
     */
    public void removeVnode(int vnode) {
        layout.checkVnode(vnode);
        replicaSeeds.remove(vnode);
        uploads.removed(vnode);
        if (!backends.owns(vnode)) {
            throw new IllegalStateException(
                    operatorIdentifier + " does not own vnode " + vnode + "; cannot remove it");
        }
        states.unbindVnode(vnode);
        disposal.retire(backends.remove(vnode));
        LOG.debug("{} removed vnode {}", operatorIdentifier, vnode);
    }

    /** Exports written and not installed yet; for tests. */
    int pendingExports() {
        return pendingExports.size();
    }

    /** Removed vnodes whose instance a running snapshot still holds; for tests. */
    int retiredInstances() {
        return disposal.retiredCount();
    }

    /**
     * Writes the vnode's current state to {@code directory} as a local snapshot that another
     * subtask on this machine installs with hard links: a RocksDB checkpoint of the instance (its
     * SST files linked, not copied) and Flink's metadata for it. The export lists the files a
     * completed checkpoint already holds, for the new owner's checkpoints to refer to.
     */
    public VnodeExport exportVnode(int vnode, java.nio.file.Path directory) throws Exception {
        layout.checkVnode(vnode);
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

    /** From the next checkpoint on, vnode checkpoints are also replicated this way. */
    public void replicateWith(VnodeReplication replication) {
        if (replication != null) {
            if (!restoredHolders.isEmpty()) {
                // the copies of the restored checkpoint, on holders the new chain may not include
                replication.retire(restoredHolders, ownedVnodeSet());
                restoredHolders = List.of();
            }
            replicaSeeds.forEach(
                    (vnode, seed) -> {
                        if (backends.owns(vnode) && backends.get(vnode) == seed.instance()) {
                            replication.seed(
                                    vnode, seed.instance(), seed.directory(), seed.sstFiles());
                        }
                    });
        }
        snapshotter.replicateWith(replication);
    }

    /**
     * The owned vnode's instance was built from a replica: its SST files {@code sstFiles} lie in
     * {@code directory} of the vnode's replica directory on the holders, which replication may then
     * skip (see {@link VnodeReplication#seed}).
     */
    public void seedReplica(int vnode, String directory, java.util.Set<String> sstFiles) {
        if (backends.owns(vnode)) {
            replicaSeeds.put(
                    vnode, new ReplicaSeed(backends.get(vnode), directory, Set.copyOf(sstFiles)));
        }
    }

    private record ReplicaSeed(Object instance, String directory, Set<String> sstFiles) {}

    /**
     * The replication services that held the restored checkpoint's copies, named by its manifest;
     * the first chain this backend replicates along retires those it does not include.
     */
    public void restoredFrom(List<String> holders) {
        restoredHolders = List.copyOf(holders);
    }

    private Set<Integer> ownedVnodeSet() {
        Set<Integer> vnodes = new java.util.TreeSet<>();
        for (int vnode : backends.ownedVnodes()) {
            vnodes.add(vnode);
        }
        return vnodes;
    }

    /**
     * A directory on this TaskManager's local disk for vnodes in transfer, this backend's own
     * (unique per job, operator and execution) and deleted with it.
     */
    public java.io.File transferDirectory() {
        return transferDirectory.path().toFile();
    }

    /** Whether this subtask owns {@code vnode}. */
    public boolean owns(int vnode) {
        return backends.owns(vnode);
    }

    /** Vnodes this subtask owns, ascending. */
    public int[] ownedVnodes() {
        return backends.ownedVnodes();
    }

    public VnodeLayout layout() {
        return layout;
    }

    /** The delegate backend of an owned vnode; for metrics and tests. */
    public CheckpointableKeyedStateBackend<K> vnodeBackend(int vnode) {
        if (!backends.owns(vnode)) {
            throw new IllegalStateException(operatorIdentifier + " does not own vnode " + vnode);
        }
        return backends.get(vnode);
    }

    /**
     * The size of an owned vnode's state: its live SST files plus its memtables, as RocksDB reports
     * them; -1 if it is not measurable.
     */
    public long stateBytes(int vnode) {
        return LiveInstanceFiles.stateBytes(vnodeBackend(vnode));
    }

    KeyGroupRange keyGroupRange(int vnode) {
        KeyGroupSpan span = layout.keyGroupsOf(vnode);
        return new KeyGroupRange(span.startKeyGroup(), span.endKeyGroup());
    }

    // ------------------------------------------------------------------ keys

    @Override
    public void setCurrentKey(K newKey) {
        keyContext.setCurrentKey(newKey);
        selectKeyOnVnode(newKey);
    }

    @Override
    public void setCurrentKeyAndKeyGroup(K newKey, int newKeyGroupIndex) {
        keyContext.setCurrentKeyAndKeyGroup(newKey, newKeyGroupIndex);
        selectKeyOnVnode(newKey);
    }

    private void selectKeyOnVnode(K key) {
        int vnode = keyContext.currentVnode();
        if (!backends.owns(vnode)) {
            throw new IllegalStateException(
                    "Key "
                            + key
                            + " belongs to key group "
                            + keyContext.currentKeyGroup()
                            + " of vnode "
                            + vnode
                            + ", which "
                            + operatorIdentifier
                            + " does not own (owned vnodes: "
                            + Arrays.toString(backends.ownedVnodes())
                            + "). Records must reach a Rhino operator through its Rhino keyed "
                            + "stream.");
        }
        backends.get(vnode).setCurrentKeyAndKeyGroup(key, keyContext.currentKeyGroup());
        for (KeySelectionListener<K> listener : keySelectionListeners) {
            listener.keySelected(key);
        }
    }

    @Override
    public K getCurrentKey() {
        return keyContext.currentKey();
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
        return concat(vnodeBackend -> vnodeBackend.getKeys(state, namespace));
    }

    @Override
    public <N> Stream<K> getKeys(List<String> states, N namespace) {
        return concat(vnodeBackend -> vnodeBackend.getKeys(states, namespace));
    }

    @Override
    public <N> Stream<Tuple2<K, N>> getKeysAndNamespaces(String state) {
        return concat(vnodeBackend -> vnodeBackend.getKeysAndNamespaces(state));
    }

    private <T> Stream<T> concat(
            java.util.function.Function<CheckpointableKeyedStateBackend<K>, Stream<T>> perVnode) {
        Stream<T> all = Stream.empty();
        for (int vnode : backends.ownedVnodes()) {
            all = Stream.concat(all, perVnode.apply(backends.get(vnode)));
        }
        return all;
    }

    @Override
    public <N, S extends State, T> void applyToAllKeys(
            N namespace,
            TypeSerializer<N> namespaceSerializer,
            StateDescriptor<S, T> stateDescriptor,
            KeyedStateFunction<K, S> function)
            throws Exception {
        S state = getPartitionedState(namespace, namespaceSerializer, stateDescriptor);
        List<K> keys;
        try (Stream<K> keyStream = getKeys(stateDescriptor.getName(), namespace)) {
            keys = keyStream.toList();
        }
        for (K key : keys) {
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
        keySelectionListeners.add(listener);
    }

    @Override
    public boolean deregisterKeySelectionListener(KeySelectionListener<K> listener) {
        return keySelectionListeners.remove(listener);
    }

    /** The state entries of every owned vnode, summed. */
    @Override
    public int numKeyValueStateEntries() {
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

    /**
     * The backend this one delegates the current key to: its vnode's (the first owned vnode's
     * before any key is set).
     */
    @Override
    public KeyedStateBackend<K> getDelegatedKeyedStateBackend(boolean recursive) {
        int[] owned = backends.ownedVnodes();
        int vnode = keyContext.currentVnode();
        if (vnode < 0 || !backends.owns(vnode)) {
            if (owned.length == 0) {
                return this;
            }
            vnode = owned[0];
        }
        CheckpointableKeyedStateBackend<K> delegate = backends.get(vnode);
        return recursive && delegate instanceof TestableKeyedStateBackend<K> testable
                ? testable.getDelegatedKeyedStateBackend(true)
                : delegate;
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
        return snapshotter.snapshot(checkpointId, timestamp, streamFactory, checkpointOptions);
    }

    @Nonnull
    @Override
    public SavepointResources<K> savepoint() throws Exception {
        return CanonicalSavepoints.prepare(
                backends, disposal, layout, subtaskKeyGroups, subtaskIndex, keySerializer);
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        for (int vnode : backends.ownedVnodes()) {
            if (backends.get(vnode) instanceof CheckpointListener listener) {
                listener.notifyCheckpointComplete(checkpointId);
            }
        }
        files.checkpointCompleted(checkpointId);
        uploads.completed(checkpointId);
        snapshotter.checkpointCompleted(checkpointId);
    }

    @Override
    public void notifyCheckpointAborted(long checkpointId) throws Exception {
        for (int vnode : backends.ownedVnodes()) {
            if (backends.get(vnode) instanceof CheckpointListener listener) {
                listener.notifyCheckpointAborted(checkpointId);
            }
        }
        uploads.aborted(checkpointId);
    }

    // ------------------------------------------------------------------ lifecycle

    @Override
    public void dispose() {
        IOUtils.closeQuietly(installResources);
        pendingExports.deleteUninstalled();
        for (int vnode : backends.ownedVnodes()) {
            states.unbindVnode(vnode);
            backends.remove(vnode).dispose();
        }
        disposal.disposeRetired();
        // whatever scratch of transfers is left: none of them can complete any more
        transferDirectory.delete();
    }

    @Override
    public void close() throws IOException {
        IOUtils.closeQuietly(installResources);
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
        return "VnodeKeyedStateBackend{"
                + operatorIdentifier
                + ", vnodes="
                + Arrays.toString(backends.ownedVnodes())
                + "}";
    }
}
