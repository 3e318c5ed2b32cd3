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

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rhino.flink.replication.PeerVnodeReplication;
import io.rhino.flink.replication.ReplicaListing;
import io.rhino.flink.replication.VnodeReplicaCollector;
import io.rhino.flink.spec.RhinoOperatorSpec;
import io.rhino.replication.ReplicationService;
import io.rhino.replication.store.CommitListener;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RunnableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.runtime.checkpoint.CheckpointOptions;
import org.apache.flink.runtime.state.CheckpointStateOutputStream;
import org.apache.flink.runtime.state.CheckpointStreamFactory;
import org.apache.flink.runtime.state.CheckpointedStateScope;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.SnapshotResult;
import org.apache.flink.runtime.state.StreamStateHandle;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.runtime.state.filesystem.FsCheckpointStreamFactory;
import org.apache.flink.util.concurrent.FutureUtils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a chain receives of a vnode's checkpoint. A vnode rebuilt from a replica replicates, to a
 * chain that holds that replica, only what it lacks: the holder's SST copies stay the same files
 * (same inodes), in the same instance directory. Without the seed, every file goes again into a new
 * instance directory. A replica holds the files of Flink's snapshot of the checkpoint, not what the
 * instance wrote after the checkpoint's synchronous phase. And the chain receives them while the
 * vnodes upload to the checkpoint storage.
 */
class ReplicaSeedTest {

    private static final RhinoOperatorSpec SPEC = new RhinoOperatorSpec("op", 128, 4, 1, 1);
    private static final String PREFIX = "job/op";
    private static final ValueStateDescriptor<String> VALUE =
            new ValueStateDescriptor<>("value", Types.STRING);

    @TempDir Path tmp;
    private VnodeBackendHarness harness;
    private ReplicationService primary;
    private ReplicationService holder;

    @AfterEach
    void tearDown() throws Exception {
        harness.close();
        primary.close();
        holder.close();
    }

    @Test
    void aRestoredVnodeSendsTheChainOnlyWhatItLacks() throws Exception {
        VnodeKeyedStateBackend<Long> first = replicatedBackend();
        KeyedStateHandle checkpoint = harness.checkpoint(first, 1);
        int[] vnodes = first.ownedVnodes();
        Map<Integer, List<String>> listed = new HashMap<>();
        Map<String, Object> inodes = new HashMap<>();
        long sstBytes = 0;
        for (int vnode : vnodes) {
            String vnodeDirectory = ReplicaListing.vnodeDirectory(PREFIX, vnode);
            listed.put(vnode, listing(vnodeDirectory, 1));
            inodes.putAll(sstInodes(vnodeDirectory, listed.get(vnode)));
            for (String file : ssts(listed.get(vnode))) {
                sstBytes +=
                        Files.size(holder.store().file(vnodeDirectory + "/" + file).orElseThrow());
            }
        }
        assertThat(inodes).as("SST copies on the holder").isNotEmpty();
        assertThat(sstBytes).isPositive();

        // rebuilt from checkpoint 1 (the same SST files), seeded with the holder's listings
        VnodeKeyedStateBackend<Long> restored = harness.create(0, List.of(checkpoint));
        assertThat(restored.ownedVnodes()).isEqualTo(vnodes);
        for (int vnode : vnodes) {
            List<String> files = ssts(listed.get(vnode));
            if (!files.isEmpty()) {
                Set<String> names = new HashSet<>();
                files.forEach(f -> names.add(f.substring(f.lastIndexOf('/') + 1)));
                restored.seedReplica(vnode, directoryOf(files.get(0)), names);
            }
        }
        AtomicLong sent = new AtomicLong();
        restored.replicateWith(replication(sent));
        harness.checkpoint(restored, 2);

        Map<String, Object> after = new HashMap<>();
        for (int vnode : vnodes) {
            String vnodeDirectory = ReplicaListing.vnodeDirectory(PREFIX, vnode);
            List<String> second = ssts(listing(vnodeDirectory, 2));
            assertThat(second)
                    .as("SST files of vnode %d's second listing", vnode)
                    .containsAll(ssts(listed.get(vnode)));
            after.putAll(sstInodes(vnodeDirectory, listed.get(vnode)));
        }
        assertThat(after).as("the holder's SST copies were not sent again").isEqualTo(inodes);
        assertThat(sent.get())
                .as("bytes sent for checkpoint 2 (metadata only), vs the SST bytes held")
                .isLessThan(sstBytes);
    }

