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

import io.rhino.flink.config.RhinoOptions;
import io.rhino.flink.spec.RhinoOperatorSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.RunnableFuture;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.state.IncrementalKeyedStateHandle.HandleAndLocalPath;
import org.apache.flink.runtime.state.IncrementalRemoteKeyedStateHandle;
import org.apache.flink.runtime.state.KeyGroupedInternalPriorityQueue;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.PlaceholderStreamStateHandle;
import org.apache.flink.runtime.state.SharedStateRegistryImpl;
import org.apache.flink.runtime.state.SnapshotResult;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.api.operators.TimerHeapInternalTimer;
import org.apache.flink.streaming.api.operators.TimerSerializer;
import org.apache.flink.util.FileUtils;
import org.apache.flink.util.concurrent.FutureUtils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A checkpoint reuses the snapshot of every vnode nothing was written to since the last completed
 * checkpoint: no RocksDB checkpoint, no upload, its shared files placeholders that Flink's {@code
 * SharedStateRegistry} (a real one, deleting files as the JobManager does) keeps. Restores from
 * such checkpoints and from a savepoint after them give back every vnode's state.
 */
class IdleVnodeCheckpointTest {

    private static final RhinoOperatorSpec SPEC = new RhinoOperatorSpec("op", 128, 16, 1, 1);
    private static final int VNODES = SPEC.numVnodes();
    // Flink's default state.storage.fs.memory-threshold: a vnode's private state is bytes
    private static final int INLINE = 20 * 1024;
    private static final ValueStateDescriptor<Long> VALUE =
            new ValueStateDescriptor<>("value", Types.LONG);
    private static final TimerSerializer<Long, VoidNamespace> TIMER =
            new TimerSerializer<>(LongSerializer.INSTANCE, VoidNamespaceSerializer.INSTANCE);

    @TempDir Path tmp;
    private Path checkpoints;
    private VnodeBackendHarness harness;
    private final SharedStateRegistryImpl jobManager = new SharedStateRegistryImpl(Runnable::run);
    // what each key should read, and the timers each backend should hold
    private final Map<Long, Long> values = new TreeMap<>();
    private final List<Long> timers = new ArrayList<>();
    private final Map<Long, Long> timerKeys = new TreeMap<>();

    @BeforeEach
    void setUp() {
        checkpoints = tmp.resolve("checkpoints");
        harness = new VnodeBackendHarness(SPEC, checkpoints);
    }

    @AfterEach
    void tearDown() throws Exception {
        jobManager.close();
        harness.close();
    }

