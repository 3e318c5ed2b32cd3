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
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.runtime.state.KeyGroupedInternalPriorityQueue;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.state.rocksdb.RocksDBOptions;
import org.apache.flink.streaming.api.operators.TimerHeapInternalTimer;
import org.apache.flink.streaming.api.operators.TimerSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A vnode's timer queue created with its key groups' heads read by one iterator behaves as Flink's
 * own queue on the same restored RocksDB state, operation by operation, with empty key groups and
 * with caches that refill; so does a moved vnode's queue created from the first timers its origin
 * shipped, whole, damaged or in part, and a restored vnode's queue created from the first timers
 * its checkpoint or native savepoint stored.
 */
class RocksDbTimerQueueFactoryTest {

    private static final RhinoOperatorSpec SPEC = new RhinoOperatorSpec("op", 128, 4, 1, 1);
    // vnodes 0-3 on subtask 0, 4-7 on subtask 1
    private static final RhinoOperatorSpec TWO_SUBTASKS = new RhinoOperatorSpec("op", 128, 8, 2, 2);
    private static final int VNODE = 1;
    private static final TimerSerializer<Long, VoidNamespace> TIMERS =
            new TimerSerializer<>(LongSerializer.INSTANCE, VoidNamespaceSerializer.INSTANCE);

    @TempDir Path checkpoints;
    @TempDir Path exports;
    private VnodeBackendHarness harness;

    @AfterEach
    void close() throws Exception {
        if (harness != null) {
            harness.close();
        }
    }

    @Test
    void findsFlinks221TimerQueueInternals() throws Exception {
        harness = new VnodeBackendHarness(SPEC, checkpoints);
        VnodeKeyedStateBackend<Long> backend = harness.create(0, List.of());
        try (TimerHeadReads reads = TimerHeadReads.count()) {
            backend.create("timers", TIMERS);
            assertThat(reads.queues())
                    .as("with Flink 2.2.1 the heads are read with one iterator")
                    .isPositive();
        }
    }

    @ParameterizedTest(name = "timer cache size {0}")
    @ValueSource(ints = {2, 128})
    void behavesAsFlinksQueueOnRestoredTimers(int cacheSize) throws Exception {
        Configuration configuration = new Configuration();
        configuration.set(RocksDBOptions.ROCKSDB_TIMER_SERVICE_FACTORY_CACHE_SIZE, cacheSize);
        harness = new VnodeBackendHarness(SPEC, checkpoints).withConfiguration(configuration);
        List<Long> keys = harness.keysOf(VNODE, 400);
        // timers only in the vnode's even key groups: the odd ones start empty
        List<Long> timerKeys =
                keys.stream()
                        .filter(key -> KeyGroupRangeAssignment.assignToKeyGroup(key, 128) % 2 == 0)
                        .toList();
        assertThat(timerKeys).hasSizeBetween(100, 300);
        Random random = new Random(cacheSize);

        VnodeKeyedStateBackend<Long> filled = harness.create(0, List.of());
        KeyGroupedInternalPriorityQueue<TimerHeapInternalTimer<Long, VoidNamespace>> timers =
                filled.create("timers", TIMERS);
        List<TimerHeapInternalTimer<Long, VoidNamespace>> live = new ArrayList<>();
        for (long key : timerKeys) {
            for (int i = 0; i < 3; i++) {
                TimerHeapInternalTimer<Long, VoidNamespace> timer = timer(random, key);
                timers.add(timer);
                live.add(timer);
            }
        }
        KeyedStateHandle checkpoint = harness.checkpoint(filled, 1);

        KeyGroupedInternalPriorityQueue<TimerHeapInternalTimer<Long, VoidNamespace>> headsRead =
                RocksDbTimerQueueFactory.create(
                        harness.create(0, List.of(checkpoint)).vnodeBackend(VNODE),
                        "timers",
                        TIMERS);
        KeyGroupedInternalPriorityQueue<TimerHeapInternalTimer<Long, VoidNamespace>> flinks =
                harness.create(0, List.of(checkpoint)).vnodeBackend(VNODE).create("timers", TIMERS);
        assertThat(headsRead.getClass()).isEqualTo(flinks.getClass());

        assertBehaveAlike(headsRead, flinks, keys, live, random);
    }

