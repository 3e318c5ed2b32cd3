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

package io.rhino.flink.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rhino.core.handover.HandoverId;
import io.rhino.flink.handover.LocalDirectoryStateTransfer;
import io.rhino.flink.handover.StateTransfer;
import io.rhino.flink.spec.RhinoOperatorSpec;
import io.rhino.flink.state.VnodeBackendHarness;
import io.rhino.flink.state.VnodeInstallTarget;
import io.rhino.flink.state.VnodeKeyedStateBackend;
import io.rhino.flink.state.VnodeKeyedStateBackend.PreparedVnode;
import io.rhino.handover.ShippedVnode;
import java.io.Serializable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.runtime.state.KeyGroupedInternalPriorityQueue;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.api.operators.TimerHeapInternalTimer;
import org.apache.flink.streaming.api.operators.TimerSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Moves every vnode of one subtask to another on real RocksDB with several vnodes shipped and
 * opened at once, and checks each key's state arrives, and that a failed open leaves no instance.
 */
class VnodeTransfersTest {

    private static final RhinoOperatorSpec SPEC = new RhinoOperatorSpec("op", 128, 8, 2, 2);
    private static final TimerSerializer<Long, VoidNamespace> TIMERS =
            new TimerSerializer<>(LongSerializer.INSTANCE, VoidNamespaceSerializer.INSTANCE);
    private static final ValueStateDescriptor<Long> VALUE =
            new ValueStateDescriptor<>("value", Types.LONG);

    @TempDir Path tmp;
    private VnodeBackendHarness harness;
    private final VnodeTransfers transfers = new VnodeTransfers("op gate 1", 3);

    @BeforeEach
    void setUp() {
        harness = new VnodeBackendHarness(SPEC, tmp.resolve("checkpoints"));
    }

    @AfterEach
    void tearDown() throws Exception {
        transfers.close();
        harness.close();
    }

    @Test
    void vnodesShippedAndOpenedAtOnceKeepEveryKeysState() throws Exception {
        VnodeKeyedStateBackend<Long> origin = harness.create(0, List.of());
        VnodeKeyedStateBackend<Long> target = harness.create(1, List.of());
        List<Long> keys = LongStream.range(0, 2_000).boxed().toList();
        List<Long> originKeys = keys.stream().filter(k -> owner(k) == 0).toList(); // vnodes 0..3
        write(origin, originKeys);
        harness.checkpoint(origin, 1);
        List<Integer> moving = List.of(0, 1, 2, 3);

        List<ShippedVnode> shipped = ship(origin, moving, new LocalDirectoryStateTransfer());
        List<PreparedVnode> opened =
                transfers
                        .open(target, shipped, new LocalDirectoryStateTransfer())
                        .get(1, TimeUnit.MINUTES);
        for (PreparedVnode vnode : opened) {
            target.adoptVnode(vnode);
        }
        moving.forEach(origin::removeVnode);

        assertThat(target.ownedVnodes()).containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
        ValueState<Long> values = values(target);
        for (long key : originKeys) {
            target.setCurrentKey(key);
            assertThat(values.value()).as("key %d", key).isEqualTo(key * 7);
        }
    }

    /**
     * The target creates the moving vnodes' states and timer queues while it opens them, off its
     * task thread; a state the operator registers after that is still created when it adopts them.
     */
    @Test
    void statesAndTimersCreatedWhileOpeningAndAStateRegisteredLaterWorkAfterAdoption()
            throws Exception {
        VnodeKeyedStateBackend<Long> origin = harness.create(0, List.of());
        VnodeKeyedStateBackend<Long> target = harness.create(1, List.of());
        List<Long> originKeys =
                LongStream.range(0, 500).boxed().filter(k -> owner(k) == 0).toList();
        write(origin, originKeys);
        KeyGroupedInternalPriorityQueue<TimerHeapInternalTimer<Long, VoidNamespace>> originTimers =
                origin.create("timers", TIMERS);
        for (long key : originKeys) {
            origin.setCurrentKey(key);
            originTimers.add(new TimerHeapInternalTimer<>(key * 10, key, VoidNamespace.INSTANCE));
        }
        KeyGroupedInternalPriorityQueue<TimerHeapInternalTimer<Long, VoidNamespace>> targetTimers =
                target.create("timers", TIMERS);
        ValueState<Long> values = values(target);
        List<ShippedVnode> shipped =
                ship(origin, List.of(0, 1, 2, 3), new LocalDirectoryStateTransfer());

        List<PreparedVnode> opened =
                transfers
                        .open(target, shipped, new LocalDirectoryStateTransfer())
                        .get(1, TimeUnit.MINUTES);
        ValueState<String> later =
                target.getPartitionedState(
                        VoidNamespace.INSTANCE,
                        VoidNamespaceSerializer.INSTANCE,
                        new ValueStateDescriptor<>("later", Types.STRING));
        for (PreparedVnode vnode : opened) {
            target.adoptVnode(vnode);
        }

        for (long key : originKeys) {
            target.setCurrentKey(key);
            assertThat(values.value()).as("key %d", key).isEqualTo(key * 7);
            later.update("written after the adoption: " + key);
            assertThat(later.value()).isEqualTo("written after the adoption: " + key);
        }
        List<Long> timerKeys = new ArrayList<>();
        for (TimerHeapInternalTimer<Long, VoidNamespace> timer = targetTimers.poll();
                timer != null;
                timer = targetTimers.poll()) {
            timerKeys.add(timer.getKey());
        }
        assertThat(timerKeys).as("the moved timers, by time").containsExactlyElementsOf(originKeys);
    }

