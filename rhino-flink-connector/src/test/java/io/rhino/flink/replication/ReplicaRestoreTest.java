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

package io.rhino.flink.replication;

import static org.assertj.core.api.Assertions.assertThat;

import io.rhino.replication.ReplicationConfig;
import io.rhino.replication.ReplicationService;
import io.rhino.replication.store.ReplicaStore;
import io.rhino.replication.testing.ChangingFileTree;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserDefinedFileAttributeView;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.zip.CRC32C;
import org.apache.flink.runtime.state.IncrementalKeyedStateHandle.HandleAndLocalPath;
import org.apache.flink.runtime.state.IncrementalLocalKeyedStateHandle;
import org.apache.flink.runtime.state.IncrementalRemoteKeyedStateHandle;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.memory.ByteStreamStateHandle;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * When a vnode restores from a replica on a real store, and when it falls back to Flink's handle.
 */
class ReplicaRestoreTest {

    private static final String PREFIX = "job/op";
    private static final String VNODE = PREFIX + "/vnode-3";
    private static final long CHECKPOINT = 7;

    @TempDir Path root;
    @TempDir Path scratch;
    @TempDir Path work;
    private ReplicaStore store;

    @BeforeEach
    void openStore() throws Exception {
        store = new ReplicaStore(root);
    }

    @Test
    void aWholeReplicaOfTheRestoredCheckpointIsLinkedIntoALocalHandleWithFlinksIdentity()
            throws Exception {
        storeReplica(Map.of("i-a/000010.sst", "ten", "i-a/000011.sst", "eleven"));
        IncrementalRemoteKeyedStateHandle remote =
                flinkHandle(Map.of("000010.sst", 3L, "000011.sst", 6L));

        try (ReplicaRestore restore = ReplicaRestore.from(store, PREFIX, work)) {
            List<KeyedStateHandle> handles = restore.handlesFor(3, List.of(remote));

            assertThat(handles)
                    .hasSize(1)
                    .first()
                    .isInstanceOf(IncrementalLocalKeyedStateHandle.class);
            IncrementalLocalKeyedStateHandle local =
                    (IncrementalLocalKeyedStateHandle) handles.get(0);
            assertThat(local.getBackendIdentifier()).isEqualTo(remote.getBackendIdentifier());
            assertThat(local.getCheckpointId()).isEqualTo(CHECKPOINT);
            assertThat(local.getSharedStateHandles()).isEqualTo(remote.getSharedState());
            assertThat(local.getMetaDataStateHandle()).isSameAs(remote.getMetaDataStateHandle());
            Path db = Path.of(local.getDirectoryStateHandle().getDirectory().toUri());
            assertThat(Files.readString(db.resolve("000011.sst"))).isEqualTo("eleven");
            assertThat(Files.readString(db.resolve("MANIFEST-000005"))).isEqualTo("manifest");
            assertThat(restore.restoredVnodes()).isEqualTo(1);
            assertThat(restore.linkedBytes())
                    .isEqualTo(3 + 6 + "manifest".length() + "current".length());

            restore.close();
            assertThat(db).doesNotExist();
            assertThat(store.file(VNODE + "/i-a/000011.sst")).as("the replica stays").isPresent();
        }
    }