    /** How the origin's first timers reach the target in {@link #aMovedVnodesQueue}. */
    enum Shipping {
        /** as exported */
        WHOLE,
        /** a byte of the file flipped: ignored, every key group is read from RocksDB */
        DAMAGED,
        /** every third key group's entry marked unknown: those are read from RocksDB */
        PARTLY
    }

    @ParameterizedTest(name = "timer cache size {0}, heads shipped {1}")
    @CsvSource({"2, WHOLE", "128, WHOLE", "128, DAMAGED", "2, PARTLY"})
    void aMovedVnodesQueueStartsFromTheShippedHeadsAndBehavesAsFlinksQueue(
            int cacheSize, Shipping shipping) throws Exception {
        Configuration configuration = new Configuration();
        configuration.set(RocksDBOptions.ROCKSDB_TIMER_SERVICE_FACTORY_CACHE_SIZE, cacheSize);
        harness =
                new VnodeBackendHarness(TWO_SUBTASKS, checkpoints).withConfiguration(configuration);
        VnodeKeyedStateBackend<Long> origin = harness.create(0, List.of());
        VnodeKeyedStateBackend<Long> target = harness.create(1, List.of());
        KeyGroupedInternalPriorityQueue<TimerHeapInternalTimer<Long, VoidNamespace>> atOrigin =
                origin.create("timers", TIMERS);
        target.create("timers", TIMERS);
        List<Long> keys = harness.keysOf(VNODE, 400);
        Random random = new Random(cacheSize + shipping.ordinal());
        List<TimerHeapInternalTimer<Long, VoidNamespace>> live =
                fillAndChurn(atOrigin, keys, random);
        KeyedStateHandle checkpoint = harness.checkpoint(origin, 1);

        VnodeExport export = origin.exportVnode(VNODE, exports.resolve("export"));
        Path headsFile = export.dbDirectory().resolve(TimerQueueHeads.FILE_NAME);
        assertThat(headsFile).exists();
        int unknown = ship(shipping, export.dbDirectory());
        long sought;
        try (TimerHeadReads reads = TimerHeadReads.count()) {
            target.installMovedVnode(VNODE, export.handle());
            sought = reads.keyGroupsSought();
        }
        origin.removeVnode(VNODE);
        export.delete();
        assertThat(headsFile).as("taken out before the restore").doesNotExist();
        switch (shipping) {
            case WHOLE -> assertThat(sought).as("first timers read from RocksDB").isZero();
            case DAMAGED -> assertThat(sought).as("first timers read from RocksDB").isPositive();
            case PARTLY ->
                    assertThat(sought)
                            .as("first timers read from RocksDB")
                            .isBetween(1L, (long) unknown);
        }

        KeyGroupedInternalPriorityQueue<TimerHeapInternalTimer<Long, VoidNamespace>> moved =
                target.create("timers", TIMERS);
        KeyGroupedInternalPriorityQueue<TimerHeapInternalTimer<Long, VoidNamespace>> flinks =
                harness.create(0, List.of(checkpoint)).vnodeBackend(VNODE).create("timers", TIMERS);
        assertBehaveAlike(moved, flinks, keys, live, random);
    }

    /**
     * Puts five timers on each key of the even key groups into the queue, then changes them so that
     * caches are polled empty and refilled and timers removed; returns the timers left.
     */
    private static List<TimerHeapInternalTimer<Long, VoidNamespace>> fillAndChurn(
            KeyGroupedInternalPriorityQueue<TimerHeapInternalTimer<Long, VoidNamespace>> queue,
            List<Long> keys,
            Random random) {
        List<TimerHeapInternalTimer<Long, VoidNamespace>> live = new ArrayList<>();
        for (long key : keys) {
            if (KeyGroupRangeAssignment.assignToKeyGroup(key, 128) % 2 == 0) {
                for (int i = 0; i < 5; i++) {
                    TimerHeapInternalTimer<Long, VoidNamespace> timer = timer(random, key);
                    queue.add(timer);
                    live.add(timer);
                }
            }
        }
        for (int step = 0; step < 300; step++) {
            live.remove(queue.poll());
            if (step % 3 == 0) {
                queue.remove(live.remove(random.nextInt(live.size())));
            }
        }
        return live;
    }

