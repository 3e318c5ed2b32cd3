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
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rhino.replication.store.ReplicaStore;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a replica holder keeps of a vnode, on a real store, through the store's commits. */
class VnodeReplicaCollectorTest {

    private static final String VNODE = "job/op/vnode-3";

    private static final long LISTING_LIMIT = ReplicaListing.MAX_BYTES;

    @TempDir Path root;
    @TempDir Path scratch;
    private ReplicaStore store;

    @BeforeEach
    void openStore() throws Exception {
        store = new ReplicaStore(root);
        store.listen(new VnodeReplicaCollector(store));
    }

    @Test
    void aListingNamingAFileThisMemberLacksIsRefusedAndNotStored() throws Exception {
        put(VNODE + "/i-a/000010.sst", "ten");

        assertThatThrownBy(
                        () ->
                                putListing(
                                        4,
                                        ReplicaListing.of(
                                                3, List.of("i-a/000010.sst", "i-a/000011.sst"))))
                .hasMessageContaining("incomplete")
                .hasMessageContaining("i-a/000011.sst")
                .hasMessageContaining("send them again");
        assertThat(store.file(ReplicaListing.path(VNODE, 4))).isEmpty();
    }

    @Test
    void aListingAboveTheSizeLimitIsRefusedUnreadAndNotStored() throws Exception {
        // a crafted listing naming far more files than any checkpoint has
        byte[] huge = new byte[(int) LISTING_LIMIT + 1];
        byte[] line = "i-a/000010.sst\n".getBytes(StandardCharsets.UTF_8);
        byte[] first = "completed 3\n".getBytes(StandardCharsets.UTF_8);
        System.arraycopy(first, 0, huge, 0, first.length);
        for (int at = first.length; at + line.length <= huge.length; at += line.length) {
            System.arraycopy(line, 0, huge, at, line.length);
        }
        put(VNODE + "/i-a/000010.sst", "ten");

        assertThatThrownBy(() -> put(ReplicaListing.path(VNODE, 4), huge))
                .hasMessageContaining("more than the limit of " + LISTING_LIMIT);
        assertThat(store.file(ReplicaListing.path(VNODE, 4))).isEmpty();
    }

    @Test
    void keepsTheCheckpointsFromTheLastCompletedOnAndOnlyTheFilesTheyName() throws Exception {
        Instant past = Instant.now().minusSeconds(60);
        put(VNODE + "/i-a/000010.sst", "in 3 only");
        put(VNODE + "/i-a/000011.sst", "in 3 and 4");
        putListing(3, ReplicaListing.of(-1, List.of("i-a/000010.sst", "i-a/000011.sst")));
        put(VNODE + "/i-a/000012.sst", "in 4 and 5");
        putListing(4, ReplicaListing.of(2, List.of("i-a/000011.sst", "i-a/000012.sst")));
        put(VNODE + "/i-a/000013.sst", "in 5");
        age(past, "i-a/000010.sst", "i-a/000011.sst", "i-a/000012.sst", "i-a/000013.sst");
        putListing(5, ReplicaListing.of(4, List.of("i-a/000012.sst", "i-a/000013.sst")));
        // sent for checkpoint 6, whose listing has not come yet
        put(VNODE + "/i-a/000014.sst", "in flight");
        Files.setLastModifiedTime(
                store.resolve(VNODE + "/i-a/000014.sst"),
                FileTime.from(Instant.now().plusSeconds(5)));
        putListing(6, ReplicaListing.of(4, List.of("i-a/000013.sst", "i-a/000014.sst")));

        assertThat(store.file(ReplicaListing.path(VNODE, 3))).isEmpty();
        assertThat(store.file(ReplicaListing.path(VNODE, 4))).isPresent();
        assertThat(store.file(ReplicaListing.path(VNODE, 5))).isPresent();
        assertThat(store.file(VNODE + "/i-a/000010.sst")).isEmpty();
        assertThat(root.resolve(VNODE + "/i-a/000010.sst.crc32c")).doesNotExist();
        for (String kept : List.of("000011.sst", "000012.sst", "000013.sst", "000014.sst")) {
            assertThat(store.file(VNODE + "/i-a/" + kept)).as(kept).isPresent();
        }
    }

    @Test
    void whileNoCheckpointIsKnownCompleteEverythingStays() throws Exception {
        put(VNODE + "/i-a/000010.sst", "a");
        putListing(3, ReplicaListing.of(-1, List.of("i-a/000010.sst")));
        put(VNODE + "/i-a/000011.sst", "b");
        putListing(4, ReplicaListing.of(-1, List.of("i-a/000011.sst")));

        assertThat(store.file(ReplicaListing.path(VNODE, 3))).isPresent();
        assertThat(store.file(VNODE + "/i-a/000010.sst")).isPresent();
    }

    @Test
    void aDepartureDropsTheCopiesFromBeforeTheVnodeLeft() throws Exception {
        put(VNODE + "/i-a/000010.sst", "a");
        putListing(3, ReplicaListing.of(2, List.of("i-a/000010.sst")));
        age(Instant.now().minusSeconds(60), "i-a/000010.sst");
        // the vnode left its subtask before checkpoint 4; checkpoint 5 completed without it
        putListing(6, ReplicaListing.departure(5, 4));

        assertThat(store.file(ReplicaListing.path(VNODE, 3))).isEmpty();
        assertThat(store.resolve(VNODE + "/i-a")).doesNotExist();
        assertThat(store.usedBytes()).isLessThan(64);
    }

