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

import io.rhino.flink.spec.RhinoOperatorSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.runtime.state.KeyGroupedInternalPriorityQueue;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.api.operators.TimerHeapInternalTimer;
import org.apache.flink.streaming.api.operators.TimerSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Moves a vnode between two subtasks of one operator on one machine: export from the origin's
 * RocksDB, install at the target with hard links, and read back every key's state and timers.
 */
class VnodeExportInstallTest {

    private static final RhinoOperatorSpec SPEC = new RhinoOperatorSpec("op", 128, 8, 2, 2);
    private static final int MOVED = 2;
    private static final int STAYING = 1;

    private static final ValueStateDescriptor<Long> VALUE =
            new ValueStateDescriptor<>("value", Types.LONG);
    private static final ListStateDescriptor<Long> LIST =
            new ListStateDescriptor<>("list", Types.LONG);
    private static final MapStateDescriptor<Long, String> MAP =
            new MapStateDescriptor<>("map", Types.LONG, Types.STRING);
    private static final TimerSerializer<Long, VoidNamespace> TIMERS =
            new TimerSerializer<>(LongSerializer.INSTANCE, VoidNamespaceSerializer.INSTANCE);

    @TempDir Path tmp;
    private VnodeBackendHarness harness;

    @BeforeEach
    void setUp() {
        harness = new VnodeBackendHarness(SPEC, tmp.resolve("checkpoints"));
    }

    @AfterEach
    void tearDown() throws Exception {
        harness.close();
    }

