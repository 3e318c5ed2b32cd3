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
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rhino.flink.config.RhinoOptions;
import io.rhino.flink.spec.RhinoOperatorSpec;
import io.rhino.flink.testjobs.StallingFileSystemFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.IllegalConfigurationException;
import org.apache.flink.core.fs.CloseableRegistry;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.state.rocksdb.RocksDBOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A restoring subtask opens its vnodes several at once ({@code rhino.handover.threads}) and ends
 * with the same state as one that opens them one after the other; a restore that fails on one
 * vnode, or whose task is cancelled (its thread interrupted) while it waits for a vnode's handles
 * or for the opens, or while a download stalls, leaves no RocksDB instance behind.
 */
class ParallelVnodeRestoreTest {

    private static final RhinoOperatorSpec SPEC = new RhinoOperatorSpec("op", 128, 8, 1, 1);

    /** Subtask 0 owns the 8 vnodes, subtask 1 none: a restore's target for the cancellations. */
    private static final RhinoOperatorSpec WITH_STANDBY = new RhinoOperatorSpec("op", 128, 8, 2, 1);

    private static final ValueStateDescriptor<Long> VALUE =
            new ValueStateDescriptor<>("value", Types.LONG);
    private static final int KEYS_PER_VNODE = 300;

    @TempDir Path tmp;
    private VnodeBackendHarness harness;

    @AfterEach
    void tearDown() throws Exception {
        if (harness != null) {
            harness.close();
        }
    }

    @ParameterizedTest(name = "{0} at a time")
    @ValueSource(ints = {1, 3, 8})
    void everyVnodeRestoresItsOwnState(int threads) throws Exception {
        harness = harnessWithThreads(threads);
        VnodeKeyedStateBackend<Long> original = harness.create(0, List.of());
        Map<Long, Long> written = fill(original);
        KeyedStateHandle checkpoint = harness.checkpoint(original, 1);

        VnodeKeyedStateBackend<Long> restored = harness.create(0, List.of(checkpoint));

        assertThat(restored.ownedVnodes()).containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
        assertThat(read(restored, written.keySet())).isEqualTo(written);
    }

    @Test
    void aRestoreThatFailsOnOneVnodeLeavesNoInstanceOpen() throws Exception {
        // one download at a time within a vnode: Flink's downloader closes a vnode's other
        // downloads when one fails, and the first to report could be one of those instead
        Configuration config = new Configuration();
        config.set(RhinoOptions.HANDOVER_THREADS, 4);
        config.set(RocksDBOptions.CHECKPOINT_TRANSFER_THREAD_NUM, 1);
        harness =
                new VnodeBackendHarness(SPEC, tmp.resolve("checkpoints")).withConfiguration(config);
        VnodeKeyedStateBackend<Long> original = harness.create(0, List.of());
        fill(original);
        KeyedStateHandle checkpoint = harness.checkpoint(original, 1);
        assertThat(rocksDbInstancesIn(harness.workingDirectory(0).toPath()))
                .as("the original's instances, where a restore's would be")
                .isEqualTo(SPEC.numVnodes());
        Path lost = largestSharedFile();
        Files.delete(lost);

        assertThatThrownBy(() -> harness.create(0, List.of(checkpoint)))
                .hasStackTraceContaining(lost.getFileName().toString());
        // the failed backend's working directory: neither adopted nor opened instances remain
        assertThat(rocksDbInstancesIn(harness.workingDirectory(0).toPath())).isZero();
    }

