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
import io.rhino.flink.config.RhinoOptions;
import io.rhino.flink.metrics.RhinoMetric;
import io.rhino.flink.spec.RhinoOperatorSpec;
import io.rhino.flink.spec.UnsupportedJobShapeException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.IllegalConfigurationException;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.core.fs.CloseableRegistry;
import org.apache.flink.runtime.execution.Environment;
import org.apache.flink.runtime.state.AbstractKeyedStateBackend;
import org.apache.flink.runtime.state.AsyncKeyedStateBackend;
import org.apache.flink.runtime.state.CheckpointableKeyedStateBackend;
import org.apache.flink.runtime.state.ConfigurableStateBackend;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyedStateBackendParametersImpl;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.OperatorStateBackend;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.v2.adaptor.AsyncKeyedStateBackendAdaptor;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.state.rocksdb.RocksDBOptions;
import org.apache.flink.util.TernaryBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Flink state backend for jobs with Rhino keyed operators. A Rhino operator's keyed state lives in
 * one RocksDB instance per owned vnode ({@link VnodeKeyedStateBackend}); every other keyed operator
 * of the job gets Flink's own {@link EmbeddedRocksDBStateBackend}, configured from the same
 * options. Incremental checkpoints are always on: vnode export and replication build on them.
 *
 * <p>A Rhino operator's timers always live in its vnodes' RocksDB instances, whatever {@code
 * state.backend.rocksdb.timer-service.factory} says: a vnode's snapshot and export are RocksDB
 * snapshots, which leave heap timers out (Flink writes those through a separate path of its own
 * keyed backend), so heap timers would be lost on every restore and handover. Other keyed operators
 * keep the configured choice.
 *
 * <p>Enable with {@code state.backend.type: io.rhino.flink.state.RhinoStateBackendFactory}.
 */
public class RhinoStateBackend implements StateBackend, ConfigurableStateBackend {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(RhinoStateBackend.class);

    private static final AtomicBoolean HEAP_TIMERS_OVERRIDE_LOGGED = new AtomicBoolean();

    /** For keyed operators that are not Rhino operators: exactly as configured. */
    private final EmbeddedRocksDBStateBackend rocksdb;

    /** For the vnodes of Rhino operators: as configured, but with timers in RocksDB. */
    private final VnodeRocksDbBackends vnodeRocksdb;

    private final int retainedCheckpoints;

    private final boolean checkpointTimerHeads;

    private final boolean reuseIdleVnodes;

    /** How many vnodes a restoring subtask opens at once. */
    private final int restoreThreads;

    public RhinoStateBackend() {
        this(
                new EmbeddedRocksDBStateBackend(TernaryBoolean.TRUE),
                VnodeRocksDbBackends.unconfigured(),
                1,
                RhinoOptions.STATE_CHECKPOINT_TIMER_HEADS.defaultValue(),
                RhinoOptions.STATE_REUSE_IDLE_VNODES.defaultValue(),
                RhinoOptions.HANDOVER_THREADS.defaultValue());
    }

    private RhinoStateBackend(
            EmbeddedRocksDBStateBackend rocksdb,
            VnodeRocksDbBackends vnodeRocksdb,
            int retainedCheckpoints,
            boolean checkpointTimerHeads,
            boolean reuseIdleVnodes,
            int restoreThreads) {
        this.rocksdb = rocksdb;
        this.vnodeRocksdb = vnodeRocksdb;
        this.retainedCheckpoints = retainedCheckpoints;
        this.checkpointTimerHeads = checkpointTimerHeads;
        this.reuseIdleVnodes = reuseIdleVnodes;
        this.restoreThreads = restoreThreads;
    }

    @Override
    public RhinoStateBackend configure(ReadableConfig config, ClassLoader classLoader) {
        int retained =
                config.getOptional(RhinoOptions.RETAINED_CHECKPOINTS)
                        .orElse(config.get(CheckpointingOptions.MAX_RETAINED_CHECKPOINTS));
        return new RhinoStateBackend(
                rocksdb.configure(config, classLoader),
                VnodeRocksDbBackends.configure(config, classLoader),
                retained,
                config.get(RhinoOptions.STATE_CHECKPOINT_TIMER_HEADS),
                config.get(RhinoOptions.STATE_REUSE_IDLE_VNODES),
                restoreThreads(config));
    }

