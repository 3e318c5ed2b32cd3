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

import io.rhino.core.routing.VnodeLayout;
import io.rhino.flink.spec.RhinoOperatorSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
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
import org.apache.flink.runtime.state.KeyGroupedInternalPriorityQueue;
import org.apache.flink.runtime.state.KeyGroupsSavepointStateHandle;
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

/**
 * A canonical savepoint of a subtask that owns scattered vnodes, one of them empty, is one stream
 * in Flink's format; a subtask restores from it exactly the vnodes it owned, with their values and
 * timers; another subtask index is refused with the reason.
 */
class CanonicalSavepointTest {

    private static final RhinoOperatorSpec SPEC = new RhinoOperatorSpec("op", 128, 8, 2, 2);
    private static final VnodeLayout LAYOUT = SPEC.layout();
    private static final ValueStateDescriptor<Long> VALUE =
            new ValueStateDescriptor<>("value", Types.LONG);
    private static final TimerSerializer<Long, VoidNamespace> TIMER =
            new TimerSerializer<>(LongSerializer.INSTANCE, VoidNamespaceSerializer.INSTANCE);

    @TempDir Path tmp;
    private VnodeBackendHarness harness;

    @AfterEach
    void tearDown() throws Exception {
        harness.close();
    }

    @Test
    void restoresTheOwnedVnodesWithTheirValuesAndTimers() throws Exception {
        harness = new VnodeBackendHarness(SPEC, tmp.resolve("checkpoints"));
        VnodeKeyedStateBackend<Long> backend = harness.create(0, List.of());
        int[] initial = backend.ownedVnodes();
        // scattered: one vnode gone, one of the other subtask's joined (it stays empty)
        int removed = initial[1];
        int joined = SPEC.numVnodes() - 1;
        assertThat(initial).doesNotContain(joined);
        backend.removeVnode(removed);
        backend.installVnode(joined, List.of());
        int empty = initial[initial.length - 1];
        Map<Long, Long> values = new TreeMap<>();
        List<Long> timers = new ArrayList<>();
        KeyGroupedInternalPriorityQueue<TimerHeapInternalTimer<Long, VoidNamespace>> queue =
                backend.create("timers", TIMER);
        ValueState<Long> state = valueState(backend);
        for (long key = 0; key < 2_000; key++) {
            int vnode = LAYOUT.vnodeOfKey(key);
            if (backend.owns(vnode) && vnode != empty) {
                backend.setCurrentKey(key);
                state.update(key * 3);
                values.put(key, key * 3);
                if (key % 7 == 0) {
                    queue.add(
                            new TimerHeapInternalTimer<>(1_000 + key, key, VoidNamespace.INSTANCE));
                    timers.add(1_000 + key);
                }
            }
        }
        int[] owned = backend.ownedVnodes();

        KeyedStateHandle savepoint = canonicalSavepoint(backend, 5);
        assertThat(savepoint).isInstanceOf(KeyGroupsSavepointStateHandle.class);

        VnodeKeyedStateBackend<Long> restored = harness.create(0, List.of(savepoint));
        assertThat(restored.ownedVnodes())
                .as("owned vnodes, the empty one included")
                .isEqualTo(owned);
        ValueState<Long> restoredState = valueState(restored);
        for (Map.Entry<Long, Long> entry : values.entrySet()) {
            restored.setCurrentKey(entry.getKey());
            assertThat(restoredState.value())
                    .as("key %d", entry.getKey())
                    .isEqualTo(entry.getValue());
        }
        KeyGroupedInternalPriorityQueue<TimerHeapInternalTimer<Long, VoidNamespace>> restoredQueue =
                restored.create("timers", TIMER);
        List<Long> restoredTimers = new ArrayList<>();
        for (TimerHeapInternalTimer<Long, VoidNamespace> timer = restoredQueue.poll();
                timer != null;
                timer = restoredQueue.poll()) {
            restoredTimers.add(timer.getTimestamp());
        }
        assertThat(restoredTimers).containsExactlyInAnyOrderElementsOf(timers);
        assertThat(timers).isNotEmpty();

        // the restored instances carry the (empty) ownership state: a second round still works
        KeyedStateHandle again = canonicalSavepoint(restored, 6);
        VnodeKeyedStateBackend<Long> twice = harness.create(0, List.of(again));
        assertThat(twice.ownedVnodes()).isEqualTo(owned);
        ValueState<Long> twiceState = valueState(twice);
        for (Map.Entry<Long, Long> entry : values.entrySet()) {
            twice.setCurrentKey(entry.getKey());
            assertThat(twiceState.value()).as("key %d", entry.getKey()).isEqualTo(entry.getValue());
        }
    }

    @Test
    void anotherSubtaskIndexIsRefused() throws Exception {
        harness = new VnodeBackendHarness(SPEC, tmp.resolve("checkpoints"));
        VnodeKeyedStateBackend<Long> backend = harness.create(0, List.of());
        long key = 0;
        while (!backend.owns(LAYOUT.vnodeOfKey(key))) {
            key++;
        }
        backend.setCurrentKey(key);
        valueState(backend).update(1L);
        KeyedStateHandle savepoint = canonicalSavepoint(backend, 2);
        assertThatThrownBy(() -> harness.create(1, List.of(savepoint)))
                .hasStackTraceContaining("written by subtask 0")
                .hasStackTraceContaining("restored as subtask 1");
    }

    /** Takes a canonical savepoint the way Flink's operators do. */
    private KeyedStateHandle canonicalSavepoint(VnodeKeyedStateBackend<Long> backend, long id)
            throws Exception {
        Path directory = Files.createDirectories(tmp.resolve("savepoint-" + id));
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
