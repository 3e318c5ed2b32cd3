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

package io.rhino.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.rhino.replication.testing.ChangingFileTree;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A chain member whose replica disk is full: its store lives on a real 8 MB tmpfs mounted for the
 * test (Linux, as root; skipped elsewhere). A transfer that does not fit fails its round with the
 * member's reason, leaves no partial file, keeps every replica the member already held intact, and
 * the member keeps serving: the next round that fits succeeds.
 */
@Timeout(120)
class FullReplicaDiskTest {

    private static final String SECRET = "full-disk-test-secret";
    private static final long DISK = 8L * 1024 * 1024;

    @TempDir Path temp;

    private Path smallDisk;
    private final List<ReplicationService> services = new ArrayList<>();

    @BeforeEach
    void mountSmallDisk() throws Exception {
        smallDisk = Files.createDirectories(temp.resolve("small-disk"));
        Process mount =
                new ProcessBuilder(
                                "mount",
                                "-t",
                                "tmpfs",
                                "-o",
                                "size=" + DISK,
                                "tmpfs",
                                smallDisk.toString())
                        .redirectErrorStream(true)
                        .start();
        String output = new String(mount.getInputStream().readAllBytes());
        assumeThat(mount.waitFor())
                .as("mounting a small tmpfs needs Linux and root: %s", output)
                .isZero();
    }

    @AfterEach
    void stopAndUnmount() throws Exception {
        services.forEach(ReplicationService::close);
        new ProcessBuilder("umount", smallDisk.toString()).start().waitFor();
    }

    private ReplicationService service(String host, Path store) throws IOException {
        ReplicationService service =
                ReplicationService.start(
                        ReplicationConfig.anyPort(host, store, SECRET, Duration.ofSeconds(30)));
        services.add(service);
        return service;
    }

    @Test
    void aTransferThatDoesNotFitFailsCleanlyAndKeepsTheMemberAndItsReplicas() throws Exception {
        ReplicationService primary = service("127.0.0.1", temp.resolve("a"));
        ReplicationService full = service("127.0.0.2", smallDisk.resolve("b"));
        ReplicationService tail = service("127.0.0.3", temp.resolve("c"));
        List<PeerAddress> chain = List.of(full.address(), tail.address());
        Path sst = randomFile("1.sst", 3 * 1024 * 1024);
        Path metadata = randomFile("metadata", 200_000);
        primary.replicate(sst, "j/o/v/1.sst", chain).get(30, TimeUnit.SECONDS);
        primary.replicate(metadata, "j/o/v/metadata", chain).get(30, TimeUnit.SECONDS);
        long freeBefore = Files.getFileStore(smallDisk).getUsableSpace();
        assertThat(full.store().outOfSpaceAgoMillis()).isNegative();

        Path tooLarge = randomFile("2.sst", DISK);
        assertThatThrownBy(
                        () ->
                                primary.replicate(tooLarge, "j/o/v/2.sst", chain)
                                        .get(30, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .hasMessageContaining(full.address().toString())
                .hasMessageContaining("No space left on device")
                .hasMessageContaining("is full");
        // a new version of a held file that does not fit: the old one stays as it was
        Path largerMetadata = randomFile("metadata-2", DISK);
        assertThatThrownBy(
                        () ->
                                primary.replicate(largerMetadata, "j/o/v/metadata", chain)
                                        .get(30, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .hasMessageContaining("No space left on device");

        assertThat(full.store().outOfSpaceAgoMillis())
                .as("the store remembers it ran out of space")
                .isNotNegative();
        assertThat(tail.store().outOfSpaceAgoMillis()).isNegative();
        assertThat(full.store().file("j/o/v/2.sst")).isEmpty();
        assertThat(partialFiles(full)).as("partial files on the full member").isEmpty();
        assertThat(Files.getFileStore(smallDisk).getUsableSpace())
                .as("free space on the full member's disk after the failed rounds")
                .isEqualTo(freeBefore);
        assertThat(full.store().verify("j/o/v/1.sst")).isTrue();
        assertThat(full.store().verify("j/o/v/metadata")).isTrue();
        assertThat(Files.mismatch(full.store().file("j/o/v/metadata").orElseThrow(), metadata))
                .isEqualTo(-1L);

        Path fits = randomFile("3.sst", 1024 * 1024);
        primary.replicate(fits, "j/o/v/3.sst", chain).get(30, TimeUnit.SECONDS);
        for (ReplicationService member : List.of(full, tail)) {
            assertThat(Files.mismatch(member.store().file("j/o/v/3.sst").orElseThrow(), fits))
                    .as("the round after the failures on %s", member.address())
                    .isEqualTo(-1L);
        }
    }

    private Path randomFile(String name, long size) throws IOException {
        Path file = temp.resolve("source-" + name);
        Random random = new Random(size ^ name.hashCode());
        byte[] block = new byte[1 << 20];
        try (var out = Files.newOutputStream(file)) {
            for (long left = size; left > 0; left -= block.length) {
                random.nextBytes(block);
                out.write(block, 0, (int) Math.min(block.length, left));
            }
        }
        return file;
    }

    private static List<Path> partialFiles(ReplicationService service) throws IOException {
        return ChangingFileTree.partialFiles(service.store().root());
    }
}