    private static int restoreThreads(ReadableConfig config) {
        int threads = config.get(RhinoOptions.HANDOVER_THREADS);
        if (threads < 1) {
            throw new IllegalConfigurationException(
                    RhinoOptions.HANDOVER_THREADS.key()
                            + ": "
                            + threads
                            + " (expected: 1 or more)");
        }
        return threads;
    }

    @Override
    public String getName() {
        return "RhinoStateBackend";
    }

    @Override
    public <K> CheckpointableKeyedStateBackend<K> createKeyedStateBackend(
            KeyedStateBackendParameters<K> parameters) throws Exception {
        Optional<RhinoOperatorSpec> spec =
                RhinoTaskRegistry.specOf(parameters.getEnv().getExecutionId());
        if (spec.isEmpty()) {
            return rocksdb.createKeyedStateBackend(parameters);
        }
        return createVnodeKeyedStateBackend(parameters, spec.get());
    }

    /**
     * Claims asynchronous keyed state for itself so that a Rhino operator asking for it is refused:
     * Flink would otherwise wrap {@link #createKeyedStateBackend} and run the operator's state
     * requests behind the records the gate hands over. Other operators get exactly what Flink gives
     * them on its RocksDB backend, the synchronous backend behind Flink's adaptor.
     */
    @Override
    public boolean supportsAsyncKeyedStateBackend() {
        return true;
    }

    @Override
    public <K> AsyncKeyedStateBackend<K> createAsyncKeyedStateBackend(
            KeyedStateBackendParameters<K> parameters) throws Exception {
        Optional<RhinoOperatorSpec> spec =
                RhinoTaskRegistry.specOf(parameters.getEnv().getExecutionId());
        if (spec.isPresent()) {
            throw UnsupportedJobShapeException.atTaskStart(
                    "Rhino keyed stream '"
                            + spec.get().name()
                            + "': its keyed operator "
                            + parameters.getOperatorIdentifier()
                            + " uses asynchronous state (enableAsyncState(), the State V2 API or"
                            + " an async state operator). Its state requests run behind the"
                            + " records, so a handover could move a vnode while requests for it"
                            + " are still in flight. Remove enableAsyncState() from the Rhino"
                            + " keyed stream and its operator, and use the synchronous state API.");
        }
        return new AsyncKeyedStateBackendAdaptor<>(rocksdb.createKeyedStateBackend(parameters));
    }