    @Test
    void aFailedOpenDropsTheVnodesThatOpened() throws Exception {
        VnodeKeyedStateBackend<Long> origin = harness.create(0, List.of());
        VnodeKeyedStateBackend<Long> target = harness.create(1, List.of());
        write(origin, LongStream.range(0, 500).boxed().filter(k -> owner(k) == 0).toList());
        List<ShippedVnode> shipped =
                ship(origin, List.of(0, 1, 2, 3), new LocalDirectoryStateTransfer());
        int instancesBefore = rocksDbInstances();
        assertThat(instancesBefore).as("the target's own vnodes 4..7").isEqualTo(4);

        StateTransfer failingOnVnode2 =
                localWith(
                        vnode -> {},
                        vnode -> {
                            if (vnode == 2) {
                                throw new IllegalStateException("Injected open failure of vnode 2");
                            }
                        });
        assertThatThrownBy(
                        () ->
                                transfers
                                        .open(target, shipped, failingOnVnode2)
                                        .get(1, TimeUnit.MINUTES))
                .hasRootCauseMessage("Injected open failure of vnode 2");

        assertThat(target.ownedVnodes()).containsExactly(4, 5, 6, 7);
        assertThat(rocksDbInstances())
                .as("the instances of vnodes 0, 1 and 3 were opened, then dropped")
                .isEqualTo(instancesBefore);
    }

    /**
     * What a shipment leaves on the target's side (the local export's directory) is deleted only
     * once every vnode of the open is installed, so that deleting does not delay the other opens,
     * and it is deleted then.
     */
    @Test
    void shipmentsAreDeletedOnceEveryVnodeOpened() throws Exception {
        VnodeKeyedStateBackend<Long> origin = harness.create(0, List.of());
        VnodeKeyedStateBackend<Long> target = harness.create(1, List.of());
        write(origin, LongStream.range(0, 500).boxed().filter(k -> owner(k) == 0).toList());
        List<ShippedVnode> shipped =
                ship(origin, List.of(0, 1, 2, 3), new LocalDirectoryStateTransfer());
        assertThat(exports(origin)).as("one export directory per shipped vnode").hasSize(4);
        List<String> events = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch allDeleted = new CountDownLatch(4);
        StateTransfer recording =
                localWith(
                        vnode -> {},
                        vnode -> {},
                        (vnode, leftovers) -> {
                            events.add("installed " + vnode);
                            return () -> {
                                events.add("deleted " + vnode);
                                leftovers.delete();
                                allDeleted.countDown();
                            };
                        });

        List<PreparedVnode> opened =
                transfers.open(target, shipped, recording).get(1, TimeUnit.MINUTES);

        assertThat(allDeleted.await(1, TimeUnit.MINUTES)).as("every shipment deleted").isTrue();
        assertThat(events.subList(0, 4))
                .as("four vnodes opened on three threads, no deletion between the opens")
                .allMatch(event -> event.startsWith("installed "));
        assertThat(exports(origin)).as("the export directories").isEmpty();
        for (PreparedVnode vnode : opened) {
            target.adoptVnode(vnode);
        }
        assertThat(target.ownedVnodes()).containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
    }

