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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The store's usage, read by a metrics gauge while streams come and go. */
class ReplicaStoreUsageTest {

    @TempDir Path directory;

    @Test
    void usageCountsStoredAndPartialFilesButNotChecksums() throws Exception {
        ReplicaStore store = new ReplicaStore(directory.resolve("store"));
        Path live = Files.write(directory.resolve("000001.sst"), new byte[1000]);
        store.link("j/o/v/000001.sst", live).get().commit();
        Path partial = store.resolve("j/o/v").resolve("000002.sst.part-7");
        Files.write(partial, new byte[24]);

        assertThat(store.usedBytes()).isEqualTo(1024);
    }

    @Test
    void usageIsReadWhileFilesAndDirectoriesVanish() throws Exception {
        ReplicaStore store = new ReplicaStore(directory.resolve("store"));
        Path kept = store.resolve("j/o/kept/000001.sst");
        Files.createDirectories(kept.getParent());
        Files.write(kept, new byte[100]);
        AtomicBoolean running = new AtomicBoolean(true);
        // streams opened and dropped, each in a directory of its own that goes with it
        CompletableFuture<Void> churn =
                CompletableFuture.runAsync(
                        () -> {
                            long n = 0;
                            while (running.get()) {
                                Path dir = store.resolve("j/o/v-" + (n % 8) + "/i-" + n);
                                Path part = dir.resolve("000002.sst.part-" + n++);
                                try {
                                    Files.createDirectories(dir);
                                    Files.write(part, new byte[10]);
                                    Files.delete(part);
                                    Files.delete(dir);
                                } catch (java.io.IOException e) {
                                    throw new java.io.UncheckedIOException(e);
                                }
                            }
                        });
        try {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1500);
            while (System.nanoTime() < deadline) {
                // never fails on a vanished file, never counts less than what stays
                assertThat(store.usedBytes()).isBetween(100L, 100L + 8 * 10);
            }
        } finally {
            running.set(false);
        }
        churn.get(10, TimeUnit.SECONDS);
    }
}