    @Test
    void idleVnodesAreNotSnapshottedAgainAndTheirCheckpointsRestore() throws Exception {
        VnodeKeyedStateBackend<Long> backend = harness.create(0, List.of());
        assertThat(backend.ownedVnodes()).hasSize(VNODES);
        for (int vnode = 0; vnode < VNODES; vnode++) {
            write(backend, vnode, 3_000, 1); // SST files above the inline threshold
        }
        addTimers(backend, 0, 20);
        complete(1, checkpoint(backend, 1));
        assertThat(backend.lastCheckpointSnapshottedVnodes()).isEqualTo(VNODES);

        // nothing written: every vnode's snapshot of checkpoint 1 is reused
        Set<String> sharedBefore = sharedFiles();
        assertThat(sharedBefore).hasSizeGreaterThanOrEqualTo(VNODES);
        IncrementalRemoteKeyedStateHandle second = complete(2, checkpoint(backend, 2));
        assertThat(backend.lastCheckpointReusedVnodes()).isEqualTo(VNODES);
        assertThat(backend.lastCheckpointSnapshottedVnodes()).isZero();
        assertThat(second.getSharedState())
                .as("every shared file of checkpoint 2 a placeholder")
                .isNotEmpty()
                .allSatisfy(
                        file ->
                                assertThat(file.getHandle())
                                        .isInstanceOf(PlaceholderStreamStateHandle.class));
        assertThat(second.getPrivateState()).as("no private file").isEmpty();
        assertThat(sharedFiles()).as("nothing uploaded").isEqualTo(sharedBefore);

        // checkpoint 1 is subsumed: Flink deleted its directory and the files only it used
        FileUtils.deleteDirectory(checkpoints.resolve("chk-1").toFile());
        assertRestores(second);

        // one state write and one timer, each in a vnode of its own: only those two snapshot
        write(backend, 3, 3_000, 7);
        addTimers(backend, 9, 1);
        Set<String> sharedBeforeThird = sharedFiles();
        IncrementalRemoteKeyedStateHandle third = complete(3, checkpoint(backend, 3));
        assertThat(backend.lastCheckpointSnapshottedVnodes()).isEqualTo(2);
        assertThat(backend.lastCheckpointReusedVnodes()).isEqualTo(VNODES - 2);
        assertThat(vnodesWithUploads(third)).containsExactlyInAnyOrder(3, 9);
        Set<String> uploaded = new HashSet<>(sharedFiles());
        uploaded.removeAll(sharedBeforeThird);
        assertThat(uploaded).as("vnode 3's new file (vnode 9's is inlined)").hasSize(1);

        FileUtils.deleteDirectory(checkpoints.resolve("chk-2").toFile());
        assertRestores(third);

        // and the two written vnodes are idle again once checkpoint 3 completed
        complete(4, checkpoint(backend, 4));
        assertThat(backend.lastCheckpointReusedVnodes()).isEqualTo(VNODES);
        FileUtils.deleteDirectory(checkpoints.resolve("chk-3").toFile());
        write(backend, 3, 10, 11); // vnode 3's next snapshot refers to what 3 uploaded
        IncrementalRemoteKeyedStateHandle fifth = complete(5, checkpoint(backend, 5));
        assertThat(vnodesWithUploads(fifth)).containsExactly(3);
        FileUtils.deleteDirectory(checkpoints.resolve("chk-4").toFile());
        VnodeKeyedStateBackend<Long> restored = assertRestores(fifth);

        // the restored backend's next checkpoint refers to the reused files it restored
        write(restored, 6, 3_000, 13);
        IncrementalRemoteKeyedStateHandle afterRestore = complete(6, checkpoint(restored, 6));
        assertThat(restored.lastCheckpointSnapshottedVnodes())
                .as("a restored vnode has no snapshot of its own to reuse yet")
                .isEqualTo(VNODES);
        assertThat(vnodesWithUploads(afterRestore))
                .as("6 written; 0 and 9 had their timers polled and added again")
                .containsExactlyInAnyOrder(0, 6, 9);
        FileUtils.deleteDirectory(checkpoints.resolve("chk-5").toFile());
        assertRestores(afterRestore);
    }

    @Test
    void aSavepointAfterIdleCheckpointsHoldsEveryVnode() throws Exception {
        VnodeKeyedStateBackend<Long> backend = harness.create(0, List.of());
        for (int vnode = 0; vnode < VNODES; vnode++) {
            write(backend, vnode, 100, 1);
        }
        addTimers(backend, 5, 10);
        complete(1, checkpoint(backend, 1));
        complete(2, checkpoint(backend, 2));
        assertThat(backend.lastCheckpointReusedVnodes()).isEqualTo(VNODES);

        KeyedStateHandle savepoint = harness.savepoint(backend, 3, tmp.resolve("savepoint"), false);
        assertThat(((IncrementalRemoteKeyedStateHandle) savepoint).getSharedState())
                .noneMatch(file -> file.getHandle() instanceof PlaceholderStreamStateHandle);
        assertThat(vnodesWithUploads((IncrementalRemoteKeyedStateHandle) savepoint))
                .hasSize(VNODES);

        // the savepoint alone: no checkpoint file left
        FileUtils.deleteDirectory(checkpoints.toFile());
        assertRestores(savepoint);
    }

    /**
     * Checkpoint 2 snapshotted the vnodes before checkpoint 1's completion was heard (its base is
     * older than 1): no checkpoint reuses 1's snapshots, whose files 2 may not refer to, until a
     * snapshot of the vnodes at least as recent as 2 completed.
     */
    @Test
    void noReuseWhileALaterSnapshotOfTheVnodeIsUnconfirmed() throws Exception {
        VnodeKeyedStateBackend<Long> backend = harness.create(0, List.of());
        for (int vnode = 0; vnode < VNODES; vnode++) {
            write(backend, vnode, 100, 1);
        }
        KeyedStateHandle first =
                FutureUtils.runIfNotDoneAndGet(harness.startCheckpoint(backend, 1, INLINE))
                        .getJobManagerOwnedSnapshot();
        FutureUtils.runIfNotDoneAndGet(harness.startCheckpoint(backend, 2, INLINE));
        assertThat(backend.lastCheckpointSnapshottedVnodes()).isEqualTo(VNODES);
        register(1, first);
        backend.notifyCheckpointComplete(1);

        complete(3, checkpoint(backend, 3));
        assertThat(backend.lastCheckpointSnapshottedVnodes())
                .as("checkpoint 2 is not confirmed")
                .isEqualTo(VNODES);
        complete(4, checkpoint(backend, 4));
        assertThat(backend.lastCheckpointReusedVnodes()).isEqualTo(VNODES);
    }