    /** Creates the vnode backend of one subtask of a Rhino operator. */
    public <K> VnodeKeyedStateBackend<K> createVnodeKeyedStateBackend(
            KeyedStateBackendParameters<K> parameters, RhinoOperatorSpec spec) throws Exception {
        logHeapTimersOverrideOnce();
        Environment env = parameters.getEnv();
        int subtaskIndex = env.getTaskInfo().getIndexOfThisSubtask();
        int parallelism = env.getTaskInfo().getNumberOfParallelSubtasks();
        if (parameters.getNumberOfKeyGroups() != spec.numKeyGroups()) {
            throw new IllegalStateException(
                    "Rhino keyed operator '"
                            + spec.name()
                            + "' has max parallelism "
                            + parameters.getNumberOfKeyGroups()
                            + " but Rhino routes by "
                            + spec.numKeyGroups()
                            + " key groups. Do not change the max parallelism of operators "
                            + "on a Rhino keyed stream.");
        }
        if (RhinoTaskRegistry.backendOf(env.getExecutionId()).isPresent()) {
            // the gate's chain check refuses this first; never let two operators share a gate
            throw UnsupportedJobShapeException.atTaskStart(
                    "Rhino keyed stream '"
                            + spec.name()
                            + "': "
                            + parameters.getOperatorIdentifier()
                            + " is a second keyed operator in the gate's task, but the gate moves"
                            + " the vnode state of exactly one. Key its input again with another"
                            + " Rhino name, or do the work in one operator.");
        }
        VnodeRestore.Restored restored =
                VnodeRestore.read(
                        parameters.getStateHandles(),
                        spec,
                        subtaskIndex,
                        parallelism,
                        TaskManagerLocalCopies.of(env),
                        env.getUserCodeClassLoader().asClassLoader());
        // the operator as it runs: at Flink's parallelism, over the restored vnodes
        RhinoOperatorSpec running =
                restored == null ? spec.running(parallelism, null) : restored.running();
        VnodeLayout layout = running.layout();
        VnodeFileRegistry files = new VnodeFileRegistry(retainedCheckpoints);
        // Flink closes the cancel registry of state initialisation once the operator runs; vnodes
        // installed later by handovers register their restore streams with the backend's own.
        CloseableRegistry laterInstalls = new CloseableRegistry();
        AtomicBoolean initialised = new AtomicBoolean();
        EmbeddedRocksDBStateBackend instances =
                vnodeRocksdb.forOperator(
                        env, parameters.getOperatorIdentifier(), running.numVnodes());
        VnodeBackendFactory<K> backendFactory =
                (vnode, handles) ->
                        createVnodeDelegate(
                                instances,
                                parameters,
                                layout,
                                vnode,
                                handles,
                                initialised.get()
                                        ? laterInstalls
                                        : parameters.getCancelStreamRegistry());
        // this execution's own: the scratch of every operator and job on this TaskManager is
        // named after handovers and vnodes, which a drain's operators share
        TransferDirectory transferDirectory =
                TransferDirectory.of(
                                env.getTaskManagerInfo().getTmpWorkingDirectory(),
                                env.getJobID().toString(),
                                spec.name(),
                                env.getExecutionId().toString())
                        .create();
        VnodeKeyedStateBackend<K> backend =
                new VnodeKeyedStateBackend<>(
                        parameters.getOperatorIdentifier(),
                        parameters.getKeySerializer(),
                        parameters.getKeyGroupRange(),
                        subtaskIndex,
                        parallelism,
                        layout,
                        backendFactory,
                        files,
                        transferDirectory,
                        laterInstalls,
                        checkpointTimerHeads,
                        IdleVnodeReuse.of(
                                reuseIdleVnodes,
                                env.getTaskStateManager().createLocalRecoveryConfig()));
        RhinoMetric.VNODES_REUSED_AT_LAST_CHECKPOINT.gauge(
                parameters.getMetricGroup(), backend::lastCheckpointReusedVnodes);
        RhinoMetric.VNODES_SNAPSHOTTED_AT_LAST_CHECKPOINT.gauge(
                parameters.getMetricGroup(), backend::lastCheckpointSnapshottedVnodes);
        try {
            if (restored == null) {
                for (int vnode : running.initialRoutingTable().vnodesOwnedBy(subtaskIndex)) {
                    backend.installVnode(vnode, List.of());
                }
            } else {
                restoreVnodes(backend, restored, spec, subtaskIndex, parameters);
                backend.restoredFrom(restored.replicaHolders());
                backend.startTimerQueuesFrom(restored.timerHeadsByVnode());
                files.registerRestored(
                        restored.handlesByVnode().values().stream().flatMap(List::stream).toList());
            }
        } catch (Exception e) {
            backend.dispose();
            throw e;
        }
        initialised.set(true);
        RhinoTaskRegistry.registerBackend(env.getExecutionId(), backend);
        warnIfCrowded(running, backend.ownedVnodes().length, parameters.getOperatorIdentifier());
        return backend;
    }