    @Test
    void aReplicaOnlyAnotherServiceHoldsIsFetchedPastADeadHolderAndLinked(@TempDir Path services)
            throws Exception {
        String dead;
        try (ServerSocket closed = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.4"))) {
            dead = "127.0.0.4:" + closed.getLocalPort();
        }
        try (ReplicationService holder = service("127.0.0.2", services.resolve("holder"));
                ReplicationService restorer = service("127.0.0.3", services.resolve("restorer"))) {
            store = holder.store();
            storeReplica(Map.of("i-a/000010.sst", "ten", "i-a/000011.sst", "eleven"));
            IncrementalRemoteKeyedStateHandle remote =
                    flinkHandle(Map.of("000010.sst", 3L, "000011.sst", 6L));

            ReplicaRestore restore =
                    ReplicaRestore.from(
                            restorer, List.of(dead, holder.address().toString()), PREFIX, work);
            List<KeyedStateHandle> handles = restore.handlesFor(3, List.of(remote));

            assertThat(handles).first().isInstanceOf(IncrementalLocalKeyedStateHandle.class);
            Path db =
                    Path.of(
                            ((IncrementalLocalKeyedStateHandle) handles.get(0))
                                    .getDirectoryStateHandle()
                                    .getDirectory()
                                    .toUri());
            assertThat(Files.readString(db.resolve("000011.sst"))).isEqualTo("eleven");
            assertThat(Files.readString(db.resolve("CURRENT"))).isEqualTo("current");
            assertThat(restore.restoredVnodes()).isEqualTo(1);
            assertThat(restore.fetchedVnodes()).isEqualTo(1);
            assertThat(restore.fetchedBytes())
                    .isEqualTo(3 + 6 + "manifest".length() + "current".length());
            assertThat(restorer.store().usedBytes()).isPositive();

            restore.close();
            assertThat(restorer.store().usedBytes())
                    .as("fetched copies, after the restore")
                    .isZero();
            assertThat(holder.store().file(VNODE + "/i-a/000010.sst")).isPresent();
        }
    }

    /**
     * The vnodes a restarting subtask must fetch arrive before it asks for them, a few at a time,
     * while it opens the first ones; a replica held here is linked, not fetched; and a restore that
     * ends before it used its prefetches leaves no fetched copy behind.
     */
    @Test
    void theVnodesToFetchArePrefetchedAndAnUnusedPrefetchIsDeleted(@TempDir Path services)
            throws Exception {
        try (ReplicationService holder = service("127.0.0.2", services.resolve("holder"));
                ReplicationService restorer = service("127.0.0.3", services.resolve("restorer"))) {
            Map<Integer, List<KeyedStateHandle>> handles = new TreeMap<>();
            for (int vnode = 3; vnode < 8; vnode++) {
                store = vnode == 7 ? restorer.store() : holder.store();
                storeReplica(
                        ReplicaListing.vnodeDirectory(PREFIX, vnode),
                        Map.of("i-a/000010.sst", "ten-" + vnode, "i-a/000011.sst", "eleven"));
                handles.put(
                        vnode, List.of(flinkHandle(Map.of("000010.sst", 5L, "000011.sst", 6L))));
            }
            long heldHere = restorer.store().usedBytes();
            long perVnode = 5 + 6 + "manifest".length() + "current".length();

            ReplicaRestore restore =
                    ReplicaRestore.from(
                            restorer, List.of(holder.address().toString()), PREFIX, work);
            restore.prefetch(handles);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (fetchedFiles(services.resolve("restorer")) < 4 * 4) {
                assertThat(System.nanoTime())
                        .as("the 4 vnodes held elsewhere fetched before they were asked for")
                        .isLessThan(deadline);
                Thread.sleep(10);
            }
            for (int vnode = 3; vnode < 8; vnode++) {
                List<KeyedStateHandle> restored = restore.handlesFor(vnode, handles.get(vnode));
                assertThat(restored).first().isInstanceOf(IncrementalLocalKeyedStateHandle.class);
                Path db =
                        Path.of(
                                ((IncrementalLocalKeyedStateHandle) restored.get(0))
                                        .getDirectoryStateHandle()
                                        .getDirectory()
                                        .toUri());
                assertThat(Files.readString(db.resolve("000010.sst"))).isEqualTo("ten-" + vnode);
            }
            assertThat(restore.restoredVnodes()).isEqualTo(5);
            assertThat(restore.fetchedVnodes()).as("vnode 7 is held here").isEqualTo(4);
            assertThat(restore.fetchedBytes()).isEqualTo(4 * perVnode);
            restore.close();
            assertThat(restorer.store().usedBytes()).isEqualTo(heldHere);

            ReplicaRestore abandoned =
                    ReplicaRestore.from(
                            restorer, List.of(holder.address().toString()), PREFIX, work);
            abandoned.prefetch(handles);
            abandoned.close();
            Thread.sleep(1_000); // the prefetches of a few bytes end meanwhile
            deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (restorer.store().usedBytes() > heldHere) {
                assertThat(System.nanoTime())
                        .as("fetched copies of a restore closed while it prefetched")
                        .isLessThan(deadline);
                Thread.sleep(10);
            }
        }
    }