    /**
     * Private state above the inline threshold is a file in its checkpoint's exclusive directory,
     * which Flink deletes with that checkpoint: a reusing checkpoint refers to none, it holds the
     * bytes in its manifest.
     */
    @Test
    void privateFilesOfAReusedSnapshotBecomeBytesOfTheReusingCheckpoint() throws Exception {
        VnodeKeyedStateBackend<Long> backend = harness.create(0, List.of());
        for (int vnode = 0; vnode < VNODES; vnode++) {
            write(backend, vnode, 100, 1);
        }
        IncrementalRemoteKeyedStateHandle first =
                complete(
                        1,
                        (IncrementalRemoteKeyedStateHandle) harness.checkpoint(backend, 1, 1024));
        assertThat(first.getPrivateState()).as("private files").hasSizeGreaterThanOrEqualTo(VNODES);
        for (long id = 2; id <= 3; id++) {
            IncrementalRemoteKeyedStateHandle reused =
                    complete(
                            id,
                            (IncrementalRemoteKeyedStateHandle)
                                    harness.checkpoint(backend, id, 1024));
            assertThat(backend.lastCheckpointReusedVnodes()).isEqualTo(VNODES);
            assertThat(reused.getPrivateState()).as("no private file").isEmpty();
            FileUtils.deleteDirectory(checkpoints.resolve("chk-" + (id - 1)).toFile());
            assertRestores(reused);
        }
    }

    /**
     * With another checkpoint still uploading, which may complete first and subsume the checkpoint
     * whose files a reuse copies, every vnode is snapshotted.
     */
    @Test
    void noReuseWhileAnotherCheckpointRuns() throws Exception {
        VnodeKeyedStateBackend<Long> backend = harness.create(0, List.of());
        for (int vnode = 0; vnode < VNODES; vnode++) {
            write(backend, vnode, 100, 1);
        }
        complete(1, checkpoint(backend, 1));
        RunnableFuture<SnapshotResult<KeyedStateHandle>> second =
                harness.startCheckpoint(backend, 2, INLINE);
        assertThat(backend.lastCheckpointReusedVnodes()).isEqualTo(VNODES);
        RunnableFuture<SnapshotResult<KeyedStateHandle>> third =
                harness.startCheckpoint(backend, 3, INLINE);
        assertThat(backend.lastCheckpointSnapshottedVnodes()).isEqualTo(VNODES);
        FutureUtils.runIfNotDoneAndGet(second);
        FutureUtils.runIfNotDoneAndGet(third);
    }

    @Test
    void reuseCanBeTurnedOff() throws Exception {
        harness.withConfiguration(
                new Configuration().set(RhinoOptions.STATE_REUSE_IDLE_VNODES, false));
        VnodeKeyedStateBackend<Long> backend = harness.create(0, List.of());
        for (int vnode = 0; vnode < VNODES; vnode++) {
            write(backend, vnode, 100, 1);
        }
        complete(1, checkpoint(backend, 1));
        complete(2, checkpoint(backend, 2));
        assertThat(backend.lastCheckpointReusedVnodes()).isZero();
        assertThat(backend.lastCheckpointSnapshottedVnodes()).isEqualTo(VNODES);
    }

    // ------------------------------------------------------------------ helpers

    private IncrementalRemoteKeyedStateHandle checkpoint(
            VnodeKeyedStateBackend<Long> backend, long checkpointId) throws Exception {
        KeyedStateHandle handle =
                FutureUtils.runIfNotDoneAndGet(
                                harness.startCheckpoint(backend, checkpointId, INLINE))
                        .getJobManagerOwnedSnapshot();
        backend.notifyCheckpointComplete(checkpointId);
        return (IncrementalRemoteKeyedStateHandle) handle;
    }

    /**
     * The JobManager registers the checkpoint and subsumes the older ones (deleting the shared
     * files only they used); returns the handle as the subtask reported it.
     */
    private IncrementalRemoteKeyedStateHandle complete(
            long checkpointId, IncrementalRemoteKeyedStateHandle handle) {
        IncrementalRemoteKeyedStateHandle reported = copy(handle);
        register(checkpointId, handle);
        jobManager.unregisterUnusedState(checkpointId);
        return reported;
    }