    /**
     * A replaced TaskManager in the new chain never held the restored files: until a round of the
     * chain stored them, a handover must not count on them (its install would miss files), and the
     * round sends the member every file.
     */
    @Test
    void aSeedIsNotTrustedForHandoversUntilARoundConfirmsIt() throws Exception {
        harness = new VnodeBackendHarness(SPEC, tmp.resolve("checkpoints"));
        primary = service("127.0.0.2", "primary");
        holder = service("127.0.0.3", "holder");
        try (ReplicationService replaced = service("127.0.0.4", "replaced")) {
            VnodeKeyedStateBackend<Long> first = harness.create(0, List.of());
            put(first);
            first.replicateWith(replication(new AtomicLong()));
            KeyedStateHandle checkpoint = harness.checkpoint(first, 1);
            VnodeKeyedStateBackend<Long> restored = harness.create(0, List.of(checkpoint));
            List<Integer> seeded = new ArrayList<>();
            for (int vnode : first.ownedVnodes()) {
                List<String> files = ssts(listing(ReplicaListing.vnodeDirectory(PREFIX, vnode), 1));
                if (!files.isEmpty()) {
                    Set<String> names = new HashSet<>();
                    files.forEach(f -> names.add(f.substring(f.lastIndexOf('/') + 1)));
                    restored.seedReplica(vnode, directoryOf(files.get(0)), names);
                    seeded.add(vnode);
                }
            }
            assertThat(seeded).isNotEmpty();
            PeerVnodeReplication toReplaced = replication(replaced, new AtomicLong());
            restored.replicateWith(toReplaced);
            for (int vnode : seeded) {
                assertThat(toReplaced.heldOf(vnode, restored.vnodeBackend(vnode)))
                        .as("files of vnode %d a handover may count on before any round", vnode)
                        .isEmpty();
            }

            harness.checkpoint(restored, 2);
            for (int vnode : seeded) {
                String vnodeDirectory = ReplicaListing.vnodeDirectory(PREFIX, vnode);
                PeerVnodeReplication.HeldFiles held =
                        toReplaced.heldOf(vnode, restored.vnodeBackend(vnode)).orElseThrow();
                assertThat(held.sstFiles()).isNotEmpty();
                for (String file : held.sstFiles()) {
                    assertThat(
                                    replaced.store()
                                            .file(
                                                    vnodeDirectory
                                                            + "/"
                                                            + held.directory()
                                                            + "/"
                                                            + file))
                            .as("vnode %d's %s on the replaced TaskManager", vnode, file)
                            .isPresent();
                }
            }
        }
    }

    @Test
    void aReplicaHoldsTheFilesOfFlinksSnapshotNotLaterWrites() throws Exception {
        VnodeKeyedStateBackend<Long> backend = replicatedBackend();

        // the synchronous phase of checkpoint 1 only; its asynchronous phase runs below
        RunnableFuture<SnapshotResult<KeyedStateHandle>> asyncPhase = snapshotSyncPhase(backend, 1);
        Map<Integer, Set<String>> flinksSsts = new HashMap<>();
        for (int vnode : backend.ownedVnodes()) {
            Path snapshot =
                    LiveInstanceFiles.flinkSnapshotDirectory(backend.vnodeBackend(vnode), 1)
                            .orElseThrow();
            flinksSsts.put(vnode, sstNames(snapshot));
        }
        // written and flushed into new SST files before the asynchronous phase
        put(backend);
        for (int vnode : backend.ownedVnodes()) {
            LiveInstanceFiles.checkpoint(
                    backend.vnodeBackend(vnode), tmp.resolve("flushed-" + vnode));
            assertThat(sstNames(tmp.resolve("flushed-" + vnode)))
                    .as("vnode %d's SST files after the later writes", vnode)
                    .isNotEqualTo(flinksSsts.get(vnode));
        }
        FutureUtils.runIfNotDoneAndGet(asyncPhase);

        for (int vnode : backend.ownedVnodes()) {
            Set<String> replicated = new HashSet<>();
            for (String file : ssts(listing(ReplicaListing.vnodeDirectory(PREFIX, vnode), 1))) {
                replicated.add(file.substring(file.lastIndexOf('/') + 1));
            }
            assertThat(replicated)
                    .as("vnode %d's replicated SST files", vnode)
                    .isEqualTo(flinksSsts.get(vnode));
        }
    }