    /**
     * A vnode whose task-local copy does not open (here RocksDB's CURRENT names a MANIFEST that is
     * not there) restores from its fallback, the checkpoint storage's handles, and the others from
     * theirs: one damaged copy must not fail the restore, or every restore after it. Without a
     * fallback the same plan fails.
     */
    @ParameterizedTest(name = "{0} at a time")
    @ValueSource(ints = {1, 4})
    void aVnodeWhoseLocalCopyDoesNotOpenRestoresFromItsFallback(int threads) throws Exception {
        harness = harnessWithThreads(WITH_STANDBY, threads);
        VnodeKeyedStateBackend<Long> original = harness.create(0, List.of());
        Map<Long, Long> written = fill(original);
        KeyedStateHandle checkpoint = harness.checkpoint(original, 1);
        Map<Integer, List<KeyedStateHandle>> handlesByVnode =
                VnodeRestore.read(
                                List.of(checkpoint),
                                WITH_STANDBY,
                                0,
                                WITH_STANDBY.parallelism(),
                                TaskManagerLocalCopies.none(),
                                getClass().getClassLoader())
                        .handlesByVnode();
        Path damaged = Files.createDirectories(tmp.resolve("damaged-copy"));
        Files.writeString(damaged.resolve("CURRENT"), "MANIFEST-000099\n");
        KeyedStateHandle damagedCopy =
                TaskLocalVnodes.fromCopy(handlesByVnode.get(3), damaged).orElseThrow();
        List<ParallelVnodeRestore.Planned> withFallback = new ArrayList<>();
        List<ParallelVnodeRestore.Planned> without = new ArrayList<>();
        handlesByVnode.forEach(
                (vnode, handles) -> {
                    List<KeyedStateHandle> first = vnode == 3 ? List.of(damagedCopy) : handles;
                    withFallback.add(
                            new ParallelVnodeRestore.Planned(
                                    vnode, () -> first, vnode == 3 ? handles : null));
                    without.add(new ParallelVnodeRestore.Planned(vnode, () -> first));
                });
        ParallelVnodeRestore restore = new ParallelVnodeRestore("test", threads);

        VnodeKeyedStateBackend<Long> standby = harness.create(1, List.of());
        assertThat(restore.restore(standby, withFallback)).containsExactly(3);
        assertThat(standby.ownedVnodes()).containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
        assertThat(read(standby, written.keySet())).isEqualTo(written);

        VnodeKeyedStateBackend<Long> another = harness.create(1, List.of());
        assertThatThrownBy(() -> restore.restore(another, without))
                .hasStackTraceContaining("MANIFEST-000099");
    }

