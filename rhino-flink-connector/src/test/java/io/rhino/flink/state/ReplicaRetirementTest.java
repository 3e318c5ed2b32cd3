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

import io.rhino.flink.replication.PeerVnodeReplication;
import io.rhino.flink.replication.ReplicaListing;
import io.rhino.flink.spec.RhinoOperatorSpec;
import io.rhino.flink.testjobs.CheckpointFiles;
import io.rhino.replication.ReplicationService;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * When a subtask's chain changes, the members it no longer replicates to drop its copies once the
 * new chain holds a completed checkpoint, whether the chain changed while the subtask ran or with a
 * restore (the restored checkpoint's manifest names the old holders). Real replication services on
 * three addresses, each store collected as on a TaskManager.
 */
class ReplicaRetirementTest {

    private static final RhinoOperatorSpec SPEC = new RhinoOperatorSpec("op", 128, 4, 1, 1);
    private static final String PREFIX = "job/op";
    private static final ValueStateDescriptor<String> VALUE =
            new ValueStateDescriptor<>("value", Types.STRING);

    @TempDir Path tmp;
    private VnodeBackendHarness harness;
    private final List<ReplicationService> services = new ArrayList<>();
    private ReplicationService primary;
    private ReplicationService former;
    private ReplicationService next;

    @BeforeEach
    void start() throws Exception {
        harness = new VnodeBackendHarness(SPEC, tmp.resolve("checkpoints"));
        primary = service("127.0.0.2", "primary");
        former = service("127.0.0.3", "former");
        next = service("127.0.0.4", "next");
    }

    @AfterEach
    void stop() throws Exception {
        harness.close();
        services.forEach(ReplicationService::close);
    }

    @Test
    void aChainChangeWhileRunningRetiresTheFormerMember() throws Exception {
        VnodeKeyedStateBackend<Long> backend = harness.create(0, List.of());
        put(backend, "a");
        PeerVnodeReplication first = replication(former);
        backend.replicateWith(first);
        harness.checkpoint(backend, 1);
        assertThat(sstFiles(former)).as("the first chain's copies").isNotEmpty();

        PeerVnodeReplication second = replication(next);
        first.handOver(second);
        backend.replicateWith(second);
        put(backend, "b");
        harness.checkpoint(backend, 2);
        assertThat(sstFiles(former))
                .as("kept until the new chain holds a completed checkpoint")
                .isNotEmpty();
        harness.checkpoint(backend, 3);

        awaitNoCopies(former);
        assertHoldsEveryVnode(next, backend.ownedVnodes(), 3);
    }

    @Test
    void aRestoreOntoAnotherChainRetiresTheHoldersTheManifestNames() throws Exception {
        VnodeKeyedStateBackend<Long> backend = harness.create(0, List.of());
        put(backend, "a");
        backend.replicateWith(replication(former));
        KeyedStateHandle checkpoint = harness.checkpoint(backend, 1);
        assertThat(sstFiles(former)).isNotEmpty();

        VnodeKeyedStateBackend<Long> restored = harness.create(0, List.of(checkpoint));
        restored.replicateWith(replication(next));
        harness.checkpoint(restored, 2);
        harness.checkpoint(restored, 3);

        awaitNoCopies(former);
        assertHoldsEveryVnode(next, restored.ownedVnodes(), 3);
    }

    @Test
    void theSameChainKeepsItsCopies() throws Exception {
        VnodeKeyedStateBackend<Long> backend = harness.create(0, List.of());
        put(backend, "a");
        PeerVnodeReplication first = replication(former);
        backend.replicateWith(first);
        harness.checkpoint(backend, 1);
        PeerVnodeReplication again = replication(former);
        first.handOver(again);
        backend.replicateWith(again);
        harness.checkpoint(backend, 2);
        harness.checkpoint(backend, 3);
        Thread.sleep(500); // a wrongly sent notice would arrive by now
        assertHoldsEveryVnode(former, backend.ownedVnodes(), 3);
    }

    private void assertHoldsEveryVnode(ReplicationService holder, int[] vnodes, long checkpoint)
            throws Exception {
        for (int vnode : vnodes) {
            String directory = ReplicaListing.vnodeDirectory(PREFIX, vnode);
            Path listing =
                    holder.store()
                            .file(ReplicaListing.path(directory, checkpoint))
                            .orElseThrow(
                                    () ->
                                            new AssertionError(
                                                    holder.address()
                                                            + " lacks vnode "
                                                            + vnode
                                                            + " as of "
                                                            + checkpoint));
            for (String file : ReplicaListing.read(listing).files()) {
                assertThat(holder.store().verify(directory + "/" + file))
                        .as("%s of vnode %d on %s", file, vnode, holder.address())
                        .isTrue();
            }
        }
    }

    private static void awaitNoCopies(ReplicationService holder) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        Set<Path> left = sstFiles(holder);
        while (!left.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(50);
            left = sstFiles(holder);
        }
        assertThat(left).as("SST copies left on the former member %s", holder.address()).isEmpty();
        assertThat(
                        CheckpointFiles.filesNamed(
                                holder.store().root(), name -> name.equals(ReplicaListing.NAME)))
                .as("listings left on the former member")
                .isEmpty();
    }

    private static Set<Path> sstFiles(ReplicationService holder) throws IOException {
        return CheckpointFiles.filesNamed(holder.store().root(), name -> name.endsWith(".sst"));
    }

    private PeerVnodeReplication replication(ReplicationService member) {
        return ReplicationFixtures.chain(
                primary, member, PREFIX, tmp.resolve("capture"), new AtomicLong());
    }

    private ReplicationService service(String host, String name) throws Exception {
        ReplicationService service = ReplicationFixtures.service(host, tmp.resolve(name), "retire");
        services.add(service);
        return service;
    }

    private static void put(VnodeKeyedStateBackend<Long> backend, String round) throws Exception {
        ValueState<String> state =
                backend.getPartitionedState(
                        VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, VALUE);
        for (long key = 0; key < 5_000; key++) {
            backend.setCurrentKey(key);
            state.update(round + "-" + key + "-".repeat((int) (key % 40)));
        }
    }
}