    private static ReplicationService service(String host, Path store) throws Exception {
        return ReplicationService.start(
                ReplicationConfig.anyPort(host, store, "s", Duration.ofSeconds(30)));
    }

    /** The fetched files of vnodes (SST files, MANIFEST, CURRENT) under a store's root. */
    private static long fetchedFiles(Path storeRoot) throws IOException {
        return ChangingFileTree.regularFiles(storeRoot).stream()
                .filter(file -> file.toString().contains("_fetched"))
                .map(file -> file.getFileName().toString())
                .filter(
                        name ->
                                name.endsWith(".sst")
                                        || name.startsWith("MANIFEST")
                                        || name.equals("CURRENT"))
                .count();
    }

    @Test
    void withoutTheListingOfThatCheckpointFlinksHandleIsKept() throws Exception {
        storeReplica(Map.of("i-a/000010.sst", "ten"));
        IncrementalRemoteKeyedStateHandle other =
                new IncrementalRemoteKeyedStateHandle(
                        UUID.randomUUID(),
                        KeyGroupRange.of(0, 9),
                        CHECKPOINT + 1,
                        shared(Map.of("000010.sst", 3L)),
                        List.of(),
                        metadata());

        assertFallsBack(other);
    }

    @Test
    void aReplicaMissingAListedFileIsNotUsed() throws Exception {
        storeReplica(Map.of("i-a/000010.sst", "ten", "i-a/000011.sst", "eleven"));
        store.delete(VNODE + "/i-a/000011.sst");

        assertFallsBack(flinkHandle(Map.of("000010.sst", 3L, "000011.sst", 6L)));
    }

    @Test
    void anSstFileWhoseSizeDiffersFromFlinksCopyIsNotUsed() throws Exception {
        storeReplica(Map.of("i-a/000010.sst", "ten", "i-a/000011.sst", "damaged"));

        assertFallsBack(flinkHandle(Map.of("000010.sst", 3L, "000011.sst", 6L)));
    }

    @Test
    void aReplicaDamagedOnDiskSinceItArrivedIsNotUsed() throws Exception {
        storeDamagedReplica();

        assertFallsBack(flinkHandle(Map.of("000010.sst", 3L, "000011.sst", 6L)));
    }

    /**
     * With the checks after the open, a damaged replica opens (its check follows); but one that an
     * earlier restore opened unchecked, whose task failed before the check ended (a failover
     * landing meanwhile), is checked first and passed over: no failover loop on one replica.
     */
    @Test
    void withChecksAfterTheOpenAReplicaOpenedUncheckedBeforeIsCheckedFirst() throws Exception {
        storeDamagedReplica();
        IncrementalRemoteKeyedStateHandle remote =
                flinkHandle(Map.of("000010.sst", 3L, "000011.sst", 6L));
        try (ReplicaRestore first = ReplicaRestore.from(store, PREFIX, work, false)) {
            assertThat(first.handlesFor(3, List.of(remote)))
                    .as("the first restore, its check to follow the open")
                    .doesNotContain(remote);
            // the task fails before its check starts: the check never runs
        }
        assertThat(store.mustCheckBeforeOpening(VNODE + "/i-a/000011.sst")).isTrue();

        try (ReplicaRestore second = ReplicaRestore.from(store, PREFIX, work, false)) {
            assertThat(second.handlesFor(3, List.of(remote)))
                    .as("the failover's restore")
                    .containsExactly(remote);
            assertThat(second.restoredVnodes()).isZero();
        }
    }

