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

import io.rhino.flink.replication.PeerVnodeReplication;
import io.rhino.flink.replication.ReplicaListing;
import io.rhino.flink.replication.ReplicaRestore;
import io.rhino.flink.spec.RhinoOperatorSpec;
import io.rhino.replication.ReplicationService;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
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
 * With a replica chain, a checkpoint that reuses an idle vnode's snapshot does not capture the
 * vnode either: the chain lists its replica of that snapshot again under the new checkpoint, sent
 * only the listing (which names the snapshot's metadata files where its round put them); a written
 * vnode's round sends its new files and the metadata files that changed; and a restore from the
 * replicas of such a checkpoint gives back every value, after the holders dropped the checkpoint
 * that sent those files.
 */
class IdleVnodeReplicationTest {

    private static final RhinoOperatorSpec SPEC = new RhinoOperatorSpec("op", 128, 4, 1, 1);
    private static final String PREFIX = "job/op";
    private static final ValueStateDescriptor<String> VALUE =
            new ValueStateDescriptor<>("value", Types.STRING);

    @TempDir Path tmp;
    private VnodeBackendHarness harness;
    private ReplicationService primary;
    private ReplicationService holder;
    private final AtomicLong sent = new AtomicLong();
    private final Map<Long, String> values = new TreeMap<>();

    @BeforeEach
    void setUp() throws Exception {
        harness = new VnodeBackendHarness(SPEC, tmp.resolve("checkpoints"));
        primary = service("127.0.0.2", "primary");
        holder = service("127.0.0.3", "holder");
    }

    @AfterEach
    void tearDown() throws Exception {
        harness.close();
        primary.close();
        holder.close();
    }

    @Test
    void idleVnodesAreListedAgainWithoutTheirFilesAndRestoreFromTheReplicas() throws Exception {
        VnodeKeyedStateBackend<Long> backend = harness.create(0, List.of());
        int[] vnodes = backend.ownedVnodes();
        for (int vnode : vnodes) {
            write(backend, vnode, 3_000, "first");
        }
        backend.replicateWith(replication());
        harness.checkpoint(backend, 1);
        assertThat(backend.lastCheckpointSnapshottedVnodes()).isEqualTo(vnodes.length);
        Map<Integer, List<String>> first = listings(vnodes, 1);
        Map<String, Object> inodes = sstInodes(first);
        long sstBytes = sstBytes(first);
        assertThat(sstBytes).as("SST bytes the holder received").isPositive();

        // nothing written: every vnode's replica of checkpoint 1 is listed again as checkpoint 2
        sent.set(0);
        harness.checkpoint(backend, 2);
        assertThat(backend.lastCheckpointReusedVnodes()).isEqualTo(vnodes.length);
        assertThat(backend.lastCheckpointSnapshottedVnodes()).isZero();
        Map<Integer, List<String>> second = listings(vnodes, 2);
        for (int vnode : vnodes) {
            assertThat(ssts(second.get(vnode)))
                    .as("vnode %d's SST files listed for checkpoint 2", vnode)
                    .isEqualTo(ssts(first.get(vnode)));
            assertThat(second.get(vnode))
                    .as("vnode %d's metadata files of checkpoint 2: those checkpoint 1 sent", vnode)
                    .anyMatch(file -> file.equals("chk-1/CURRENT"))
                    .noneMatch(file -> file.startsWith("chk-2/"));
        }
        assertThat(sstInodes(second)).as("no SST file sent again").isEqualTo(inodes);
        assertThat(sent.get()).as("bytes of the snapshots sent for checkpoint 2").isZero();

        // one vnode written: it alone is captured and sent; the others are listed again
        int written = vnodes[1];
        write(backend, written, 3_000, "third");
        KeyedStateHandle third = harness.checkpoint(backend, 3);
        assertThat(backend.lastCheckpointSnapshottedVnodes()).isEqualTo(1);
        assertThat(backend.lastCheckpointReusedVnodes()).isEqualTo(vnodes.length - 1);
        Map<Integer, List<String>> thirdListings = listings(vnodes, 3);
        for (int vnode : vnodes) {
            if (vnode == written) {
                assertThat(ssts(thirdListings.get(vnode)))
                        .as("the written vnode's new files")
                        .isNotEqualTo(ssts(first.get(vnode)));
            } else {
                assertThat(ssts(thirdListings.get(vnode))).isEqualTo(ssts(first.get(vnode)));
            }
        }

        // the written vnode's RocksDB OPTIONS and CURRENT did not change since checkpoint 1: they
        // stay where checkpoint 1 sent them; only its new MANIFEST went with its new SST files
        assertThat(thirdListings.get(written))
                .as("the written vnode's metadata files listed for checkpoint 3")
                .contains("chk-1/CURRENT")
                .anyMatch(file -> file.startsWith("chk-1/OPTIONS-"))
                .anyMatch(file -> file.startsWith("chk-3/MANIFEST-"));
        String writtenDirectory = ReplicaListing.vnodeDirectory(PREFIX, written);
        try (Stream<Path> sentFor3 =
                Files.list(holder.store().resolve(writtenDirectory + "/chk-3"))) {
            assertThat(
                            sentFor3.map(f -> f.getFileName().toString())
                                    .filter(name -> !name.endsWith(".crc32c")))
                    .as("what checkpoint 3 sent the holder for the written vnode, besides SSTs")
                    .allMatch(
                            name ->
                                    name.startsWith("MANIFEST-")
                                            || ReplicaListing.path(writtenDirectory, 3)
                                                    .endsWith("/" + name));
        }

        // checkpoint 3's listings made the holder drop checkpoint 1's listings (2 completed), but
        // not the metadata files the kept listings of checkpoints 2 and 3 name there
        for (int vnode : vnodes) {
            String directory = ReplicaListing.vnodeDirectory(PREFIX, vnode);
            assertThat(holder.store().file(ReplicaListing.path(directory, 1)))
                    .as("vnode %d's listing of checkpoint 1", vnode)
                    .isEmpty();
            assertThat(holder.store().file(directory + "/chk-1/CURRENT"))
                    .as("vnode %d's CURRENT of checkpoint 1", vnode)
                    .isPresent();
        }

        // the holder's copies of checkpoint 3 are whole: a subtask on its TaskManager restores
        // every vnode from them, none from the checkpoint storage
        harness.withReplicas(
                (holders, work) -> Optional.of(ReplicaRestore.from(holder.store(), PREFIX, work)));
        VnodeKeyedStateBackend<Long> restored = harness.create(0, List.of(third));
        assertThat(restored.restoreSources())
                .as("where each vnode of checkpoint 3 was restored from")
                .hasSize(vnodes.length)
                .allSatisfy((vnode, source) -> assertThat(source).isEqualTo(RestoreSource.REPLICA));
        ValueState<String> state = valueState(restored);
        for (Map.Entry<Long, String> entry : values.entrySet()) {
            restored.setCurrentKey(entry.getKey());
            assertThat(state.value()).as("key %d", entry.getKey()).isEqualTo(entry.getValue());
        }
    }

    /**
     * A replica the chain lost is not listed again blindly: the round refuses it, the checkpoint
     * fails, and the next checkpoint sends the vnode whole.
     */
    @Test
    void aVnodeWhoseReplicaTheHolderLostIsSentWholeAfterTheFailedRelist() throws Exception {
        VnodeKeyedStateBackend<Long> backend = harness.create(0, List.of());
        int[] vnodes = backend.ownedVnodes();
        for (int vnode : vnodes) {
            write(backend, vnode, 3_000, "first");
        }
        backend.replicateWith(replication());
        harness.checkpoint(backend, 1);
        Map<Integer, List<String>> first = listings(vnodes, 1);
        int lost = vnodes[0];
        String lostFile = ssts(first.get(lost)).get(0);
        // the copy and its checksum, as a store that lost the file has neither
        Path copy =
                holder.store()
                        .file(ReplicaListing.vnodeDirectory(PREFIX, lost) + "/" + lostFile)
                        .orElseThrow();
        try (Stream<Path> siblings = Files.list(copy.getParent())) {
            for (Path sibling : siblings.toList()) {
                if (sibling.getFileName().toString().startsWith(copy.getFileName().toString())) {
                    Files.delete(sibling);
                }
            }
        }
        assertThat(
                        holder.store()
                                .file(ReplicaListing.vnodeDirectory(PREFIX, lost) + "/" + lostFile))
                .isEmpty();

        assertThatThrownBy(() -> harness.checkpoint(backend, 2))
                .as("checkpoint 2, whose listing of vnode %d names a file the holder lost", lost)
                .isInstanceOf(Exception.class);

        sent.set(0);
        harness.checkpoint(backend, 3);
        assertThat(backend.lastCheckpointSnapshottedVnodes())
                .as("vnodes captured again at checkpoint 3: the one whose relist failed")
                .isEqualTo(1);
        assertThat(backend.lastCheckpointReusedVnodes()).isEqualTo(vnodes.length - 1);
        List<String> third = listings(vnodes, 3).get(lost);
        assertThat(ssts(third)).as("vnode %d's SST files of checkpoint 3", lost).isNotEmpty();
        for (String file : third) {
            assertThat(
                            holder.store()
                                    .file(ReplicaListing.vnodeDirectory(PREFIX, lost) + "/" + file))
                    .as("vnode %d's %s on the holder after checkpoint 3", lost, file)
                    .isPresent();
        }
    }

    private void write(VnodeKeyedStateBackend<Long> backend, int vnode, int count, String tag)
            throws Exception {
        ValueState<String> state = valueState(backend);
        for (long key : harness.keysOf(vnode, count)) {
            backend.setCurrentKey(key);
            String value = tag + "-" + key + "-".repeat((int) (key % 40));
            state.update(value);
            values.put(key, value);
        }
    }

    private static ValueState<String> valueState(VnodeKeyedStateBackend<Long> backend)
            throws Exception {
        return backend.getPartitionedState(
                VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, VALUE);
    }

    private Map<Integer, List<String>> listings(int[] vnodes, long checkpoint) throws Exception {
        Map<Integer, List<String>> listings = new TreeMap<>();
        for (int vnode : vnodes) {
            String directory = ReplicaListing.vnodeDirectory(PREFIX, vnode);
            listings.put(
                    vnode,
                    ReplicaListing.read(
                                    holder.store()
                                            .file(ReplicaListing.path(directory, checkpoint))
                                            .orElseThrow(
                                                    () ->
                                                            new AssertionError(
                                                                    "no listing of vnode "
                                                                            + vnode
                                                                            + " for checkpoint "
                                                                            + checkpoint)))
                            .files());
        }
        return listings;
    }

    private static List<String> ssts(List<String> listed) {
        return listed.stream().filter(f -> f.endsWith(".sst")).sorted().toList();
    }

    private Map<String, Object> sstInodes(Map<Integer, List<String>> listings) throws Exception {
        Map<String, Object> inodes = new HashMap<>();
        for (Map.Entry<Integer, List<String>> listing : listings.entrySet()) {
            String directory = ReplicaListing.vnodeDirectory(PREFIX, listing.getKey());
            for (String file : ssts(listing.getValue())) {
                Path copy = holder.store().file(directory + "/" + file).orElseThrow();
                inodes.put(directory + "/" + file, Files.getAttribute(copy, "unix:ino"));
            }
        }
        return inodes;
    }

    private long sstBytes(Map<Integer, List<String>> listings) throws Exception {
        long bytes = 0;
        for (Map.Entry<Integer, List<String>> listing : listings.entrySet()) {
            String directory = ReplicaListing.vnodeDirectory(PREFIX, listing.getKey());
            for (String file : ssts(listing.getValue())) {
                bytes += Files.size(holder.store().file(directory + "/" + file).orElseThrow());
            }
        }
        return bytes;
    }

    private PeerVnodeReplication replication() {
        return ReplicationFixtures.chain(primary, holder, PREFIX, tmp.resolve("capture"), sent);
    }

    private ReplicationService service(String host, String name) throws Exception {
        return ReplicationFixtures.service(host, tmp.resolve(name), "seed");
    }
}
