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

import io.rhino.flink.routing.RhinoOperatorSpec;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
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
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A vnode's timer queue created with its key groups' heads read by one iterator behaves as Flink's
 * own queue on the same restored RocksDB state, operation by operation, with empty key groups and
 * with caches that refill.
 */
class RocksDbTimerQueueFactoryTest {

    private static final RhinoOperatorSpec SPEC = new RhinoOperatorSpec("op", 128, 4, 1, 1);
    private static final int VNODE = 1;
    private static final TimerSerializer<Long, VoidNamespace> TIMERS =
            new TimerSerializer<>(LongSerializer.INSTANCE, VoidNamespaceSerializer.INSTANCE);

    @TempDir Path checkpoints;
    private VnodeBackendHarness harness;

    @AfterEach
    void close() throws Exception {
        if (harness != null) {
            harness.close();
        }
    }

    @Test
    void findsFlinks221TimerQueueInternals() {
        assertThat(RocksDbTimerQueueFactory.readsHeadsWithOneIterator())
                .as("with Flink 2.2.1 the heads are read with one iterator")
                .isTrue();
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

        for (int step = 0; step < 4_000; step++) {
            int operation = random.nextInt(10);
            String at = "step " + step + ", operation " + operation;
            if (operation < 4) {
                TimerHeapInternalTimer<Long, VoidNamespace> timer =
                        timer(random, keys.get(random.nextInt(keys.size())));
                assertThat(headsRead.add(timer)).as(at).isEqualTo(flinks.add(timer));
                live.add(timer);
            } else if (operation < 7) {
                TimerHeapInternalTimer<Long, VoidNamespace> polled = flinks.poll();
                assertThat(headsRead.poll()).as(at).isEqualTo(polled);
                live.remove(polled);
            } else if (operation < 9 && !live.isEmpty()) {
                TimerHeapInternalTimer<Long, VoidNamespace> timer =
                        live.remove(random.nextInt(live.size()));
                assertThat(headsRead.remove(timer)).as(at).isEqualTo(flinks.remove(timer));
            } else {
                assertThat(headsRead.peek()).as(at).isEqualTo(flinks.peek());
                assertThat(headsRead.isEmpty()).as(at).isEqualTo(flinks.isEmpty());
            }
        }
        List<TimerHeapInternalTimer<Long, VoidNamespace>> rest = drain(flinks);
        assertThat(rest).as("the test leaves timers to drain").isNotEmpty();
        assertThat(drain(headsRead)).isEqualTo(rest);
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