    private static List<Path> exports(VnodeKeyedStateBackend<Long> origin) throws Exception {
        try (Stream<Path> entries = Files.list(origin.transferDirectory().toPath())) {
            return entries.toList();
        }
    }

    @Test
    void eachShipmentIsReportedAsSoonAsItIsShipped() throws Exception {
        VnodeKeyedStateBackend<Long> origin = harness.create(0, List.of());
        write(origin, LongStream.range(0, 500).boxed().filter(k -> owner(k) == 0).toList());
        CountDownLatch othersReported = new CountDownLatch(3);
        // vnode 0 ships only once the three others were reported: reports held until every
        // shipment ended would make it give up
        StateTransfer vnode0Last =
                localWith(
                        vnode -> {
                            if (vnode == 0 && !othersReported.await(30, TimeUnit.SECONDS)) {
                                throw new IllegalStateException(
                                        "the other vnodes were not reported");
                            }
                        },
                        vnode -> {});
        List<Integer> reported = new ArrayList<>();

        transfers.ship(
                origin,
                List.of(0, 1, 2, 3),
                vnode -> 1,
                HandoverId.random(),
                vnode0Last,
                (vnode, shipment) -> {
                    reported.add(vnode);
                    othersReported.countDown();
                });

        assertThat(reported).containsExactlyInAnyOrder(0, 1, 2, 3).endsWith(0);
    }

    /** What a test does to a vnode before the local transfer ships or installs it. */
    @FunctionalInterface
    private interface VnodeStep {
        void before(int vnode) throws Exception;
    }

    /** What a test makes of what an install of a vnode left behind. */
    @FunctionalInterface
    private interface AfterInstall {
        StateTransfer.Leftovers after(int vnode, StateTransfer.Leftovers leftovers);
    }

    /** The local transfer, with {@code beforeShip} and {@code beforeInstall} run first. */
    private static StateTransfer localWith(VnodeStep beforeShip, VnodeStep beforeInstall) {
        return localWith(beforeShip, beforeInstall, (vnode, leftovers) -> leftovers);
    }

    /** The same, with what each install left behind passed through {@code afterInstall}. */
    private static StateTransfer localWith(
            VnodeStep beforeShip, VnodeStep beforeInstall, AfterInstall afterInstall) {
        StateTransfer local = new LocalDirectoryStateTransfer();
        return new StateTransfer() {
            @Override
            public Shipment ship(
                    VnodeKeyedStateBackend<?> backend,
                    int vnode,
                    int targetSubtask,
                    HandoverId handover)
                    throws Exception {
                beforeShip.before(vnode);
                return local.ship(backend, vnode, targetSubtask, handover);
            }

            @Override
            public Leftovers install(VnodeInstallTarget backend, int vnode, Serializable payload)
                    throws Exception {
                beforeInstall.before(vnode);
                return afterInstall.after(vnode, local.install(backend, vnode, payload));
            }
        };
    }

    private List<ShippedVnode> ship(
            VnodeKeyedStateBackend<Long> origin, List<Integer> vnodes, StateTransfer transfer)
            throws Exception {
        List<ShippedVnode> shipped = new ArrayList<>();
        transfers.ship(
                origin,
                vnodes,
                vnode -> 1,
                HandoverId.random(),
                transfer,
                (vnode, shipment) ->
                        shipped.add(new ShippedVnode(vnode, 0, 1, shipment.payload())));
        return shipped;
    }

    private static int owner(long key) {
        return SPEC.layout().vnodeOfKey(key) < 4 ? 0 : 1;
    }

    private static void write(VnodeKeyedStateBackend<Long> backend, List<Long> keys)
            throws Exception {
        ValueState<Long> values = values(backend);
        for (long key : keys) {
            backend.setCurrentKey(key);
            values.update(key * 7);
        }
    }

    private static ValueState<Long> values(VnodeKeyedStateBackend<Long> backend) throws Exception {
        return backend.getPartitionedState(
                VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, VALUE);
    }

    /** The target's RocksDB instances (each directory holds a CURRENT file) of this test. */
    private int rocksDbInstances() throws Exception {
        String targetInstances = "_op_op_1_vnode_";
        try (Stream<Path> files = Files.walk(harness.workingDirectory(1).toPath(), 3)) {
            return (int)
                    files.filter(f -> f.getFileName().toString().equals("CURRENT"))
                            .filter(f -> f.toString().contains(targetInstances))
                            .count();
        }
    }
}