    @Test
    void theCopyOfANewOwnerOnTheSameHolderSurvivesTheOldOwnersDeparture() throws Exception {
        put(VNODE + "/i-a/000010.sst", "old owner");
        putListing(3, ReplicaListing.of(2, List.of("i-a/000010.sst")));
        age(Instant.now().minusSeconds(60), "i-a/000010.sst");
        put(VNODE + "/i-b/000007.sst", "new owner");
        putListing(5, ReplicaListing.of(3, List.of("i-b/000007.sst")));
        putListing(6, ReplicaListing.departure(5, 4));

        assertThat(store.file(ReplicaListing.path(VNODE, 5))).isPresent();
        assertThat(store.file(VNODE + "/i-b/000007.sst")).isPresent();
        assertThat(store.file(VNODE + "/i-a/000010.sst")).isEmpty();
    }

    /**
     * After a handover the old owner's departure notice and the new owner's first copy can reach
     * one holder in the same checkpoint: the new owner's files, not listed yet, must survive the
     * notice, or its listing is refused and the checkpoint fails.
     */
    @Test
    void aNewOwnersFilesSentBeforeItsListingSurviveTheOldOwnersDeparture() throws Exception {
        put(VNODE + "/i-a/000010.sst", "old owner");
        putListing(3, ReplicaListing.of(2, List.of("i-a/000010.sst")));
        put(VNODE + "/i-b/000007.sst", "new owner, checkpoint 5");
        age(Instant.now().minusSeconds(60), "i-a/000010.sst", "i-b/000007.sst");
        putListing(5, ReplicaListing.departure(4, 4));
        putListing(5, ReplicaListing.of(4, List.of("i-b/000007.sst")));

        assertThat(store.file(ReplicaListing.path(VNODE, 5))).isPresent();
        assertThat(store.file(VNODE + "/i-b/000007.sst")).isPresent();
        assertThat(store.file(ReplicaListing.path(VNODE, 3))).isEmpty();
        assertThat(store.file(VNODE + "/i-a/000010.sst")).isEmpty();
    }

    /**
     * Checkpoints that reused the vnode's snapshot list the metadata files where the snapshot's
     * round sent them: those stay while a kept listing names them, after their own checkpoint's
     * listing was dropped, and go with the last listing that names them.
     */
    @Test
    void metadataFilesAnotherCheckpointListsStayUntilNoKeptListingNamesThem() throws Exception {
        put(VNODE + "/i-a/000010.sst", "the snapshot of checkpoint 3");
        put(VNODE + "/chk-3/CURRENT", "MANIFEST-000005");
        putListing(3, ReplicaListing.of(2, List.of("i-a/000010.sst", "chk-3/CURRENT")));
        // checkpoints 4 and 5 reuse it: only their listings come
        putListing(4, ReplicaListing.of(3, List.of("i-a/000010.sst", "chk-3/CURRENT")));
        putListing(5, ReplicaListing.of(4, List.of("i-a/000010.sst", "chk-3/CURRENT")));

        assertThat(store.file(ReplicaListing.path(VNODE, 3))).as("listing 3").isEmpty();
        assertThat(store.file(VNODE + "/chk-3/CURRENT"))
                .as("checkpoint 3's CURRENT, which listings 4 and 5 name")
                .isPresent();

        // written again: checkpoint 6 sends a snapshot of its own
        put(VNODE + "/i-a/000011.sst", "the snapshot of checkpoint 6");
        put(VNODE + "/chk-6/CURRENT", "MANIFEST-000007");
        age(Instant.now().minusSeconds(60), "i-a/000010.sst");
        putListing(6, ReplicaListing.of(5, List.of("i-a/000011.sst", "chk-6/CURRENT")));
        assertThat(store.file(VNODE + "/chk-3/CURRENT"))
                .as("named by listing 5, kept while 5 is the last completed")
                .isPresent();

        putListing(7, ReplicaListing.of(6, List.of("i-a/000011.sst", "chk-6/CURRENT")));
        assertThat(store.resolve(VNODE + "/chk-3")).as("no kept listing names it").doesNotExist();
        assertThat(store.file(VNODE + "/i-a/000010.sst")).isEmpty();
        assertThat(store.file(VNODE + "/chk-6/CURRENT")).isPresent();
        assertThat(store.file(ReplicaListing.path(VNODE, 6))).isPresent();
    }

    private void age(Instant when, String... inVnode) throws Exception {
        for (String file : inVnode) {
            Files.setLastModifiedTime(store.resolve(VNODE + "/" + file), FileTime.from(when));
        }
    }

    private void putListing(long checkpoint, ReplicaListing listing) throws Exception {
        Path file = scratch.resolve("listing-" + checkpoint);
        listing.write(file);
        put(
                listing.isDeparture()
                        ? ReplicaListing.departurePath(VNODE, checkpoint)
                        : ReplicaListing.path(VNODE, checkpoint),
                Files.readAllBytes(file));
    }

    private void put(String path, String contents) throws Exception {
        put(path, contents.getBytes(StandardCharsets.UTF_8));
    }

    /** Stores a file the way a receiving member does: write, verify, commit. */
    private void put(String path, byte[] contents) throws Exception {
        CRC32C crc = new CRC32C();
        crc.update(contents);
        ReplicaStore.Incoming incoming = store.create(path, 1);
        incoming.write(ByteBuffer.wrap(contents));
        incoming.finish((int) crc.getValue());
        incoming.commit((int) crc.getValue());
    }
}