    /**
     * Installs every vnode of the restored checkpoint: from its task-local copy where this
     * TaskManager keeps one, else from this TaskManager's replicas or a peer's, else from the
     * checkpoint storage; several at once ({@link ParallelVnodeRestore}).
     */
    private <K> void restoreVnodes(
            VnodeKeyedStateBackend<K> backend,
            VnodeRestore.Restored restored,
            RhinoOperatorSpec spec,
            int subtaskIndex,
            KeyedStateBackendParameters<K> parameters)
            throws Exception {
        Environment env = parameters.getEnv();
        if (restored.recut()) {
            // replicas and local copies hold the checkpoint's vnodes, not these
            LOG.info(
                    "'{}' subtask {} re-cuts the restored key groups into {} vnodes: its vnodes {}"
                            + " restore from the checkpoint storage, none from replicas or"
                            + " task-local copies, their timer queues read their heads from"
                            + " RocksDB",
                    spec.name(),
                    subtaskIndex,
                    restored.running().numVnodes(),
                    restored.handlesByVnode().keySet());
        }
        try (RestoreFromReplicas replicas =
                restored.recut()
                        ? null
                        : replicaRestore(
                                env,
                                restored.replicaHolders(),
                                backend.transferDirectory().toPath())) {
            Map<Integer, KeyedStateHandle> localCopies = new HashMap<>();
            Map<Integer, List<KeyedStateHandle>> elsewhere = new TreeMap<>();
            restored.handlesByVnode()
                    .forEach(
                            (vnode, handles) ->
                                    TaskLocalVnodes.fromCopy(
                                                    handles, restored.localCopyByVnode().get(vnode))
                                            .ifPresentOrElse(
                                                    copy -> localCopies.put(vnode, copy),
                                                    () -> elsewhere.put(vnode, handles)));
            if (replicas != null) {
                replicas.prefetch(elsewhere);
            }
            List<ParallelVnodeRestore.Planned> plan = new ArrayList<>();
            for (Map.Entry<Integer, List<KeyedStateHandle>> entry :
                    restored.handlesByVnode().entrySet()) {
                int vnode = entry.getKey();
                KeyedStateHandle localCopy = localCopies.get(vnode);
                if (localCopy != null) {
                    LOG.info(
                            "Vnode {} of '{}' restores from its task-local copy on this"
                                    + " TaskManager, none downloaded or fetched",
                            vnode,
                            spec.name());
                    plan.add(
                            new ParallelVnodeRestore.Planned(
                                    vnode, () -> List.of(localCopy), entry.getValue()));
                } else {
                    // a replica's handles may wait for its fetch from a peer
                    plan.add(
                            new ParallelVnodeRestore.Planned(
                                    vnode,
                                    () ->
                                            replicas == null
                                                    ? entry.getValue()
                                                    : replicas.handlesFor(
                                                            vnode, entry.getValue())));
                }
            }
            Set<Integer> fromStorageInstead =
                    new ParallelVnodeRestore(
                                    "'" + spec.name() + "' subtask " + subtaskIndex, restoreThreads)
                            .restore(backend, plan);
            // a local copy that did not open restored from the storage: no seed, counted there
            localCopies.keySet().removeAll(fromStorageInstead);
            for (int vnode : localCopies.keySet()) {
                VnodeReplication.HeldReplica held = restored.heldByChain().get(vnode);
                if (held != null) {
                    backend.seedReplica(vnode, held.directory(), held.sstFiles());
                }
            }
            if (replicas != null) {
                for (int vnode : elsewhere.keySet()) {
                    replicas.seedOf(vnode)
                            .ifPresent(
                                    seed ->
                                            backend.seedReplica(
                                                    vnode, seed.directory(), seed.sstFiles()));
                }
                restoredFromReplicas(parameters, replicas);
                // the vnodes opened before their replica files were read through (if so
                // configured): a damaged one found now fails the task
                backend.closeWith(
                        replicas.checkAfterOpen(
                                "'" + spec.name() + "' subtask " + subtaskIndex,
                                damaged -> env.failExternally(new IOException(damaged))));
            }
            int locally = localCopies.size();
            RhinoMetric.VNODES_RESTORED_FROM_LOCAL_COPIES.gauge(
                    parameters.getMetricGroup(), () -> locally);
            backend.restoredFrom(
                    sourcesOf(restored.handlesByVnode().keySet(), localCopies.keySet(), replicas));
        }
    }

    /** Where each restored vnode came from; what no copy or replica gave came from the storage. */
    private static Map<Integer, RestoreSource> sourcesOf(
            Set<Integer> vnodes, Set<Integer> fromLocalCopies, RestoreFromReplicas replicas) {
        Map<Integer, RestoreSource> fromReplicas = replicas == null ? Map.of() : replicas.sources();
        Map<Integer, RestoreSource> sources = new TreeMap<>();
        for (int vnode : vnodes) {
            sources.put(
                    vnode,
                    fromLocalCopies.contains(vnode)
                            ? RestoreSource.TASK_LOCAL
                            : fromReplicas.getOrDefault(vnode, RestoreSource.CHECKPOINT_STORAGE));
        }
        return sources;
    }

    /**
     * Restores from this TaskManager's replicas, if it keeps any (its replication service runs,
     * e.g. retaining the replicas of this job's tasks before a failover); null otherwise.
     */
    private static RestoreFromReplicas replicaRestore(
            Environment env, List<String> holders, java.nio.file.Path workDirectory) {
        return RhinoTaskRegistry.replicasOf(env.getExecutionId())
                .flatMap(replicas -> replicas.open(holders, workDirectory))
                .orElse(null);
    }

