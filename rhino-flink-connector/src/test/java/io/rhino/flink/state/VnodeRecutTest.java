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

import io.rhino.core.handover.HandoverPlan;
import io.rhino.core.handover.VnodeMove;
import io.rhino.core.routing.RoutingTable;
import io.rhino.flink.spec.RhinoOperatorSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.core.fs.CloseableRegistry;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.runtime.checkpoint.CheckpointOptions;
import org.apache.flink.runtime.checkpoint.SavepointType;
import org.apache.flink.runtime.state.CheckpointStorageLocationReference;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.runtime.state.KeyGroupedInternalPriorityQueue;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.runtime.state.filesystem.FsCheckpointStreamFactory;
import org.apache.flink.streaming.api.operators.StreamOperatorStateHandler;
import org.apache.flink.streaming.api.operators.TimerHeapInternalTimer;
import org.apache.flink.streaming.api.operators.TimerSerializer;
import org.apache.flink.util.concurrent.FutureUtils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Two subtasks whose vnodes a handover scattered write values and timers for every key; their
 * checkpoint, native savepoint or canonical savepoint restores into another vnode count, handed to
 * the new subtasks as Flink hands them: each new subtask owns the vnodes of the re-cut routing
 * table and has every key's value and timer of those vnodes, none of another's.
 */
class VnodeRecutTest {

    private static final int KEY_GROUPS = 128;
    private static final int KEYS = 1_000;
    private static final ValueStateDescriptor<Long> VALUE =
            new ValueStateDescriptor<>("value", Types.LONG);
    private static final TimerSerializer<Long, VoidNamespace> TIMER =
            new TimerSerializer<>(LongSerializer.INSTANCE, VoidNamespaceSerializer.INSTANCE);

    enum Format {
        CHECKPOINT,
        NATIVE_SAVEPOINT,
        CANONICAL_SAVEPOINT
    }

    @TempDir Path tmp;
    private final List<VnodeBackendHarness> harnesses = new ArrayList<>();

    @AfterEach
    void tearDown() throws Exception {
        for (VnodeBackendHarness harness : harnesses) {
            harness.close();
        }
    }

    static Stream<Arguments> recuts() {
        return Stream.of(
                Arguments.of(Format.CHECKPOINT, 8, 12, 3),
                Arguments.of(Format.CHECKPOINT, 16, 4, 3),
                Arguments.of(Format.CHECKPOINT, 8, 16, 2),
                Arguments.of(Format.NATIVE_SAVEPOINT, 16, 4, 1),
                Arguments.of(Format.CANONICAL_SAVEPOINT, 8, 12, 4),
                Arguments.of(Format.CANONICAL_SAVEPOINT, 8, 16, 2));
    }

    @ParameterizedTest(name = "{0}: {1} vnodes at 2 subtasks to {2} at {3}")
    @MethodSource("recuts")
    void everyKeysValueAndTimerIsAtTheOwnerOfItsNewVnode(
            Format format, int vnodes, int newVnodes, int newParallelism) throws Exception {
        RhinoOperatorSpec before = new RhinoOperatorSpec("op", KEY_GROUPS, vnodes, 2, 2);
        Written written = writeScattered(before, format);

        RhinoOperatorSpec after =
                new RhinoOperatorSpec(
                        "op", KEY_GROUPS, newVnodes, newParallelism, newParallelism, true);
        RoutingTable table = after.routingTableAt(newParallelism, written.table());
        assertThat(table.layout().numVnodes()).isEqualTo(newVnodes);
        VnodeBackendHarness harness = harness(after, "after");
        List<Long> timers = new ArrayList<>();
        for (int subtask = 0; subtask < newParallelism; subtask++) {
            VnodeKeyedStateBackend<Long> restored =
                    harness.create(
                            subtask, handedBy(written.handles(), format, newParallelism, subtask));
            assertThat(restored.ownedVnodes())
                    .as("subtask %d's vnodes", subtask)
                    .containsExactlyInAnyOrder(table.vnodesOwnedBy(subtask));
            assertThat(restored.restoreSources().keySet())
                    .containsExactlyInAnyOrderElementsOf(
                            IntStream.of(table.vnodesOwnedBy(subtask)).boxed().toList());
            assertThat(restored.restoreSources().values())
                    .allMatch(source -> source == RestoreSource.CHECKPOINT_STORAGE);
            ValueState<Long> state = valueState(restored);
            for (Map.Entry<Long, Long> entry : written.values().entrySet()) {
                if (restored.owns(table.layout().vnodeOfKey(entry.getKey()))) {
                    restored.setCurrentKey(entry.getKey());
                    assertThat(state.value())
                            .as("key %d at subtask %d", entry.getKey(), subtask)
                            .isEqualTo(entry.getValue());
                }
            }
            KeyGroupedInternalPriorityQueue<TimerHeapInternalTimer<Long, VoidNamespace>> queue =
                    restored.create("timers", TIMER);
            for (TimerHeapInternalTimer<Long, VoidNamespace> timer = queue.poll();
                    timer != null;
                    timer = queue.poll()) {
                assertThat(restored.owns(table.layout().vnodeOfKey(timer.getKey())))
                        .as("timer of key %d at subtask %d", timer.getKey(), subtask)
                        .isTrue();
                timers.add(timer.getTimestamp());
            }
        }
        assertThat(timers).containsExactlyInAnyOrderElementsOf(written.timers());
    }