    @Test
    void aSnapshotWhoseBackendClosesBeforeItsAsynchronousPhaseIsCancelledNotFailed()
            throws Exception {
        VnodeKeyedStateBackend<Long> backend = replicatedBackend();
        RunnableFuture<SnapshotResult<KeyedStateHandle>> asyncPhase = snapshotSyncPhase(backend, 1);

        // as when the task shuts down: Flink cancels the vnodes' snapshots and deletes their
        // RocksDB checkpoints, which the replication would have linked
        backend.close();
        asyncPhase.run();

        assertThat(asyncPhase.isCancelled()).as("the snapshot is cancelled").isTrue();
    }

    /**
     * A round that fails part-way keeps what the whole chain stored: the next round sends only the
     * rest, so a vnode whose new files take longer than one round may take gets further each time
     * instead of starting again.
     */
    @Test
    void aRoundThatFailsPartWaySendsOnlyTheRestNextTime() throws Exception {
        VnodeKeyedStateBackend<Long> backend = replicatedBackend();
        // the holder cannot store checkpoint 1's CURRENT of any vnode: a directory is in the way;
        // the SST files sort before it, so they are on their way when it fails
        List<Path> inTheWay = new ArrayList<>();
        for (int vnode : backend.ownedVnodes()) {
            Path current =
                    holder.store()
                            .resolve(
                                    ReplicaListing.vnodeDirectory(PREFIX, vnode)
                                            + "/chk-1/CURRENT");
            Files.createDirectories(current);
            Files.writeString(current.resolve("in-the-way"), "x");
            inTheWay.add(current);
        }
        assertThatThrownBy(() -> harness.checkpoint(backend, 1))
                .as("checkpoint 1, whose CURRENT files the holder cannot store")
                .isInstanceOf(Exception.class);
        Map<Path, Object> stored = sstCopiesOnHolder();
        assertThat(stored).as("SST copies the holder stored before the round failed").isNotEmpty();

        for (Path current : inTheWay) {
            org.apache.flink.util.FileUtils.deleteDirectory(current.toFile());
        }
        harness.checkpoint(backend, 2);

        Map<Path, Object> after = new HashMap<>();
        for (Path copy : stored.keySet()) {
            after.put(copy, Files.getAttribute(copy, "unix:ino"));
        }
        assertThat(after)
                .as("the copies stored by the failed round were not sent again")
                .isEqualTo(stored);
        Set<String> listed = new HashSet<>();
        for (int vnode : backend.ownedVnodes()) {
            String vnodeDirectory = ReplicaListing.vnodeDirectory(PREFIX, vnode);
            for (String file : ssts(listing(vnodeDirectory, 2))) {
                listed.add(holder.store().resolve(vnodeDirectory + "/" + file).toString());
            }
        }
        assertThat(listed)
                .as("checkpoint 2's listings name them")
                .containsAll(stored.keySet().stream().map(Path::toString).toList());
    }

    /** Every complete SST copy in the holder's store, with its inode. */
    private Map<Path, Object> sstCopiesOnHolder() throws Exception {
        Map<Path, Object> copies = new HashMap<>();
        try (Stream<Path> files = Files.walk(holder.store().root())) {
            for (Path file : files.toList()) {
                String name = file.getFileName().toString();
                if (name.endsWith(".sst") && Files.isRegularFile(file)) {
                    copies.put(file, Files.getAttribute(file, "unix:ino"));
                }
            }
        }
        return copies;
    }

