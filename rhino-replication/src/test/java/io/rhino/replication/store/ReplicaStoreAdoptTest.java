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

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A local file adopted into the store: a hard link with its checksum, verifiable as any replica.
 */
class ReplicaStoreAdoptTest {

    @TempDir Path directory;

    @Test
    void anAdoptedFileIsStoredByLinkAndVerifiesOnceCommitted() throws Exception {
        ReplicaStore store = new ReplicaStore(directory.resolve("store"));
        Path live = Files.write(directory.resolve("000042.sst"), new byte[64 * 1024]);

        ReplicaStore.Adoption adoption = store.link("job/op/vnode-3/i-1/000042.sst", live).get();
        assertThat(store.file("job/op/vnode-3/i-1/000042.sst")).as("before the commit").isEmpty();
        adoption.commit();

        Path stored = store.file("job/op/vnode-3/i-1/000042.sst").orElseThrow();
        assertThat(Files.isSameFile(stored, live)).as("a hard link of the live file").isTrue();
        assertThat(store.verify("job/op/vnode-3/i-1/000042.sst")).isTrue();
        // adopting it again changes nothing
        assertThat(store.link("job/op/vnode-3/i-1/000042.sst", live)).isEmpty();
        try (var left = Files.list(stored.getParent())) {
            assertThat(left.map(p -> p.getFileName().toString()))
                    .containsExactlyInAnyOrderElementsOf(
                            store.checksumsInAttributes()
                                    ? List.of("000042.sst")
                                    : List.of("000042.sst", "000042.sst.crc32c"));
        }
    }

    @Test
    void aDamagedAdoptedFileFailsVerification() throws Exception {
        ReplicaStore store = new ReplicaStore(directory.resolve("store"));
        Path live = Files.write(directory.resolve("000007.sst"), new byte[] {1, 2, 3, 4});
        store.link("job/op/vnode-0/i-2/000007.sst", live).get().commit();

        Files.write(live, new byte[] {1, 2, 3, 5});

        assertThat(store.verify("job/op/vnode-0/i-2/000007.sst")).isFalse();
    }

    @Test
    void anAbortedAdoptionLeavesNothing() throws Exception {
        ReplicaStore store = new ReplicaStore(directory.resolve("store"));
        Path live = Files.write(directory.resolve("000009.sst"), new byte[] {9});

        store.link("job/op/vnode-1/i-3/000009.sst", live).get().abort();

        assertThat(store.file("job/op/vnode-1/i-3/000009.sst")).isEmpty();
        try (var left = Files.list(store.resolve("job/op/vnode-1/i-3"))) {
            assertThat(left).isEmpty();
        }
    }

    @Test
    void aPathOutsideTheStoreIsRefused() throws Exception {
        ReplicaStore store = new ReplicaStore(directory.resolve("store"));
        Path live = Files.write(directory.resolve("x.sst"), new byte[] {1});

        org.assertj.core.api.Assertions.assertThatThrownBy(() -> store.link("../x.sst", live))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("..");
    }
}