    @Test
    void aRecutAtAnUnchangedParallelismMergingVnodesOfTwoSubtasksIsRefused() throws Exception {
        RhinoOperatorSpec before = new RhinoOperatorSpec("op", KEY_GROUPS, 16, 2, 2);
        Written written = writeScattered(before, Format.CHECKPOINT);
        VnodeBackendHarness harness =
                harness(new RhinoOperatorSpec("op", KEY_GROUPS, 4, 2, 2, true), "after");

        assertThatThrownBy(() -> harness.create(0, List.of(written.handles().get(0))))
                .hasStackTraceContaining("16 vnodes into 4 (rhino.vnodes)")
                .hasStackTraceContaining("new vnodes [0]");
    }

    private record Written(
            RoutingTable table,
            List<KeyedStateHandle> handles,
            Map<Long, Long> values,
            List<Long> timers) {}

    /** Two subtasks, vnode 0 moved from 0 to 1, a value for every key and a timer for some. */
    private Written writeScattered(RhinoOperatorSpec spec, Format format) throws Exception {
        VnodeBackendHarness harness = harness(spec, "before");
        List<VnodeKeyedStateBackend<Long>> backends =
                List.of(harness.create(0, List.of()), harness.create(1, List.of()));
        RoutingTable table = spec.initialRoutingTable();
        harness.move(backends.get(0), backends.get(1), 0, tmp.resolve("move"));
        table = table.apply(HandoverPlan.of(table.epoch(), List.of(new VnodeMove(0, 0, 1))));
        Map<Long, Long> values = new TreeMap<>();
        List<Long> timers = new ArrayList<>();
        for (VnodeKeyedStateBackend<Long> backend : backends) {
            ValueState<Long> state = valueState(backend);
            KeyGroupedInternalPriorityQueue<TimerHeapInternalTimer<Long, VoidNamespace>> queue =
                    backend.create("timers", TIMER);
            for (long key = 0; key < KEYS; key++) {
                if (backend.owns(spec.layout().vnodeOfKey(key))) {
                    backend.setCurrentKey(key);
                    state.update(key * 7);
                    values.put(key, key * 7);
                    if (key % 5 == 0) {
                        queue.add(
                                new TimerHeapInternalTimer<>(
                                        10_000 + key, key, VoidNamespace.INSTANCE));
                        timers.add(10_000 + key);
                    }
                }
            }
        }
        assertThat(values).hasSize(KEYS);
        List<KeyedStateHandle> handles = new ArrayList<>();
        for (VnodeKeyedStateBackend<Long> backend : backends) {
            handles.add(
                    switch (format) {
                        case CHECKPOINT -> harness.checkpoint(backend, 3);
                        case NATIVE_SAVEPOINT ->
                                harness.savepoint(
                                        backend, 3, tmp.resolve("native-" + handles.size()), true);
                        case CANONICAL_SAVEPOINT -> canonicalSavepoint(backend, 3);
                    });
        }
        return new Written(table, handles, values, timers);
    }

    /**
     * What Flink hands a restoring subtask: at the written parallelism its own handle; at another
     * every handle that intersects its key-group range, a canonical savepoint's cut to it (Rhino's
     * native handles claim nearly every key group, see {@link ClaimedKeyGroups}).
     */
    private static List<KeyedStateHandle> handedBy(
            List<KeyedStateHandle> handles, Format format, int parallelism, int subtask) {
        if (parallelism == handles.size()) {
            return List.of(handles.get(subtask));
        }
        if (format != Format.CANONICAL_SAVEPOINT) {
            return handles;
        }
        KeyGroupRange range =
                KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(
                        KEY_GROUPS, parallelism, subtask);
        List<KeyedStateHandle> cut = new ArrayList<>();
        for (KeyedStateHandle handle : handles) {
            KeyedStateHandle part = handle.getIntersection(range);
            if (part != null) {
                cut.add(part);
            }
        }
        return cut;
    }

    private VnodeBackendHarness harness(RhinoOperatorSpec spec, String name) {
        VnodeBackendHarness harness = new VnodeBackendHarness(spec, tmp.resolve(name));
        harnesses.add(harness);
        return harness;
    }

    private KeyedStateHandle canonicalSavepoint(VnodeKeyedStateBackend<Long> backend, long id)
            throws Exception {
        Path directory = Files.createDirectories(tmp.resolve("canonical-" + System.nanoTime()));
        org.apache.flink.core.fs.Path target = new org.apache.flink.core.fs.Path(directory.toUri());
        return FutureUtils.runIfNotDoneAndGet(
                        StreamOperatorStateHandler.prepareCanonicalSavepoint(
                                        backend, new CloseableRegistry())
                                .snapshot(
                                        id,
                                        System.currentTimeMillis(),
                                        new FsCheckpointStreamFactory(
                                                FileSystem.getLocalFileSystem(),
                                                target,
                                                target,
                                                1024,
                                                4096),
                                        new CheckpointOptions(
                                                SavepointType.savepoint(
                                                        SavepointFormatType.CANONICAL),
                                                CheckpointStorageLocationReference.getDefault())))
                .getJobManagerOwnedSnapshot();
    }

    private static ValueState<Long> valueState(VnodeKeyedStateBackend<Long> backend)
            throws Exception {
        return backend.getPartitionedState(
                VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, VALUE);
    }
}