    /** Restore figures of this subtask, as gauges of its keyed operator. */
    private static void restoredFromReplicas(
            KeyedStateBackendParameters<?> parameters, RestoreFromReplicas replicas) {
        int vnodes = replicas.restoredVnodes();
        long bytes = replicas.linkedBytes();
        int fetchedVnodes = replicas.fetchedVnodes();
        long fetchedBytes = replicas.fetchedBytes();
        RhinoMetric.VNODES_RESTORED_FROM_REPLICAS.gauge(parameters.getMetricGroup(), () -> vnodes);
        RhinoMetric.BYTES_RESTORED_FROM_REPLICAS.gauge(parameters.getMetricGroup(), () -> bytes);
        RhinoMetric.VNODES_FETCHED_FROM_PEERS.gauge(
                parameters.getMetricGroup(), () -> fetchedVnodes);
        RhinoMetric.BYTES_FETCHED_FROM_PEERS.gauge(parameters.getMetricGroup(), () -> fetchedBytes);
    }

    private void logHeapTimersOverrideOnce() {
        if (rocksdb.getPriorityQueueStateType()
                        == EmbeddedRocksDBStateBackend.PriorityQueueStateType.HEAP
                && HEAP_TIMERS_OVERRIDE_LOGGED.compareAndSet(false, true)) {
            LOG.warn(
                    "{} is HEAP, but Rhino keyed operators keep their timers in RocksDB: a vnode's "
                            + "checkpoint and handover are RocksDB snapshots of its instance, which "
                            + "would leave heap timers behind. Other keyed operators keep heap "
                            + "timers.",
                    RocksDBOptions.TIMER_SERVICE_FACTORY.key());
        }
    }

    private static void warnIfCrowded(RhinoOperatorSpec spec, int owned, String operator) {
        if (owned > RhinoOptions.MAX_VNODES_PER_SLOT_WITHOUT_WARNING) {
            LOG.warn(
                    "{} owns {} vnodes of '{}', one RocksDB instance each, sharing this slot's "
                            + "managed memory: memtables flush early and throughput suffers. "
                            + "Lower rhino.vnodes (now {}) or raise taskmanager.memory.managed.size.",
                    operator,
                    owned,
                    spec.name(),
                    spec.numVnodes());
        }
    }

    private static <K> AbstractKeyedStateBackend<K> createVnodeDelegate(
            EmbeddedRocksDBStateBackend instances,
            KeyedStateBackendParameters<K> parameters,
            VnodeLayout layout,
            int vnode,
            Collection<KeyedStateHandle> handles,
            CloseableRegistry cancelRegistry)
            throws Exception {
        KeyGroupSpan span = layout.keyGroupsOf(vnode);
        return instances.createKeyedStateBackend(
                new KeyedStateBackendParametersImpl<>(
                        parameters.getEnv(),
                        parameters.getJobID(),
                        VnodeRocksDbBackends.vnodeIdentifier(
                                parameters.getOperatorIdentifier(), vnode),
                        parameters.getKeySerializer(),
                        parameters.getNumberOfKeyGroups(),
                        new KeyGroupRange(span.startKeyGroup(), span.endKeyGroup()),
                        parameters.getKvStateRegistry(),
                        parameters.getTtlTimeProvider(),
                        parameters.getMetricGroup().addGroup("vnode", String.valueOf(vnode)),
                        parameters.getCustomInitializationMetrics(),
                        handles,
                        cancelRegistry,
                        parameters.getManagedMemoryFraction()));
    }

    @Override
    public OperatorStateBackend createOperatorStateBackend(
            OperatorStateBackendParameters parameters) throws Exception {
        return rocksdb.createOperatorStateBackend(parameters);
    }

    @Override
    public boolean useManagedMemory() {
        return true;
    }

    @Override
    public boolean supportsNoClaimRestoreMode() {
        return true;
    }

    @Override
    public boolean supportsSavepointFormat(SavepointFormatType formatType) {
        // canonical: Flink's format over each subtask's vnodes (see CanonicalSavepoints)
        return true;
    }
}