    /**
     * Changes the first timer of several key groups: three polls, then three removals and three
     * additions, each in a key group nothing else changed.
     */
    private static void changeOneFirstTimerPerKeyGroup(
            KeyGroupedInternalPriorityQueue<TimerHeapInternalTimer<Long, VoidNamespace>> queue,
            List<Long> keys,
            List<TimerHeapInternalTimer<Long, VoidNamespace>> live) {
        Set<Integer> changed = new HashSet<>();
        for (int i = 0; i < 3; i++) {
            TimerHeapInternalTimer<Long, VoidNamespace> polled = queue.poll();
            live.remove(polled);
            changed.add(keyGroupOf(polled));
        }
        int polledKeyGroups = changed.size();
        for (int i = 0; i < 3; i++) {
            TimerHeapInternalTimer<Long, VoidNamespace> first =
                    live.stream()
                            .filter(timer -> !changed.contains(keyGroupOf(timer)))
                            .min(
                                    Comparator.comparingLong(
                                                    TimerHeapInternalTimer<Long, VoidNamespace>
                                                            ::getTimestamp)
                                            .thenComparing(TimerHeapInternalTimer::getKey))
                            .orElseThrow();
            queue.remove(first);
            live.remove(first);
            changed.add(keyGroupOf(first));
        }
        for (long key : keys) {
            if (changed.size() < polledKeyGroups + 6 && changed.add(keyGroupOf(key))) {
                TimerHeapInternalTimer<Long, VoidNamespace> earliest =
                        new TimerHeapInternalTimer<>(-1, key, VoidNamespace.INSTANCE);
                queue.add(earliest);
                live.add(earliest);
            }
        }
        assertThat(changed).hasSize(polledKeyGroups + 6);
    }

    private static int keyGroupOf(TimerHeapInternalTimer<Long, VoidNamespace> timer) {
        return keyGroupOf(timer.getKey());
    }

    private static int keyGroupOf(long key) {
        return KeyGroupRangeAssignment.assignToKeyGroup(key, 128);
    }

    /**
     * Alters the shipped heads file as {@code shipping} says; returns the key groups made unknown.
     */
    private static int ship(Shipping shipping, Path db) throws Exception {
        Path file = db.resolve(TimerQueueHeads.FILE_NAME);
        if (shipping == Shipping.DAMAGED) {
            byte[] bytes = Files.readAllBytes(file);
            bytes[bytes.length / 2] ^= 0x10;
            Files.write(file, bytes);
        } else if (shipping == Shipping.PARTLY) {
            TimerQueueHeads.KeyGroupHeads whole = TimerQueueHeads.takeFrom(db).of("timers");
            BitSet known = (BitSet) whole.known().clone();
            for (int i = 0; i < whole.numberOfKeyGroups(); i += 3) {
                known.clear(i);
            }
            new TimerQueueHeads(
                            Map.of(
                                    "timers",
                                    new TimerQueueHeads.KeyGroupHeads(
                                            whole.firstKeyGroup(), whole.heads(), known)))
                    .writeInto(db);
            return whole.known().cardinality() - known.cardinality();
        }
        return 0;
    }