    private void register(long checkpointId, KeyedStateHandle handle) {
        jobManager.registerAll(List.of(handle), checkpointId);
        jobManager.checkpointCompleted(checkpointId);
    }

    private static IncrementalRemoteKeyedStateHandle copy(IncrementalRemoteKeyedStateHandle h) {
        return new IncrementalRemoteKeyedStateHandle(
                h.getBackendIdentifier(),
                h.getKeyGroupRange(),
                h.getCheckpointId(),
                h.getSharedState().stream()
                        .map(file -> HandleAndLocalPath.of(file.getHandle(), file.getLocalPath()))
                        .toList(),
                h.getPrivateState(),
                h.getMetaDataStateHandle(),
                h.getCheckpointedSize());
    }

    /** The vnodes the reported handle uploaded a shared file of. */
    private static Set<Integer> vnodesWithUploads(IncrementalRemoteKeyedStateHandle reported) {
        Set<Integer> vnodes = new HashSet<>();
        for (HandleAndLocalPath file : reported.getSharedState()) {
            if (!(file.getHandle() instanceof PlaceholderStreamStateHandle)) {
                String path = file.getLocalPath();
                vnodes.add(Integer.parseInt(path.substring("vnode-".length(), path.indexOf('/'))));
            }
        }
        return vnodes;
    }

    private Set<String> sharedFiles() throws Exception {
        try (Stream<Path> files = Files.list(checkpoints.resolve("shared"))) {
            return files.map(file -> file.getFileName().toString()).collect(Collectors.toSet());
        }
    }

    /** value = key * factor, for the first {@code count} keys of the vnode */
    private void write(VnodeKeyedStateBackend<Long> backend, int vnode, int count, int factor)
            throws Exception {
        ValueState<Long> state = valueState(backend);
        for (long key : harness.keysOf(vnode, count)) {
            backend.setCurrentKey(key);
            state.update(key * factor);
            values.put(key, key * factor);
        }
    }

    /** One timer per key, for the first {@code count} keys of the vnode. */
    private void addTimers(VnodeKeyedStateBackend<Long> backend, int vnode, int count) {
        KeyGroupedInternalPriorityQueue<TimerHeapInternalTimer<Long, VoidNamespace>> queue =
                backend.create("timers", TIMER);
        for (long key : harness.keysOf(vnode, count)) {
            long timestamp = 1_000 + key + 100_000L * timers.size();
            queue.add(new TimerHeapInternalTimer<>(timestamp, key, VoidNamespace.INSTANCE));
            timers.add(timestamp);
            timerKeys.put(timestamp, key);
        }
    }

    /** A new backend restored from {@code handle} reads every value and timer written. */
    private VnodeKeyedStateBackend<Long> assertRestores(KeyedStateHandle handle) throws Exception {
        VnodeKeyedStateBackend<Long> restored = harness.create(0, List.of(handle));
        assertThat(restored.ownedVnodes()).hasSize(VNODES);
        ValueState<Long> state = valueState(restored);
        for (Map.Entry<Long, Long> entry : values.entrySet()) {
            restored.setCurrentKey(entry.getKey());
            assertThat(state.value()).as("key %d", entry.getKey()).isEqualTo(entry.getValue());
        }
        KeyGroupedInternalPriorityQueue<TimerHeapInternalTimer<Long, VoidNamespace>> queue =
                restored.create("timers", TIMER);
        List<Long> restoredTimers = new ArrayList<>();
        for (TimerHeapInternalTimer<Long, VoidNamespace> timer = queue.poll();
                timer != null;
                timer = queue.poll()) {
            restoredTimers.add(timer.getTimestamp());
        }
        assertThat(restoredTimers).containsExactlyInAnyOrderElementsOf(timers);
        for (long timestamp : restoredTimers) { // polled: put back for a later checkpoint
            queue.add(
                    new TimerHeapInternalTimer<>(
                            timestamp, timerKeys.get(timestamp), VoidNamespace.INSTANCE));
        }
        return restored;
    }

    private static ValueState<Long> valueState(VnodeKeyedStateBackend<Long> backend)
            throws Exception {
        return backend.getPartitionedState(
                VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, VALUE);
    }
}
