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

package io.rhino.replication.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserDefinedFileAttributeView;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StoredChecksumsTest {

    @TempDir Path directory;

    @Test
    void aFileStoredWhereAttributesExistCarriesItsChecksumAndNothingBesideIt() throws Exception {
        ReplicaStore store = new ReplicaStore(directory.resolve("store"));
        assumeThat(store.checksumsInAttributes())
                .as("this filesystem keeps user extended attributes")
                .isTrue();
        byte[] bytes = "replica contents".getBytes(StandardCharsets.US_ASCII);

        Path stored = store(store, "job/op/vnode-1/i-a/000012.sst", bytes);

        try (Stream<Path> files = Files.list(stored.getParent())) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactly("000012.sst");
        }
        assertThat(ReplicaStore.recordedChecksum(stored)).isEqualTo(ReplicaStore.crc32c(stored));
        assertThat(store.verify("job/op/vnode-1/i-a/000012.sst")).isTrue();
    }

    @Test
    void aFileAnOlderStoreKeptWithItsChecksumBesideItStaysStoredAndVerified() throws Exception {
        ReplicaStore store = new ReplicaStore(directory.resolve("store"));
        Path older = store.root().resolve("job/op/vnode-2/i-b/000007.sst");
        Files.createDirectories(older.getParent());
        Files.write(older, new byte[] {7, 7, 7});
        Files.writeString(
                older.resolveSibling("000007.sst.crc32c"),
                Integer.toHexString(ReplicaStore.crc32c(older)));

        assertThat(store.file("job/op/vnode-2/i-b/000007.sst")).contains(older);
        assertThat(store.verify("job/op/vnode-2/i-b/000007.sst")).isTrue();

        Files.write(older, new byte[] {7, 7, 8});
        assertThat(store.verify("job/op/vnode-2/i-b/000007.sst")).isFalse();
    }

    @Test
    void aFileThatLostItsChecksumFailsVerification() throws Exception {
        ReplicaStore store = new ReplicaStore(directory.resolve("store"));
        assumeThat(store.checksumsInAttributes())
                .as("this filesystem keeps user extended attributes")
                .isTrue();
        Path stored = store(store, "job/op/vnode-4/i-c/000003.sst", new byte[] {3, 3, 3});
        // what a copy without attributes (cp without -a) leaves
        Files.getFileAttributeView(stored, UserDefinedFileAttributeView.class)
                .delete(ReplicaStore.CHECKSUM_ATTRIBUTE);

        assertThat(store.file("job/op/vnode-4/i-c/000003.sst")).contains(stored);
        assertThat(store.verify("job/op/vnode-4/i-c/000003.sst")).isFalse();
    }

    @Test
    void aReplicaStoredAgainReplacesFileAndChecksumTogether() throws Exception {
        ReplicaStore store = new ReplicaStore(directory.resolve("store"));
        String path = "job/op/vnode-3/chk-4/MANIFEST-000005";
        store(store, path, new byte[] {1, 2, 3});

        Path stored = store(store, path, new byte[] {4, 5, 6, 7});

        assertThat(Files.readAllBytes(stored)).containsExactly(4, 5, 6, 7);
        assertThat(store.verify(path)).isTrue();
    }

    private static Path store(ReplicaStore store, String path, byte[] bytes) throws Exception {
        ReplicaStore.Incoming incoming = store.create(path, 1);
        incoming.write(ByteBuffer.wrap(bytes));
        int crc = crc(bytes);
        incoming.finish(crc);
        incoming.commit(crc);
        return store.file(path).orElseThrow();
    }

    private static int crc(byte[] bytes) {
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(bytes);
        return (int) crc.getValue();
    }
}