    /**
     * Runs 4,000 random operations on both queues, comparing each answer, then drains both.
     *
     * @param keys the keys new timers get
     * @param live the timers in the queues, which removals pick from
     */
    private static void assertBehaveAlike(
            KeyGroupedInternalPriorityQueue<TimerHeapInternalTimer<Long, VoidNamespace>> actual,
            KeyGroupedInternalPriorityQueue<TimerHeapInternalTimer<Long, VoidNamespace>> flinks,
            List<Long> keys,
            List<TimerHeapInternalTimer<Long, VoidNamespace>> live,
            Random random) {
        for (int step = 0; step < 4_000; step++) {
            int operation = random.nextInt(10);
            String at = "step " + step + ", operation " + operation;
            if (operation < 4) {
                TimerHeapInternalTimer<Long, VoidNamespace> timer =
                        timer(random, keys.get(random.nextInt(keys.size())));
                assertThat(actual.add(timer)).as(at).isEqualTo(flinks.add(timer));
                live.add(timer);
            } else if (operation < 7) {
                TimerHeapInternalTimer<Long, VoidNamespace> polled = flinks.poll();
                assertThat(actual.poll()).as(at).isEqualTo(polled);
                live.remove(polled);
            } else if (operation < 9 && !live.isEmpty()) {
                TimerHeapInternalTimer<Long, VoidNamespace> timer =
                        live.remove(random.nextInt(live.size()));
                assertThat(actual.remove(timer)).as(at).isEqualTo(flinks.remove(timer));
            } else {
                assertThat(actual.peek()).as(at).isEqualTo(flinks.peek());
                assertThat(actual.isEmpty()).as(at).isEqualTo(flinks.isEmpty());
            }
        }
        List<TimerHeapInternalTimer<Long, VoidNamespace>> rest = drain(flinks);
        assertThat(rest).as("the test leaves timers to drain").isNotEmpty();
        assertThat(drain(actual)).isEqualTo(rest);
    }

    /** What a restored subtask in {@link #aRestoredVnodesQueue} restores from. */
    enum Snapshot {
        CHECKPOINT,
        NATIVE_SAVEPOINT
    }

    @ParameterizedTest(name = "timer cache size {0}, from a {1}, heads stored {2}")
    @CsvSource({
        "2, CHECKPOINT, true",
        "128, CHECKPOINT, true",
        "2, NATIVE_SAVEPOINT, true",
        "128, CHECKPOINT, false"
    })
    void aRestoredVnodesQueueStartsFromTheCheckpointedHeadsAndBehavesAsFlinksQueue(
            int cacheSize, Snapshot snapshot, boolean headsStored) throws Exception {
        Configuration configuration = new Configuration();
        configuration.set(RocksDBOptions.ROCKSDB_TIMER_SERVICE_FACTORY_CACHE_SIZE, cacheSize);
        configuration.set(RhinoOptions.STATE_CHECKPOINT_TIMER_HEADS, headsStored);
        harness = new VnodeBackendHarness(SPEC, checkpoints).withConfiguration(configuration);
        VnodeKeyedStateBackend<Long> running = harness.create(0, List.of());
        KeyGroupedInternalPriorityQueue<TimerHeapInternalTimer<Long, VoidNamespace>> timers =
                running.create("timers", TIMERS);
        List<Long> keys = harness.keysOf(VNODE, 400);
        Random random = new Random(cacheSize + 10L * snapshot.ordinal());
        List<TimerHeapInternalTimer<Long, VoidNamespace>> live = fillAndChurn(timers, keys, random);
        // a first checkpoint reads every key group's first timer; the next one re-reads only the
        // key groups changed since: each change below is the only one in its key group, so one
        // the queue did not report would leave a wrong first timer in the next checkpoint
        harness.checkpoint(running, 1);
        changeOneFirstTimerPerKeyGroup(timers, keys, live);
        KeyedStateHandle snapshotHandle =
                snapshot == Snapshot.CHECKPOINT
                        ? harness.checkpoint(running, 2)
                        : harness.savepoint(running, 2, exports.resolve("savepoint"), false);

        VnodeKeyedStateBackend<Long> restored = harness.create(0, List.of(snapshotHandle));
        KeyGroupedInternalPriorityQueue<TimerHeapInternalTimer<Long, VoidNamespace>> fromHeads;
        long sought;
        try (TimerHeadReads reads = TimerHeadReads.count()) {
            fromHeads = restored.create("timers", TIMERS);
            sought = reads.keyGroupsSought();
        }
        if (headsStored) {
            assertThat(sought).as("first timers read from RocksDB after the restore").isZero();
        } else {
            assertThat(sought).as("first timers read from RocksDB after the restore").isPositive();
        }

        KeyGroupedInternalPriorityQueue<TimerHeapInternalTimer<Long, VoidNamespace>> flinks =
                harness.create(0, List.of(snapshotHandle))
                        .vnodeBackend(VNODE)
                        .create("timers", TIMERS);
        assertBehaveAlike(fromHeads, flinks, keys, live, random);
    }

