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

import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CancellationException;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RunnableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import org.apache.flink.runtime.checkpoint.CheckpointOptions;
import org.apache.flink.runtime.checkpoint.SnapshotType;
import org.apache.flink.runtime.state.CheckpointStateOutputStream;
import org.apache.flink.runtime.state.CheckpointStreamFactory;
import org.apache.flink.runtime.state.CheckpointableKeyedStateBackend;
import org.apache.flink.runtime.state.CheckpointedStateScope;
import org.apache.flink.runtime.state.DirectoryStateHandle;
import org.apache.flink.runtime.state.IncrementalLocalKeyedStateHandle;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.SnapshotResult;
import org.apache.flink.runtime.state.StateUtil;
import org.apache.flink.runtime.state.StreamStateHandle;
import org.apache.flink.runtime.state.filesystem.FsCheckpointStreamFactory;
import org.apache.flink.runtime.state.memory.ByteStreamStateHandle;
import org.apache.flink.util.FileUtils;
import org.apache.flink.util.concurrent.FutureUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checkpoints a vnode backend: the synchronous part of every owned vnode's RocksDB snapshot runs in
 * {@link #snapshot}; the returned future uploads them, resolves shared-file placeholders, writes
 * the {@link VnodeManifest} and reports it to Flink with every vnode file (see {@link
 * SubtaskSnapshotHandle}), so that Flink owns the files.
 */
final class VnodeSnapshotter<K> {

    private static final Logger LOG = LoggerFactory.getLogger(VnodeSnapshotter.class);

    // names a reused snapshot's task-local copy in a checkpoint's local directory
    private static final String REUSED_COPY_PREFIX = "rhino-reused-vnode-";

    private final VnodeBackends<K> backends;
    private final VnodeFileRegistry files;
    private final VnodeUploadHistory uploads;
    private final VnodeDisposal disposal;
    // nearly every key group, distinct per subtask: see ClaimedKeyGroups
    private final KeyGroupRange claimedKeyGroups;
    private final int subtaskIndex;
    private final int parallelism;
    private final int numKeyGroups;
    private final IntFunction<TimerQueueHeads> cachedTimerHeads;
    private final UUID backendIdentifier = UUID.randomUUID();
    private final IdleVnodeReuse reuseIdleVnodes;
    private final IdleVnodeSnapshots idle = new IdleVnodeSnapshots();
    // snapshots whose asynchronous part has not ended
    private final AtomicInteger running = new AtomicInteger();
    private volatile VnodeReplication replication;
    // of the last checkpoint (not savepoint) whose synchronous part ran, for the metrics
    private volatile int lastReused;
    private volatile int lastSnapshotted;

    VnodeSnapshotter(
            VnodeBackends<K> backends,
            VnodeFileRegistry files,
            VnodeUploadHistory uploads,
            VnodeDisposal disposal,
            int subtaskIndex,
            int parallelism,
            int numKeyGroups,
            IntFunction<TimerQueueHeads> cachedTimerHeads,
            IdleVnodeReuse reuseIdleVnodes) {
        this.backends = backends;
        this.files = files;
        this.uploads = uploads;
        this.disposal = disposal;
        this.claimedKeyGroups = ClaimedKeyGroups.of(subtaskIndex, parallelism, numKeyGroups);
        this.subtaskIndex = subtaskIndex;
        this.parallelism = parallelism;
        this.numKeyGroups = numKeyGroups;
        this.cachedTimerHeads = cachedTimerHeads;
        this.reuseIdleVnodes = reuseIdleVnodes;
    }

    /** Vnodes whose snapshot the last checkpoint reused from an earlier one. */
    int lastReused() {
        return lastReused;
    }

    /** Vnodes the last checkpoint snapshotted (their RocksDB instances checkpointed). */
    int lastSnapshotted() {
        return lastSnapshotted;
    }

    /** From now on, checkpoints are also replicated this way (null: not replicated). */
    void replicateWith(VnodeReplication replication) {
        this.replication = replication;
    }

    void seedReplication(int vnode, Object instance, String directory, Set<String> sstFiles) {
        VnodeReplication current = replication;
        if (current != null) {
            current.seed(vnode, instance, directory, sstFiles);
        }
    }

    void checkpointCompleted(long checkpointId) {
        idle.completed(checkpointId);
        VnodeReplication current = replication;
        if (current != null) {
            current.checkpointCompleted(checkpointId);
        }
    }

    void checkpointAborted(long checkpointId) {
        idle.aborted(checkpointId);
    }

    RunnableFuture<SnapshotResult<KeyedStateHandle>> snapshot(
            long checkpointId,
            long timestamp,
            CheckpointStreamFactory streamFactory,
            CheckpointOptions checkpointOptions)
            throws Exception {
        // A savepoint shares no files with checkpoints: its files are the savepoint's, never this
        // backend's to delete or to refer to later.
        boolean savepoint =
                checkpointOptions.getCheckpointType().getSharingFilesStrategy()
                        == SnapshotType.SharingFilesStrategy.NO_SHARING;
        if (savepoint) {
            files.registerSavepoint(checkpointId);
            idle.savepoint(checkpointId);
        } else {
            files.snapshotStarted(checkpointId);
        }
        Map<Integer, RunnableFuture<SnapshotResult<KeyedStateHandle>>> futures =
                new LinkedHashMap<>();
        // idle vnodes: their snapshot of the last completed checkpoint, not snapshotted again
        Map<Integer, IdleVnodeSnapshots.Reusable> reused = new TreeMap<>();
        List<CheckpointableKeyedStateBackend<K>> instances = new ArrayList<>();
        Set<Integer> owned = new TreeSet<>();
        for (int vnode : backends.ownedVnodes()) {
            instances.add(backends.get(vnode));
            owned.add(vnode);
        }
        idle.retainOnly(owned);
        VnodeReplication current = replication;
        boolean track = reuseIdleVnodes.enabled() && !savepoint;
        // No reuse while another checkpoint still runs: it may complete first and subsume the
        // one whose private files a reuse copies (concurrent checkpoints). With a replica chain,
        // only where the chain's last replica of the vnode is the reused snapshot.
        boolean mayReuse = track && running.get() == 0;
        disposal.lease(instances);
        VnodeReplication.Capture capture = null;
        // as of this synchronous part, as the vnode snapshots are: a restore starts from them
        SortedMap<Integer, TimerQueueHeads> timerHeads = new TreeMap<>();
        long readingHeads = 0;
        try {
            Map<Integer, CheckpointableKeyedStateBackend<?>> snapshotted = new LinkedHashMap<>();
            Map<Integer, VnodeReplication.Relist> relisted = new LinkedHashMap<>();
            for (int vnode : backends.ownedVnodes()) {
                CheckpointableKeyedStateBackend<K> instance = backends.get(vnode);
                Optional<IdleVnodeSnapshots.Reusable> reusable =
                        mayReuse
                                ? idle.reusable(vnode, instance, VnodeWriteSequence.of(instance))
                                        .filter(this::keepsItsLocalRecovery)
                                        .filter(
                                                r ->
                                                        current == null
                                                                || current.mayRelist(
                                                                        vnode,
                                                                        instance,
                                                                        r.takenAt()))
                                : Optional.empty();
                if (reusable.isPresent()) {
                    reused.put(vnode, reusable.get());
                    relisted.put(
                            vnode, new VnodeReplication.Relist(instance, reusable.get().takenAt()));
                } else {
                    snapshotted.put(vnode, instance);
                    futures.put(
                            vnode,
                            instance.snapshot(
                                    checkpointId, timestamp, streamFactory, checkpointOptions));
                    if (track) {
                        idle.taken(checkpointId, vnode, instance, VnodeWriteSequence.of(instance));
                    }
                }
                long start = System.nanoTime();
                TimerQueueHeads heads = cachedTimerHeads.apply(vnode);
                readingHeads += System.nanoTime() - start;
                if (!heads.isEmpty()) {
                    timerHeads.put(vnode, heads);
                }
            }
            LOG.debug(
                    "Checkpoint {}: read the timer queues' first timers of {} vnodes in {} us",
                    checkpointId,
                    timerHeads.size(),
                    readingHeads / 1000);
            if (!savepoint) {
                uploads.started(checkpointId, owned);
                lastReused = reused.size();
                lastSnapshotted = futures.size();
                LOG.debug(
                        "Checkpoint {}: reused the snapshots of {} idle vnodes, snapshotted {}",
                        checkpointId,
                        reused.size(),
                        futures.size());
            }
            if (current != null && !savepoint) {
                capture = current.capture(checkpointId, snapshotted, relisted);
            }
        } catch (Exception e) {
            cancelAndDiscard(futures);
            disposal.release(instances);
            uploads.ended(checkpointId);
            throw e;
        }
        running.incrementAndGet();
        return new ManifestFuture(
                checkpointId,
                savepoint,
                futures,
                reused,
                instances,
                streamFactory,
                capture,
                timerHeads);
    }

    /**
     * Links the reused snapshot's task-local copy into this checkpoint's local directory, beside
     * the copies of the vnodes snapshotted now, and adds it to {@code localCopies}: reported with
     * them, Flink's local state store keeps it as long as this checkpoint. Returns the reusable
     * with that copy, or without any if it could not be made (the vnode is then snapshotted at the
     * next checkpoint, which makes a new one; this one restores it from elsewhere).
     */
    private IdleVnodeSnapshots.Reusable keepLocalCopy(
            long checkpointId,
            int vnode,
            IdleVnodeSnapshots.Reusable reusable,
            Map<Integer, IncrementalLocalKeyedStateHandle> localCopies) {
        Path checkpointDirectory = reuseIdleVnodes.localCheckpointDirectory(checkpointId);
        Path copy = checkpointDirectory.resolve(REUSED_COPY_PREFIX + vnode);
        try {
            FileUtils.deleteDirectoryQuietly(copy.toFile());
            FileLinks.linkDirectory(reusable.localCopy(), copy);
            // the metadata is a placeholder: discarding this copy must not discard the reused
            // snapshot's (remote) metadata, which later checkpoints still list
            localCopies.put(
                    vnode,
                    new IncrementalLocalKeyedStateHandle(
                            backendIdentifier,
                            checkpointId,
                            DirectoryStateHandle.forPathWithSize(copy),
                            claimedKeyGroups,
                            new ByteStreamStateHandle(REUSED_COPY_PREFIX + vnode, new byte[0]),
                            List.of()));
            return reusable.withLocalCopy(copy);
        } catch (IOException e) {
            LOG.warn(
                    "Checkpoint {}: could not keep the task-local copy of idle vnode {} from {};"
                            + " it restores from its replica or the checkpoint storage instead",
                    checkpointId,
                    vnode,
                    reusable.localCopy(),
                    e);
            FileUtils.deleteDirectoryQuietly(copy.toFile());
            return reusable.withLocalCopy(null);
        }
    }

    /**
     * With local backup on, a snapshot is reused only with its task-local copy, which the reusing
     * checkpoint links into its own local directory: else the vnode would lose its local recovery
     * once Flink drops the older checkpoint's copies. A vnode whose copy is gone is snapshotted.
     */
    private boolean keepsItsLocalRecovery(IdleVnodeSnapshots.Reusable reusable) {
        return !reuseIdleVnodes.keepsLocalCopies()
                || (reusable.localCopy() != null && Files.isDirectory(reusable.localCopy()));
    }

    private static void cancelAndDiscard(
            Map<Integer, RunnableFuture<SnapshotResult<KeyedStateHandle>>> futures) {
        for (RunnableFuture<SnapshotResult<KeyedStateHandle>> future : futures.values()) {
            try {
                StateUtil.discardStateFuture(future);
            } catch (Exception ignored) {
                // best effort: the checkpoint fails anyway
            }
        }
    }

    /**
     * Discards the vnodes' snapshots after their replication failed; returns what to throw: a
     * cancellation if a vnode's snapshot was cancelled (its backend closed and deleted the files
     * the replication links), else the failure.
     */
    private static Exception replicationFailed(
            Map<Integer, RunnableFuture<SnapshotResult<KeyedStateHandle>>> futures,
            Exception failure) {
        boolean vnodeSnapshotCancelled = futures.values().stream().anyMatch(Future::isCancelled);
        cancelAndDiscard(futures);
        if (vnodeSnapshotCancelled) {
            CancellationException cancelled =
                    new CancellationException("A vnode snapshot was cancelled");
            cancelled.initCause(failure);
            return cancelled;
        }
        return failure;
    }

    private SnapshotResult<KeyedStateHandle> completeSnapshot(
            long checkpointId,
            boolean savepoint,
            Map<Integer, RunnableFuture<SnapshotResult<KeyedStateHandle>>> futures,
            Map<Integer, IdleVnodeSnapshots.Reusable> reused,
            CheckpointStreamFactory streamFactory,
            VnodeReplication.Capture capture,
            SortedMap<Integer, TimerQueueHeads> timerHeads)
            throws Exception {
        List<String> replicaHolders = List.of();
        // where the chain holds each vnode's files: seeds of a restore from a task-local copy
        Map<Integer, VnodeReplication.HeldReplica> heldByChain = new TreeMap<>();
        if (capture != null) {
            // the checkpoint is reported only once every copy is stored and verified; the copies
            // travel while the vnodes upload
            ReplicationAlongside replication;
            try {
                replication =
                        ReplicationAlongside.start(
                                capture,
                                "rhino-replication-subtask-"
                                        + subtaskIndex
                                        + "-checkpoint-"
                                        + checkpointId);
            } catch (Exception e) {
                capture.discard();
                throw replicationFailed(futures, e);
            }
            long uploading = System.nanoTime();
            try {
                for (RunnableFuture<SnapshotResult<KeyedStateHandle>> future : futures.values()) {
                    FutureUtils.runIfNotDoneAndGet(future);
                }
            } catch (Exception e) {
                replication.stop();
                cancelAndDiscard(futures);
                capture.discard();
                throw e;
            }
            long uploaded = System.nanoTime();
            try {
                replication.await();
                LOG.debug(
                        "Checkpoint {}: the vnodes uploaded in {} ms, their replication ended {} ms"
                                + " later",
                        checkpointId,
                        (uploaded - uploading) / 1_000_000,
                        (System.nanoTime() - uploaded) / 1_000_000);
                replicaHolders = capture.holders();
                Set<Integer> inCheckpoint = new TreeSet<>(futures.keySet());
                inCheckpoint.addAll(reused.keySet());
                for (int vnode : inCheckpoint) {
                    capture.held(vnode).ifPresent(held -> heldByChain.put(vnode, held));
                }
            } catch (Exception e) {
                replication.stop();
                throw replicationFailed(futures, e);
            } finally {
                capture.discard();
            }
        }
        // as the vnode backends reported them, for Flink, and with placeholders resolved, to
        // restore
        SortedMap<Integer, KeyedStateHandle> reportedByVnode = new TreeMap<>();
        SortedMap<Integer, KeyedStateHandle> handleByVnode = new TreeMap<>();
        // A vnode without any registered state snapshots to nothing, but it is still owned.
        SortedSet<Integer> emptyVnodes = new TreeSet<>();
        // the vnodes' task-local copies (local recovery on), reported as one local alternative
        Map<Integer, IncrementalLocalKeyedStateHandle> localCopies = new TreeMap<>();
        try {
            for (Map.Entry<Integer, RunnableFuture<SnapshotResult<KeyedStateHandle>>> entry :
                    futures.entrySet()) {
                SnapshotResult<KeyedStateHandle> result =
                        FutureUtils.runIfNotDoneAndGet(entry.getValue());
                Path localCopyDirectory = null;
                if (!savepoint
                        && result.getTaskLocalSnapshot()
                                instanceof IncrementalLocalKeyedStateHandle localCopy) {
                    localCopies.put(entry.getKey(), localCopy);
                    localCopyDirectory = localCopy.getDirectoryStateHandle().getDirectory();
                } else {
                    LocalSnapshots.discard(result);
                }
                KeyedStateHandle handle = result.getJobManagerOwnedSnapshot();
                if (handle != null) {
                    reportedByVnode.put(entry.getKey(), handle);
                    KeyedStateHandle resolved =
                            savepoint
                                    ? files.resolveWithoutRegistering(handle)
                                    : files.resolve(handle);
                    handleByVnode.put(entry.getKey(), resolved);
                    if (!savepoint) {
                        idle.finished(checkpointId, entry.getKey(), resolved, localCopyDirectory);
                    }
                } else {
                    emptyVnodes.add(entry.getKey());
                }
            }
        } catch (Exception e) {
            // discards the finished snapshots' local copies too (a SnapshotResult holds both)
            cancelAndDiscard(futures);
            throw e;
        }
        // the reused snapshots of idle vnodes, their private files copied into this checkpoint
        Map<Integer, IdleVnodeSnapshots.Reusable> reusedHere = new TreeMap<>();
        PrivateFileCopies copies = new PrivateFileCopies(streamFactory);
        try {
            for (Map.Entry<Integer, IdleVnodeSnapshots.Reusable> entry : reused.entrySet()) {
                IdleVnodeSnapshots.Reusable reusable = copies.copy(entry.getValue());
                if (reuseIdleVnodes.keepsLocalCopies()) {
                    reusable = keepLocalCopy(checkpointId, entry.getKey(), reusable, localCopies);
                }
                reusedHere.put(entry.getKey(), reusable);
                reportedByVnode.put(entry.getKey(), reusable.reportedFor(checkpointId));
                handleByVnode.put(entry.getKey(), reusable.resolvedFor(checkpointId));
            }
        } catch (Exception e) {
            copies.discard();
            LocalSnapshots.discardAll(localCopies.values());
            cancelAndDiscard(futures);
            throw e;
        }
        if (!savepoint) {
            files.registerSnapshot(checkpointId, handleByVnode.values());
            handleByVnode.forEach(
                    (vnode, resolved) ->
                            uploads.finished(
                                    checkpointId, vnode, reportedByVnode.get(vnode), resolved));
        }
        SortedMap<Integer, TimerQueueHeads> restorable = new TreeMap<>(timerHeads);
        // a vnode without state restores empty: no heads to start from
        restorable.keySet().retainAll(handleByVnode.keySet());
        VnodeManifest manifest =
                new VnodeManifest(
                        subtaskIndex,
                        parallelism,
                        numKeyGroups,
                        backends.numVnodes(),
                        checkpointId,
                        handleByVnode,
                        emptyVnodes,
                        replicaHolders,
                        restorable);
        StreamStateHandle manifestHandle;
        long writing = System.nanoTime();
        try (CheckpointStateOutputStream out =
                streamFactory.createCheckpointStateOutputStream(CheckpointedStateScope.EXCLUSIVE)) {
            manifest.write(new DataOutputStream(out));
            if (out instanceof FsCheckpointStreamFactory.FsCheckpointStateOutputStream file) {
                // Never inline the manifest in the checkpoint metadata: it stores the files of
                // its own directory relative to it (see ManifestPaths), so it must be a file there.
                file.flushToFile();
            }
            manifestHandle = out.closeAndGetHandle();
            LOG.debug(
                    "Checkpoint {}: wrote the vnode manifest of {} bytes in {} ms",
                    checkpointId,
                    manifestHandle.getStateSize(),
                    (System.nanoTime() - writing) / 1_000_000);
        } catch (Exception e) {
            LocalSnapshots.discardAll(localCopies.values());
            // Flink never hears of these files: delete the new ones, as an aborted checkpoint's
            SubtaskSnapshotHandle.of(
                            backendIdentifier,
                            claimedKeyGroups,
                            checkpointId,
                            new ByteStreamStateHandle("unwritten-manifest", new byte[0]),
                            reportedByVnode)
                    .discardState();
            throw e;
        }
        reusedHere.forEach((vnode, reusable) -> idle.reused(checkpointId, vnode, reusable));
        KeyedStateHandle remote =
                SubtaskSnapshotHandle.of(
                        backendIdentifier,
                        claimedKeyGroups,
                        checkpointId,
                        manifestHandle,
                        reportedByVnode);
        Optional<IncrementalLocalKeyedStateHandle> local =
                TaskLocalVnodes.alternative(
                        backendIdentifier,
                        claimedKeyGroups,
                        checkpointId,
                        manifestHandle,
                        localCopies,
                        heldByChain);
        if (local.isEmpty()) {
            LocalSnapshots.discardAll(localCopies.values());
            return SnapshotResult.of(remote);
        }
        return SnapshotResult.withLocalState(remote, local.get());
    }

    /**
     * Completes every vnode snapshot, then the manifest; cancelling it cancels them all. Holds the
     * vnode instances it reads until it ends, so a handover cannot dispose them under its upload.
     */
    private final class ManifestFuture extends FutureTask<SnapshotResult<KeyedStateHandle>> {
        private final long checkpointId;
        private final Map<Integer, RunnableFuture<SnapshotResult<KeyedStateHandle>>> futures;
        private final List<CheckpointableKeyedStateBackend<K>> instances;
        private final VnodeReplication.Capture capture;

        ManifestFuture(
                long checkpointId,
                boolean savepoint,
                Map<Integer, RunnableFuture<SnapshotResult<KeyedStateHandle>>> futures,
                Map<Integer, IdleVnodeSnapshots.Reusable> reused,
                List<CheckpointableKeyedStateBackend<K>> instances,
                CheckpointStreamFactory streamFactory,
                VnodeReplication.Capture capture,
                SortedMap<Integer, TimerQueueHeads> timerHeads) {
            super(
                    () ->
                            completeSnapshot(
                                    checkpointId,
                                    savepoint,
                                    futures,
                                    reused,
                                    streamFactory,
                                    capture,
                                    timerHeads));
            this.checkpointId = checkpointId;
            this.futures = futures;
            this.instances = instances;
            this.capture = capture;
        }

        @Override
        protected void done() {
            if (capture != null) {
                capture.discard(); // idempotent; covers a snapshot cancelled before it ran
            }
            disposal.release(instances);
            uploads.ended(checkpointId);
            running.decrementAndGet();
        }

        /**
         * Cancels the vnode snapshots and deletes what the finished ones uploaded, as Flink does
         * for an operator's snapshot when it cancels a checkpoint: Flink never sees these files.
         */
        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            boolean cancelled = super.cancel(mayInterruptIfRunning);
            if (cancelled) { // never the files of a snapshot that completed
                cancelAndDiscard(futures);
            }
            return cancelled;
        }

        /**
         * A vnode snapshot cancelled under this one (its backend was closed, as when the task shuts
         * down) cancels the whole snapshot, as closing a Flink backend cancels its running
         * snapshots, instead of failing it.
         */
        @Override
        protected void setException(Throwable failure) {
            if (failure instanceof CancellationException) {
                cancel(false);
            } else {
                super.setException(failure);
            }
        }
    }
}
