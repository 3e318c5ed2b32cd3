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

package io.rhino.flink.handover;

import static org.assertj.core.api.Assertions.assertThat;

import io.rhino.core.handover.HandoverId;
import io.rhino.flink.replication.PeerStateTransfer;
import io.rhino.flink.spec.RhinoOperatorSpec;
import io.rhino.flink.state.VnodeBackendHarness;
import io.rhino.flink.state.VnodeKeyedStateBackend;
import io.rhino.replication.ReplicationConfig;
import io.rhino.replication.ReplicationService;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two Rhino operators of one job on one TaskManager hand over the same vnode number under the same
 * handover id at the same time, as a drain's handovers do: their exports do not collide (each
 * backend has its own transfer directory), each target gets its own operator's state, and once the
 * backends are gone nothing is left in the TaskManager's {@code rhino-transfer} directory.
 */
class OperatorsSharingATaskManagerTest {

    private static final ValueStateDescriptor<Long> VALUE =
            new ValueStateDescriptor<>("value", Types.LONG);
    private static final HandoverId DRAIN = new HandoverId("drain-1");
    private static final int VNODE = 0;

    @TempDir Path tmp;
    private final List<AutoCloseable> resources = new ArrayList<>();

    @AfterEach
    void tearDown() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    @Test
    void localExportsOfTheSameVnodeAndHandoverByTwoOperatorsDoNotCollide() throws Exception {
        Path taskManager = Files.createDirectories(tmp.resolve("tm"));
        JobID job = new JobID();
        Operator a = new Operator("counts-a", 7, job, taskManager);
        Operator b = new Operator("counts-b", 11, job, taskManager);
        StateTransfer local = new LocalDirectoryStateTransfer();

        // both exported before either is installed, as when a drain's handovers run at once
        StateTransfer.Shipment fromA = local.ship(a.origin, VNODE, 1, DRAIN);
        StateTransfer.Shipment fromB = local.ship(b.origin, VNODE, 1, DRAIN);

        StateTransfer.Leftovers leftA = local.install(a.target, VNODE, fromA.payload());
        StateTransfer.Leftovers leftB = local.install(b.target, VNODE, fromB.payload());
        a.origin.removeVnode(VNODE);
        b.origin.removeVnode(VNODE);
        leftA.delete();
        leftB.delete();
        a.assertTargetHoldsItsState();
        b.assertTargetHoldsItsState();

        Set<Path> directories = new HashSet<>();
        for (Operator operator : List.of(a, b)) {
            directories.add(operator.origin.transferDirectory().toPath());
            directories.add(operator.target.transferDirectory().toPath());
        }
        assertThat(directories).as("each backend's own transfer directory").hasSize(4);
        tearDown();
        resources.clear();
        assertThat(entriesUnder(taskManager.resolve("rhino-transfer")))
                .as("left in rhino-transfer once the backends are gone")
                .isEmpty();
    }

    /**
     * With replication mode {@code peers}, operator a's export waits for a TaskManager that never
     * answers while operator b ships the same vnode under the same handover id to one that does.
     */
    @Test
    void peerExportsOfTheSameVnodeAndHandoverByTwoOperatorsDoNotCollide() throws Exception {
        Path taskManager = Files.createDirectories(tmp.resolve("tm"));
        JobID job = new JobID();
        Operator a = new Operator("counts-a", 7, job, taskManager);
        Operator b = new Operator("counts-b", 11, job, taskManager);
        ReplicationService originService = service("127.0.0.2", "origin-store");
        ReplicationService targetService = service("127.0.0.3", "target-store");
        SilentPeer silent = new SilentPeer("127.0.0.4");
        resources.add(silent);
        String prefixA = job + "/counts-a";
        String prefixB = job + "/counts-b";
        PeerStateTransfer aToSilent =
                new PeerStateTransfer(
                        new LocalDirectoryStateTransfer(),
                        originService,
                        subtask -> silent.address(),
                        () -> null,
                        prefixA,
                        60_000);
        PeerStateTransfer bToTarget =
                new PeerStateTransfer(
                        new LocalDirectoryStateTransfer(),
                        originService,
                        subtask -> targetService.address().toString(),
                        () -> null,
                        prefixB,
                        30_000);

        CompletableFuture<Void> aShipping =
                CompletableFuture.runAsync(
                        () -> {
                            try {
                                aToSilent.ship(a.origin, VNODE, 1, DRAIN);
                            } catch (Exception expected) {
                                // the silent peer never takes the files
                            }
                        });
        awaitExportOf(a.origin);
        StateTransfer.Shipment fromB = bToTarget.ship(b.origin, VNODE, 1, DRAIN);
        assertThat(aShipping).as("a's export still waits for the silent peer").isNotDone();

        PeerStateTransfer atTarget =
                new PeerStateTransfer(
                        new LocalDirectoryStateTransfer(),
                        targetService,
                        subtask -> targetService.address().toString(),
                        () -> null,
                        prefixB,
                        30_000);
        atTarget.install(b.target, VNODE, fromB.payload()).delete();
        b.origin.removeVnode(VNODE);
        b.assertTargetHoldsItsState();

        // the peer goes away: a's shipment fails, and its export with it
        silent.close();
        aShipping.get(2, TimeUnit.MINUTES);
        tearDown();
        resources.clear();
        assertThat(entriesUnder(taskManager.resolve("rhino-transfer")))
                .as("left in rhino-transfer once the backends are gone")
                .isEmpty();
    }