    /**
     * A checkpoint's replication travels while its vnodes upload to the checkpoint storage, not
     * before they start: a chain member that stores nothing until the first vnode upload began
     * still gets every vnode's replica, and the checkpoint completes. Run one after the other, the
     * replication would wait for an upload that only starts once it ended, and time out.
     */
    @Test
    void theChainReceivesTheCheckpointWhileItsVnodesUpload() throws Exception {
        VnodeKeyedStateBackend<Long> backend = replicatedBackend();
        CountDownLatch uploading = new CountDownLatch(1);
        holder.store().listen(new HoldsCommits(holder, uploading));

        SnapshotResult<KeyedStateHandle> result =
                FutureUtils.runIfNotDoneAndGet(
                        backend.snapshot(
                                1,
                                System.currentTimeMillis(),
                                new SignalsUploads(storage(1), uploading),
                                CheckpointOptions.forCheckpointWithDefaultLocation()));

        assertThat(result.getJobManagerOwnedSnapshot()).isNotNull();
        for (int vnode : backend.ownedVnodes()) {
            assertThat(
                            holder.store()
                                    .file(
                                            ReplicaListing.path(
                                                    ReplicaListing.vnodeDirectory(PREFIX, vnode),
                                                    1)))
                    .as("vnode %d's listing of checkpoint 1 on the holder", vnode)
                    .isPresent();
        }
    }

    /**
     * A checkpoint aborted, or its task cancelled, while its replication is in flight: the
     * asynchronous phase ends cancelled and takes its replication thread with it, so no thread is
     * left holding the subtask's replication rounds until the replication timeout.
     */
    @Test
    void aCheckpointCancelledDuringItsReplicationLeavesNoReplicationThread() throws Exception {
        VnodeKeyedStateBackend<Long> backend = replicatedBackend();
        CountDownLatch released = new CountDownLatch(1);
        holder.store().listen(new HoldsCommits(holder, released));
        RunnableFuture<SnapshotResult<KeyedStateHandle>> asyncPhase = snapshotSyncPhase(backend, 1);
        Thread asyncThread = new Thread(asyncPhase, "asynchronous-phase-of-checkpoint-1");
        try {
            asyncThread.start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (replicationThreadsOfCheckpoint(1).isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(replicationThreadsOfCheckpoint(1))
                    .as("the replication in flight")
                    .isNotEmpty();

            asyncPhase.cancel(true);
            asyncThread.join(10_000);

            assertThat(asyncThread.isAlive()).as("the asynchronous phase still runs").isFalse();
            assertThat(replicationThreadsOfCheckpoint(1)).as("replication threads left").isEmpty();
            assertThat(asyncPhase.isCancelled()).as("the snapshot is cancelled").isTrue();
        } finally {
            released.countDown();
        }
    }

    private static List<Thread> replicationThreadsOfCheckpoint(long checkpointId) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(Thread::isAlive)
                .filter(t -> t.getName().startsWith("rhino-replication-subtask-"))
                .filter(t -> t.getName().endsWith("-checkpoint-" + checkpointId))
                .toList();
    }

    /** A subtask's backend with state, replicating to the holder. */
    private VnodeKeyedStateBackend<Long> replicatedBackend() throws Exception {
        harness = new VnodeBackendHarness(SPEC, tmp.resolve("checkpoints"));
        primary = service("127.0.0.2", "primary");
        holder = service("127.0.0.3", "holder");
        VnodeKeyedStateBackend<Long> backend = harness.create(0, List.of());
        put(backend);
        backend.replicateWith(replication(new AtomicLong()));
        return backend;
    }

    /** Runs the synchronous phase of a checkpoint; the asynchronous phase is returned, not run. */
    private RunnableFuture<SnapshotResult<KeyedStateHandle>> snapshotSyncPhase(
            VnodeKeyedStateBackend<Long> backend, long checkpointId) throws Exception {
        return backend.snapshot(
                checkpointId,
                System.currentTimeMillis(),
                storage(checkpointId),
                CheckpointOptions.forCheckpointWithDefaultLocation());
    }

    private CheckpointStreamFactory storage(long checkpointId) throws IOException {
        return new FsCheckpointStreamFactory(
                FileSystem.getLocalFileSystem(),
                new org.apache.flink.core.fs.Path(
                        Files.createDirectories(tmp.resolve("chk-" + checkpointId)).toUri()),
                new org.apache.flink.core.fs.Path(
                        Files.createDirectories(tmp.resolve("shared")).toUri()),
                1024,
                4096);
    }