    @Test
    void aVnodeThatLeavesAndComesBackBeforeItsQueueIsCreatedForgetsItsRestoredHeads()
            throws Exception {
        harness = new VnodeBackendHarness(TWO_SUBTASKS, checkpoints);
        long key = harness.keysOf(VNODE, 1).get(0);
        TimerHeapInternalTimer<Long, VoidNamespace> early =
                new TimerHeapInternalTimer<>(3, key, VoidNamespace.INSTANCE);
        TimerHeapInternalTimer<Long, VoidNamespace> checkpointed =
                new TimerHeapInternalTimer<>(7, key, VoidNamespace.INSTANCE);
        VnodeKeyedStateBackend<Long> running = harness.create(0, List.of());
        running.create("timers", TIMERS).add(checkpointed);
        KeyedStateHandle checkpoint = harness.checkpoint(running, 1);

        // restored with the checkpoint's heads; the vnode leaves before its queue is created
        VnodeKeyedStateBackend<Long> restored = harness.create(0, List.of(checkpoint));
        VnodeKeyedStateBackend<Long> other = harness.create(1, List.of());
        KeyGroupedInternalPriorityQueue<TimerHeapInternalTimer<Long, VoidNamespace>> atOther =
                other.create("timers", TIMERS);
        harness.move(restored, other, VNODE, exports.resolve("away"));
        assertThat(atOther.remove(checkpointed)).isTrue();
        atOther.add(early);
        harness.move(other, restored, VNODE, exports.resolve("back"));

        KeyGroupedInternalPriorityQueue<TimerHeapInternalTimer<Long, VoidNamespace>> queue =
                restored.create("timers", TIMERS);
        assertThat(queue.poll()).as("not the checkpoint's first timer").isEqualTo(early);
        assertThat(queue.poll()).isNull();
    }

    @Test
    void vnodeWithoutTimersHasAnEmptyQueue() throws Exception {
        harness = new VnodeBackendHarness(SPEC, checkpoints);
        KeyGroupedInternalPriorityQueue<TimerHeapInternalTimer<Long, VoidNamespace>> queue =
                RocksDbTimerQueueFactory.create(
                        harness.create(0, List.of()).vnodeBackend(VNODE), "timers", TIMERS);
        assertThat(queue.isEmpty()).isTrue();
        assertThat(queue.peek()).isNull();
        long key = harness.keysOf(VNODE, 1).get(0);
        queue.add(new TimerHeapInternalTimer<>(5, key, VoidNamespace.INSTANCE));
        assertThat(queue.poll())
                .isEqualTo(new TimerHeapInternalTimer<>(5, key, VoidNamespace.INSTANCE));
        assertThat(queue.poll()).isNull();
    }

    private static TimerHeapInternalTimer<Long, VoidNamespace> timer(Random random, long key) {
        return new TimerHeapInternalTimer<>(random.nextInt(100_000), key, VoidNamespace.INSTANCE);
    }

    private static List<TimerHeapInternalTimer<Long, VoidNamespace>> drain(
            KeyGroupedInternalPriorityQueue<TimerHeapInternalTimer<Long, VoidNamespace>> queue) {
        List<TimerHeapInternalTimer<Long, VoidNamespace>> drained = new ArrayList<>();
        TimerHeapInternalTimer<Long, VoidNamespace> timer;
        while ((timer = queue.poll()) != null) {
            drained.add(timer);
        }
        return drained;
    }
}