    /** Waits until the backend's export of {@link #VNODE} for a peer exists. */
    private static void awaitExportOf(VnodeKeyedStateBackend<Long> origin) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (entriesUnder(origin.transferDirectory().toPath()).stream()
                .noneMatch(path -> path.getFileName().toString().endsWith("-peer"))) {
            assertThat(System.nanoTime()).as("operator a's export started").isLessThan(deadline);
            Thread.sleep(5);
        }
    }

    private ReplicationService service(String host, String store) throws Exception {
        ReplicationService service =
                ReplicationService.start(
                        ReplicationConfig.anyPort(
                                host, tmp.resolve(store), "s", Duration.ofSeconds(30)));
        resources.add(service);
        return service;
    }

    private static List<Path> entriesUnder(Path directory) throws IOException {
        if (!Files.exists(directory)) {
            return List.of();
        }
        try (Stream<Path> paths = Files.walk(directory)) {
            return paths.filter(path -> !path.equals(directory)).toList();
        } catch (UncheckedIOException e) {
            if (e.getCause() instanceof NoSuchFileException) {
                return entriesUnder(directory); // RocksDB renamed a file during the walk: again
            }
            throw e;
        }
    }

    /**
     * One Rhino operator of the job on the TaskManager: subtask 0 (the origin, whose vnode 0 keys
     * hold {@code key * factor}) and subtask 1 (the target).
     */
    private final class Operator {
        private final RhinoOperatorSpec spec;
        private final long factor;
        private final VnodeKeyedStateBackend<Long> origin;
        private final VnodeKeyedStateBackend<Long> target;
        private final List<Long> keys;

        Operator(String name, long factor, JobID job, Path taskManager) throws Exception {
            this.spec = new RhinoOperatorSpec(name, 128, 8, 2, 2);
            this.factor = factor;
            VnodeBackendHarness harness =
                    new VnodeBackendHarness(spec, tmp.resolve("checkpoints-" + name))
                            .onTaskManager(job, taskManager.toFile());
            resources.add(harness);
            origin = harness.create(0, List.of());
            target = harness.create(1, List.of());
            keys = harness.keysOf(VNODE, 200);
            ValueState<Long> values = values(origin);
            for (long key : keys) {
                origin.setCurrentKey(key);
                values.update(key * factor);
            }
            harness.checkpoint(origin, 1);
        }

        void assertTargetHoldsItsState() throws Exception {
            assertThat(target.ownedVnodes()).contains(VNODE);
            ValueState<Long> values = values(target);
            for (long key : keys) {
                target.setCurrentKey(key);
                assertThat(values.value())
                        .as("%s key %d", spec.name(), key)
                        .isEqualTo(key * factor);
            }
        }
    }

    private static ValueState<Long> values(VnodeKeyedStateBackend<Long> backend) throws Exception {
        return backend.getPartitionedState(
                VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, VALUE);
    }

    /** Accepts connections and never answers: a handshake with it never ends. */
    private static final class SilentPeer implements AutoCloseable {
        private final ServerSocket server;
        private final List<Socket> accepted = new ArrayList<>();
        private final Thread acceptor;

        SilentPeer(String host) throws IOException {
            server = new ServerSocket(0, 50, InetAddress.getByName(host));
            acceptor =
                    new Thread(
                            () -> {
                                try {
                                    while (true) {
                                        Socket socket = server.accept();
                                        synchronized (accepted) {
                                            accepted.add(socket);
                                        }
                                    }
                                } catch (IOException closed) {
                                    // the test ended
                                }
                            },
                            "silent-peer");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        String address() {
            return server.getInetAddress().getHostAddress() + ":" + server.getLocalPort();
        }

        @Override
        public void close() throws Exception {
            server.close();
            acceptor.join(10_000);
            synchronized (accepted) {
                for (Socket socket : accepted) {
                    socket.close();
                }
            }
        }
    }
}