    private static Set<String> sstNames(Path rocksDbCheckpoint) throws Exception {
        try (Stream<Path> files = Files.list(rocksDbCheckpoint)) {
            return files.map(f -> f.getFileName().toString())
                    .filter(f -> f.endsWith(".sst"))
                    .collect(Collectors.toSet());
        }
    }

    private static List<String> ssts(List<String> listed) {
        return listed.stream().filter(f -> f.endsWith(".sst")).toList();
    }

    private static String directoryOf(String listedFile) {
        return listedFile.substring(0, listedFile.lastIndexOf('/'));
    }

    private PeerVnodeReplication replication(AtomicLong sent) {
        return replication(holder, sent);
    }

    private PeerVnodeReplication replication(ReplicationService member, AtomicLong sent) {
        return ReplicationFixtures.chain(primary, member, PREFIX, tmp.resolve("capture"), sent);
    }

    private ReplicationService service(String host, String name) throws Exception {
        return ReplicationFixtures.service(host, tmp.resolve(name), "seed");
    }

    private List<String> listing(String vnodeDirectory, long checkpoint) throws Exception {
        return ReplicaListing.read(
                        holder.store()
                                .file(ReplicaListing.path(vnodeDirectory, checkpoint))
                                .orElseThrow())
                .files();
    }

    private Map<String, Object> sstInodes(String vnodeDirectory, List<String> listed)
            throws Exception {
        Map<String, Object> inodes = new HashMap<>();
        for (String file : listed) {
            if (file.endsWith(".sst")) {
                Path copy = holder.store().file(vnodeDirectory + "/" + file).orElseThrow();
                inodes.put(file, Files.getAttribute(copy, "unix:ino"));
            }
        }
        return inodes;
    }

    private static void put(VnodeKeyedStateBackend<Long> backend) throws Exception {
        ValueState<String> state =
                backend.getPartitionedState(
                        VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, VALUE);
        for (long key = 0; key < 5_000; key++) {
            backend.setCurrentKey(key);
            state.update("value-" + key + "-".repeat((int) (key % 40)));
        }
    }

    /** A holder's store that commits a file only once {@code released} opened (20 s at most). */
    private static final class HoldsCommits implements CommitListener {
        private final VnodeReplicaCollector collector;
        private final CountDownLatch released;

        HoldsCommits(ReplicationService holder, CountDownLatch released) {
            this.collector = new VnodeReplicaCollector(holder.store());
            this.released = released;
        }

        @Override
        public void beforeCommit(String relativePath, Path file) throws IOException {
            try {
                if (!released.await(20, TimeUnit.SECONDS)) {
                    throw new IOException("Still held when " + relativePath + " arrived");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException(e);
            }
            collector.beforeCommit(relativePath, file);
        }

        @Override
        public void committed(String relativePath) {
            collector.committed(relativePath);
        }
    }

    /** The checkpoint storage, telling when the first stream to it opens. */
    private static final class SignalsUploads implements CheckpointStreamFactory {
        private final CheckpointStreamFactory storage;
        private final CountDownLatch uploading;

        SignalsUploads(CheckpointStreamFactory storage, CountDownLatch uploading) {
            this.storage = storage;
            this.uploading = uploading;
        }

        @Override
        public CheckpointStateOutputStream createCheckpointStateOutputStream(
                CheckpointedStateScope scope) throws IOException {
            uploading.countDown();
            return storage.createCheckpointStateOutputStream(scope);
        }

        @Override
        public boolean canFastDuplicate(StreamStateHandle handle, CheckpointedStateScope scope)
                throws IOException {
            return storage.canFastDuplicate(handle, scope);
        }

        @Override
        public List<StreamStateHandle> duplicate(
                List<StreamStateHandle> handles, CheckpointedStateScope scope) throws IOException {
            return storage.duplicate(handles, scope);
        }

        @Override
        public void reusePreviousStateHandle(Collection<? extends StreamStateHandle> handles) {
            storage.reusePreviousStateHandle(handles);
        }

        @Override
        public boolean couldReuseStateHandle(StreamStateHandle handle) {
            return storage.couldReuseStateHandle(handle);
        }
    }
}