    private void storeDamagedReplica() throws Exception {
        storeReplica(Map.of("i-a/000010.sst", "ten", "i-a/000011.sst", "eleven"));
        Path sst = store.file(VNODE + "/i-a/000011.sst").orElseThrow();
        byte[] bytes = Files.readAllBytes(sst);
        bytes[2] ^= 0x01; // one flipped bit, the size unchanged
        Files.write(sst, bytes);
    }

    @Test
    void aReplicaWhoseStoredChecksumIsDamagedIsNotUsed() throws Exception {
        storeReplica(Map.of("i-a/000010.sst", "ten"));
        Path sst = store.file(VNODE + "/i-a/000010.sst").orElseThrow();
        if (store.checksumsInAttributes()) {
            Files.getFileAttributeView(sst, UserDefinedFileAttributeView.class)
                    .write(ReplicaStore.CHECKSUM_ATTRIBUTE, ByteBuffer.wrap(new byte[] {'n', 'o'}));
        } else {
            Files.writeString(sst.resolveSibling("000010.sst.crc32c"), "not-hex");
        }

        assertFallsBack(flinkHandle(Map.of("000010.sst", 3L)));
    }

    private void assertFallsBack(IncrementalRemoteKeyedStateHandle remote) {
        try (ReplicaRestore restore = ReplicaRestore.from(store, PREFIX, work)) {
            assertThat(restore.handlesFor(3, List.of(remote))).containsExactly(remote);
            assertThat(restore.restoredVnodes()).isZero();
        }
    }

    /** SST files (path in vnode → contents) plus MANIFEST and CURRENT, then the listing. */
    private void storeReplica(Map<String, String> sstFiles) throws Exception {
        storeReplica(VNODE, sstFiles);
    }

    private void storeReplica(String vnodeDirectory, Map<String, String> sstFiles)
            throws Exception {
        List<String> listed = new ArrayList<>();
        for (Map.Entry<String, String> file : sstFiles.entrySet()) {
            put(vnodeDirectory + "/" + file.getKey(), file.getValue());
            listed.add(file.getKey());
        }
        String checkpointDirectory = "chk-" + CHECKPOINT;
        put(vnodeDirectory + "/" + checkpointDirectory + "/MANIFEST-000005", "manifest");
        put(vnodeDirectory + "/" + checkpointDirectory + "/CURRENT", "current");
        listed.add(checkpointDirectory + "/MANIFEST-000005");
        listed.add(checkpointDirectory + "/CURRENT");
        Path listing = scratch.resolve("listing");
        ReplicaListing.of(CHECKPOINT - 1, listed).write(listing);
        put(ReplicaListing.path(vnodeDirectory, CHECKPOINT), Files.readString(listing));
    }

    private static IncrementalRemoteKeyedStateHandle flinkHandle(Map<String, Long> sstSizes) {
        return new IncrementalRemoteKeyedStateHandle(
                UUID.randomUUID(),
                KeyGroupRange.of(0, 9),
                CHECKPOINT,
                shared(sstSizes),
                List.of(),
                metadata());
    }

    private static List<HandleAndLocalPath> shared(Map<String, Long> sstSizes) {
        List<HandleAndLocalPath> shared = new ArrayList<>();
        sstSizes.forEach(
                (name, size) ->
                        shared.add(
                                HandleAndLocalPath.of(
                                        new ByteStreamStateHandle(name, new byte[size.intValue()]),
                                        name)));
        return shared;
    }

    private static ByteStreamStateHandle metadata() {
        return new ByteStreamStateHandle("metadata", new byte[] {1, 2, 3});
    }

    private void put(String path, String contents) throws Exception {
        byte[] bytes = contents.getBytes(StandardCharsets.UTF_8);
        CRC32C crc = new CRC32C();
        crc.update(bytes);
        ReplicaStore.Incoming incoming = store.create(path, 1);
        incoming.write(ByteBuffer.wrap(bytes));
        incoming.finish((int) crc.getValue());
        incoming.commit((int) crc.getValue());
    }
}