    @Test
    void movedVnodeKeepsEveryKeysStateAndTimers() throws Exception {
        VnodeKeyedStateBackend<Long> origin = harness.create(0, List.of());
        VnodeKeyedStateBackend<Long> target = harness.create(1, List.of());
        assertThat(origin.ownedVnodes()).containsExactly(0, 1, 2, 3);
        assertThat(target.ownedVnodes()).containsExactly(4, 5, 6, 7);

        List<Long> moved = harness.keysOf(MOVED, 300);
        List<Long> staying = harness.keysOf(STAYING, 100);
        writeState(origin, moved, 2);
        writeState(origin, staying, 2);
        harness.checkpoint(origin, 1);
        // Changes after the checkpoint are the delta the export has to copy.
        List<Long> changed = moved.subList(0, 100);
        writeState(origin, changed, 3);

        ValueState<Long> targetValues =
                target.getPartitionedState(
                        VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, VALUE);
        KeyGroupedInternalPriorityQueue<TimerHeapInternalTimer<Long, VoidNamespace>> targetTimers =
                target.create("timers", TIMERS);

        VnodeExport export = origin.exportVnode(MOVED, tmp.resolve("export"));
        assertThat(export.copiedBytes()).as("delta copied").isPositive();
        assertThat(hardLinkedSstFiles(export.handle().getDirectoryStateHandle().getDirectory()))
                .as("SST files of the completed checkpoint are hard links, not copies")
                .isPositive();

        target.installVnode(MOVED, List.of(export.handle()));
        origin.removeVnode(MOVED);
        export.delete();

        assertThat(target.ownedVnodes()).containsExactly(MOVED, 4, 5, 6, 7);
        assertThat(origin.ownedVnodes()).containsExactly(0, 1, 3);
        for (long key : moved) {
            target.setCurrentKey(key);
            assertThat(targetValues.value()).isEqualTo(key * (changed.contains(key) ? 3 : 2));
        }
        assertState(target, moved, changed);
        assertThat(drain(targetTimers)).isEqualTo(expectedTimers(moved));

        assertThat(keys(origin)).doesNotContainAnyElementsOf(moved).containsAll(staying);
        assertThatThrownBy(() -> origin.setCurrentKey(moved.get(0)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("vnode " + MOVED)
                .hasMessageContaining("does not own");
        assertState(origin, staying, List.of());
    }

    /**
     * The export carries the instance's IDENTITY file (a RocksDB checkpoint leaves it out), so the
     * target's open reads it instead of writing and syncing a new one.
     */
    @Test
    void aMovedVnodeKeepsItsRocksDbIdentity() throws Exception {
        VnodeKeyedStateBackend<Long> origin = harness.create(0, List.of());
        VnodeKeyedStateBackend<Long> target = harness.create(1, List.of());
        writeState(origin, harness.keysOf(MOVED, 50), 2);
        String originIdentity = identityOf(0, MOVED);

        harness.move(origin, target, MOVED, tmp.resolve("export"));

        assertThat(identityOf(1, MOVED)).isEqualTo(originIdentity);
        assertThat(identityOf(1, 4))
                .as("another instance of the target has an identity of its own")
                .isNotEqualTo(originIdentity);
    }

    @Test
    void checkpointOfTargetRestoresInstalledVnode() throws Exception {
        VnodeKeyedStateBackend<Long> origin = harness.create(0, List.of());
        VnodeKeyedStateBackend<Long> target = harness.create(1, List.of());
        List<Long> moved = harness.keysOf(MOVED, 200);
        writeState(origin, moved, 5);

        harness.move(origin, target, MOVED, tmp.resolve("export"));

        KeyedStateHandle first = harness.checkpoint(target, 7);
        List<Long> changed = moved.subList(0, 50);
        writeState(target, changed, 6);
        KeyedStateHandle second = harness.checkpoint(target, 8);
        assertThat(first).isNotNull();

        VnodeKeyedStateBackend<Long> restored = harness.create(1, List.of(second));
        assertThat(restored.ownedVnodes()).containsExactly(MOVED, 4, 5, 6, 7);
        ValueState<Long> values =
                restored.getPartitionedState(
                        VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, VALUE);
        for (long key : moved) {
            restored.setCurrentKey(key);
            assertThat(values.value()).isEqualTo(key * (changed.contains(key) ? 6 : 5));
        }
        assertState(restored, moved, changed);
        assertThat(drain(restored.create("timers", TIMERS))).isEqualTo(expectedTimers(moved));
    }

    /**
     * An export no target installed (its handover failed, or the target died) holds hard links to
     * SST files, keeping their disk space: the origin deletes it when it goes.
     */
    @Test
    void exportsNoTargetInstalledAreDeletedWithTheOrigin() throws Exception {
        VnodeKeyedStateBackend<Long> origin = harness.create(0, List.of());
        writeState(origin, harness.keysOf(MOVED, 200), 1);
        harness.checkpoint(origin, 1);
        VnodeExport installed = origin.exportVnode(MOVED, tmp.resolve("installed"));
        VnodeExport abandoned = origin.exportVnode(STAYING, tmp.resolve("abandoned"));
        installed.delete(); // as a target does once it installed
        assertThat(installed.directory()).doesNotExist();
        assertThat(abandoned.directory()).isDirectory();

        origin.dispose();

        assertThat(abandoned.directory()).doesNotExist();
    }

    @Test
    void restoreAsAnotherSubtaskIsRefusedWithAClearMessage() throws Exception {
        VnodeKeyedStateBackend<Long> origin = harness.create(0, List.of());
        writeState(origin, harness.keysOf(0, 10), 1);
        KeyedStateHandle handle = harness.checkpoint(origin, 1);

        assertThatThrownBy(() -> harness.create(1, List.of(handle)))
                .hasStackTraceContaining("checkpointed by subtask 0 of 2")
                .hasStackTraceContaining("restored as subtask 1 of 2");
    }

    @Test
    void installingAnOwnedOrUnknownVnodeIsRefused() throws Exception {
        VnodeKeyedStateBackend<Long> origin = harness.create(0, List.of());
        assertThatThrownBy(() -> origin.installVnode(1, List.of()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("already owns vnode 1");
        assertThatThrownBy(() -> origin.installVnode(8, List.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("8");
        assertThatThrownBy(() -> origin.removeVnode(5))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("does not own vnode 5");
    }

    /** value = key * factor, list = [key, key + factor], map = {key: "k" + factor}, one timer. */
    private static void writeState(
            VnodeKeyedStateBackend<Long> backend, List<Long> keys, int factor) throws Exception {
        ValueState<Long> values =
                backend.getPartitionedState(
                        VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, VALUE);
        ListState<Long> lists =
                backend.getPartitionedState(
                        VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, LIST);
        MapState<Long, String> maps =
                backend.getPartitionedState(
                        VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, MAP);
        KeyGroupedInternalPriorityQueue<TimerHeapInternalTimer<Long, VoidNamespace>> timers =
                backend.create("timers", TIMERS);
        for (long key : keys) {
            backend.setCurrentKey(key);
            values.update(key * factor);
            lists.update(List.of(key, key + factor));
            maps.put(key, "k" + factor);
            timers.add(new TimerHeapInternalTimer<>(key * 10, key, VoidNamespace.INSTANCE));
        }
    }

    private static void assertState(
            VnodeKeyedStateBackend<Long> backend, List<Long> keys, List<Long> changed)
            throws Exception {
        ListState<Long> lists =
                backend.getPartitionedState(
                        VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, LIST);
        MapState<Long, String> maps =
                backend.getPartitionedState(
                        VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, MAP);
        for (long key : keys) {
            backend.setCurrentKey(key);
            List<Long> list = new ArrayList<>();
            lists.get().forEach(list::add);
            assertThat(list).as("list of key %s", key).hasSize(2).startsWith(key);
            assertThat(maps.get(key)).as("map of key %s", key).startsWith("k");
        }
    }

    private static Set<Long> keys(VnodeKeyedStateBackend<Long> backend) {
        try (Stream<Long> keys = backend.getKeys(VALUE.getName(), VoidNamespace.INSTANCE)) {
            return keys.collect(Collectors.toSet());
        }
    }

    private static Set<String> drain(
            KeyGroupedInternalPriorityQueue<TimerHeapInternalTimer<Long, VoidNamespace>> timers) {
        Set<String> drained = new HashSet<>();
        long previous = Long.MIN_VALUE;
        TimerHeapInternalTimer<Long, VoidNamespace> timer;
        while ((timer = timers.poll()) != null) {
            assertThat(timer.getTimestamp())
                    .as("timers come out in time order")
                    .isGreaterThanOrEqualTo(previous);
            previous = timer.getTimestamp();
            drained.add(timer.getKey() + "@" + timer.getTimestamp());
        }
        return drained;
    }

    private static Set<String> expectedTimers(List<Long> keys) {
        return keys.stream().map(key -> key + "@" + key * 10).collect(Collectors.toSet());
    }

    private static long hardLinkedSstFiles(Path directory) throws Exception {
        try (Stream<Path> files = Files.list(directory)) {
            return files.filter(f -> f.toString().endsWith(".sst"))
                    .filter(
                            f -> {
                                try {
                                    return (int) Files.getAttribute(f, "unix:nlink") > 1;
                                } catch (Exception e) {
                                    return false;
                                }
                            })
                    .count();
        }
    }

    /** The IDENTITY file of the instance of {@code vnode} in {@code subtask}'s backend. */
    private String identityOf(int subtask, int vnode) throws Exception {
        try (Stream<Path> files = Files.walk(harness.workingDirectory(subtask).toPath())) {
            List<Path> identities =
                    files.filter(f -> f.getFileName().toString().equals("IDENTITY"))
                            .filter(f -> f.toString().contains("_vnode_" + vnode + "_uuid_"))
                            .toList();
            assertThat(identities).as("IDENTITY of vnode %s", vnode).hasSize(1);
            return Files.readString(identities.get(0)).trim();
        }
    }
}