    /**
     * A task cancelled while it waits for a replica's fetch (here: a vnode's handles that wait
     * until interrupted) must stop and leave none of the vnodes that were already opening.
     */
    @Test
    @Timeout(60) // a restore that never asked for the last vnode's handles would wait forever
    void aRestoreCancelledWhileWaitingForAVnodesHandlesLeavesNoInstanceOpen() throws Exception {
        harness = harnessWithThreads(WITH_STANDBY, 4);
        List<ParallelVnodeRestore.Planned> plan = planFromACheckpoint();
        CountDownLatch waiting = new CountDownLatch(1);
        int last = plan.size() - 1;
        plan.set(
                last,
                new ParallelVnodeRestore.Planned(
                        plan.get(last).vnode(),
                        () -> {
                            waiting.countDown();
                            new CountDownLatch(1).await(); // a fetch that never arrives
                            throw new AssertionError("not interrupted");
                        }));
        VnodeKeyedStateBackend<Long> standby = harness.create(1, List.of());
        Thread task = Thread.currentThread();
        Thread canceller =
                new Thread(
                        () -> {
                            try {
                                waiting.await();
                                task.interrupt(); // what Flink's task cancellation does
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        });
        canceller.start();

        try {
            assertCancelledWithNothingLeft(standby, plan);
        } finally {
            canceller.join();
        }
    }

    /**
     * Vnodes ask for their handles at once, each on the thread that opens it: checking a replica's
     * files reads them all, and one vnode after another on the task thread made the restore from a
     * replica on the spot grow with the state.
     */
    @Test
    @Timeout(60)
    void vnodesAskForTheirHandlesAtOnce() throws Exception {
        harness = harnessWithThreads(WITH_STANDBY, 4);
        List<ParallelVnodeRestore.Planned> plan = planFromACheckpoint();
        CountDownLatch asking = new CountDownLatch(4);
        for (int i = 0; i < 4; i++) {
            ParallelVnodeRestore.Planned planned = plan.get(i);
            plan.set(
                    i,
                    new ParallelVnodeRestore.Planned(
                            planned.vnode(),
                            () -> {
                                asking.countDown();
                                assertThat(asking.await(10, TimeUnit.SECONDS))
                                        .as("four vnodes asking for their handles at once")
                                        .isTrue();
                                return planned.handles().get();
                            }));
        }
        VnodeKeyedStateBackend<Long> standby = harness.create(1, List.of());

        new ParallelVnodeRestore("at once", 4).restore(standby, plan);

        assertThat(standby.ownedVnodes()).hasSize(plan.size());
    }

    /**
     * A task cancelled while its task thread waits for the opens: every open still running is
     * waited for and dropped, and the restore ends with the interruption.
     */
    @Test
    @Timeout(60)
    void aRestoreCancelledWhileVnodesOpenDropsThem() throws Exception {
        harness = harnessWithThreads(WITH_STANDBY, 4);
        List<ParallelVnodeRestore.Planned> plan = planFromACheckpoint();
        int last = plan.size() - 1;
        ParallelVnodeRestore.Planned lastVnode = plan.get(last);
        Thread task = Thread.currentThread();
        plan.set(
                last,
                new ParallelVnodeRestore.Planned(
                        lastVnode.vnode(),
                        () -> {
                            // cancelled once the last vnode is asked for its handles, while
                            // others open
                            task.interrupt(); // what Flink's task cancellation does
                            return lastVnode.handles().get();
                        }));
        VnodeKeyedStateBackend<Long> standby = harness.create(1, List.of());

        assertCancelledWithNothingLeft(standby, plan);
    }

    /**
     * A task cancelled while one vnode's download from the checkpoint storage stalls: Flink closes
     * the restore's streams through the task's cancel registry, then interrupts the task thread.
     * The stalled download must end with its stream, so the restore ends at once instead of waiting
     * out the opens still running, and leaves no instance.
     */
    @Test
    @Timeout(120)
    void aRestoreCancelledWhileADownloadStallsEndsWhenFlinkClosesItsStreams() throws Exception {
        harness = harnessWithThreads(4).withCheckpointScheme(StallingFileSystemFactory.SCHEME);
        VnodeKeyedStateBackend<Long> original = harness.create(0, List.of());
        fill(original);
        KeyedStateHandle checkpoint = harness.checkpoint(original, 1);
        StallingFileSystemFactory.Stall stall =
                StallingFileSystemFactory.stallReadsOf(
                        largestSharedFile().getFileName().toString());
        CloseableRegistry cancelRegistry = new CloseableRegistry();
        Thread task = Thread.currentThread();
        Thread canceller =
                new Thread(
                        () -> {
                            try {
                                if (stall.awaitStalledRead(60, TimeUnit.SECONDS)) {
                                    // Flink's cancel: the task's closeables, then the interrupt
                                    cancelRegistry.close();
                                    task.interrupt();
                                }
                            } catch (Exception e) {
                                throw new IllegalStateException(e);
                            }
                        });
        canceller.start();

        long start = System.nanoTime();
        try {
            // the interrupt, or the closed stream's failure if it reaches the task thread first
            assertThatThrownBy(() -> harness.create(0, List.of(checkpoint), cancelRegistry))
                    .isInstanceOfAny(InterruptedException.class, IOException.class);
        } finally {
            Thread.interrupted();
            StallingFileSystemFactory.disarm();
            canceller.join();
        }
        long tookMillis = (System.nanoTime() - start) / 1_000_000;

        assertThat(stall.awaitStalledRead(0, TimeUnit.SECONDS))
                .as("a vnode's download stalled")
                .isTrue();
        assertThat(tookMillis)
                .as("the cancelled restore ended without waiting out the stalled open")
                .isLessThan(ParallelVnodeRestore.ABANDON_WAIT_MILLIS / 2);
        assertNoInstanceNowOrLater(harness.workingDirectory(0).toPath());
    }

    @Test
    void threadsBelowOneAreRefusedWithTheOptionsName() {
        Configuration config = new Configuration();
        config.set(RhinoOptions.HANDOVER_THREADS, 0);
        assertThatThrownBy(
                        () ->
                                new RhinoStateBackendFactory()
                                        .createFromConfig(config, getClass().getClassLoader()))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessage("rhino.handover.threads: 0 (expected: 1 or more)");
    }

    private VnodeBackendHarness harnessWithThreads(int threads) {
        return harnessWithThreads(SPEC, threads);
    }

    private VnodeBackendHarness harnessWithThreads(RhinoOperatorSpec spec, int threads) {
        Configuration config = new Configuration();
        config.set(RhinoOptions.HANDOVER_THREADS, threads);
        return new VnodeBackendHarness(spec, tmp.resolve("checkpoints")).withConfiguration(config);
    }

    /**
     * The restore into the standby subtask 1 ends with the interruption, adopts nothing, and no
     * RocksDB instance of it exists, nor appears later (an open that escaped the restore would
     * finish within the grace period); closing the environment finds all managed memory released.
     */
    private void assertCancelledWithNothingLeft(
            VnodeKeyedStateBackend<Long> standby, List<ParallelVnodeRestore.Planned> plan)
            throws Exception {
        try {
            assertThatThrownBy(
                            () -> new ParallelVnodeRestore("cancelled", 4).restore(standby, plan))
                    .isInstanceOf(InterruptedException.class);
        } finally {
            Thread.interrupted();
        }
        // vnodes adopted before the cancel stay in the backend, which a failed restore disposes
        // (RhinoStateBackend); the opens not adopted must not outlive the restore
        standby.dispose();
        assertNoInstanceNowOrLater(harness.workingDirectory(1).toPath());
        VnodeBackendHarness closing = harness;
        harness = null;
        assertThatCode(closing::close)
                .as("closing the environment: every instance released its managed memory")
                .doesNotThrowAnyException();
    }

    /**
     * No RocksDB instance of a restore that ended is in {@code workingDirectory}, nor appears there
     * later (an open that escaped the restore would finish within the grace period).
     */
    private static void assertNoInstanceNowOrLater(Path workingDirectory) throws Exception {
        assertThat(rocksDbInstancesIn(workingDirectory)).isZero();
        Thread.sleep(500);
        assertThat(rocksDbInstancesIn(workingDirectory))
                .as("instances opened after the cancelled restore returned")
                .isZero();
    }

    /**
     * Every vnode of a filled subtask 0, with its handles from a checkpoint, to restore into the
     * standby subtask 1.
     */
    private List<ParallelVnodeRestore.Planned> planFromACheckpoint() throws Exception {
        VnodeKeyedStateBackend<Long> original = harness.create(0, List.of());
        fill(original);
        KeyedStateHandle checkpoint = harness.checkpoint(original, 1);
        VnodeRestore.Restored restored =
                VnodeRestore.read(
                        List.of(checkpoint),
                        WITH_STANDBY,
                        0,
                        WITH_STANDBY.parallelism(),
                        TaskManagerLocalCopies.none(),
                        getClass().getClassLoader());
        List<ParallelVnodeRestore.Planned> plan = new ArrayList<>();
        restored.handlesByVnode()
                .forEach(
                        (vnode, handles) ->
                                plan.add(new ParallelVnodeRestore.Planned(vnode, () -> handles)));
        assertThat(plan).hasSize(WITH_STANDBY.numVnodes());
        return plan;
    }

    /** Distinct values for keys of every vnode. */
    private Map<Long, Long> fill(VnodeKeyedStateBackend<Long> backend) throws Exception {
        Map<Long, Long> written = new HashMap<>();
        ValueState<Long> values = values(backend);
        for (int vnode = 0; vnode < SPEC.numVnodes(); vnode++) {
            for (long key : harness.keysOf(vnode, KEYS_PER_VNODE)) {
                backend.setCurrentKey(key);
                values.update(key * 31 + vnode);
                written.put(key, key * 31 + vnode);
            }
        }
        return written;
    }

    private static Map<Long, Long> read(
            VnodeKeyedStateBackend<Long> backend, java.util.Set<Long> keys) throws Exception {
        Map<Long, Long> read = new HashMap<>();
        ValueState<Long> values = values(backend);
        for (long key : keys) {
            backend.setCurrentKey(key);
            read.put(key, values.value());
        }
        return read;
    }

    private static ValueState<Long> values(VnodeKeyedStateBackend<Long> backend) throws Exception {
        return backend.getPartitionedState(
                VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, VALUE);
    }

    /** An SST file of one of the vnodes, in the checkpoint's shared directory. */
    private Path largestSharedFile() throws Exception {
        try (Stream<Path> files = Files.list(tmp.resolve("checkpoints").resolve("shared"))) {
            return files.max(Comparator.comparingLong(ParallelVnodeRestoreTest::size))
                    .orElseThrow();
        }
    }

    private static long size(Path file) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** RocksDB instances (each directory holds a CURRENT file) of vnodes under {@code dir}. */
    private static long rocksDbInstancesIn(Path dir) throws Exception {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(f -> f.getFileName().toString().equals("CURRENT"))
                    .filter(f -> f.toString().contains("_vnode_"))
                    .count();
        }
    }
}
