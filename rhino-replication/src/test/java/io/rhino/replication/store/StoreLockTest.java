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
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Stores of TaskManagers that died are found by their free lock and removed; stores of live
 * processes, of this JVM and starting ones stay. The other TaskManager is a real child process,
 * killed with SIGKILL.
 */
class StoreLockTest {

    @TempDir Path parent;

    @Test
    void theStoreOfAKilledProcessIsRemovedAndLiveOnesStay() throws Exception {
        Path own = parent.resolve("own");
        Path killed = parent.resolve("killed");
        Path alive = parent.resolve("alive");
        Path sameJvm = parent.resolve("same-jvm");
        Process dying = holdLockInAnotherProcess(killed);
        Process living = holdLockInAnotherProcess(alive);
        try (StoreLock ownLock = StoreLock.acquire(own);
                StoreLock sameJvmLock = StoreLock.acquire(sameJvm)) {
            Files.writeString(killed.resolve("replica.sst"), "left behind");
            dying.destroyForcibly();
            dying.waitFor(30, TimeUnit.SECONDS);
            for (Path store : new Path[] {killed, alive, sameJvm}) {
                olderThanAStart(store);
            }

            assertThat(StoreLock.removeAbandoned(parent, own)).containsExactly(killed);

            assertThat(killed).doesNotExist();
            assertThat(alive).exists();
            assertThat(sameJvm).exists();
            assertThat(own).exists();
        } finally {
            living.destroyForcibly();
            living.waitFor(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void aStoreWhoseLockIsFreeButYoungIsStartingAndStays() throws Exception {
        Path own = parent.resolve("own");
        Path starting = parent.resolve("starting");
        StoreLock.acquire(starting).close();
        try (StoreLock ownLock = StoreLock.acquire(own)) {
            assertThat(StoreLock.removeAbandoned(parent, own)).isEmpty();
            assertThat(starting).exists();
        }
    }

    @Test
    void aStoreHeldByAnotherProcessCannotBeOpened() throws Exception {
        Path store = parent.resolve("store");
        Process holder = holdLockInAnotherProcess(store);
        try {
            assertThatThrownBy(() -> StoreLock.acquire(store))
                    .hasMessageContaining("in use by another replication service");
        } finally {
            holder.destroyForcibly();
            holder.waitFor(30, TimeUnit.SECONDS);
        }
        StoreLock.acquire(store).close();
    }

    private static void olderThanAStart(Path store) throws Exception {
        Files.setLastModifiedTime(
                store.resolve(StoreLock.NAME), FileTime.from(Instant.now().minusSeconds(600)));
    }

    /** Starts a JVM that locks {@code store} and waits; returns once the lock is held. */
    private static Process holdLockInAnotherProcess(Path store) throws Exception {
        Process process =
                new ProcessBuilder(
                                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                                "-cp",
                                System.getProperty(
                                        "surefire.test.class.path",
                                        System.getProperty("java.class.path")),
                                LockHolder.class.getName(),
                                store.toString())
                        .redirectErrorStream(true)
                        .start();
        BufferedReader out =
                new BufferedReader(
                        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        String line;
        while ((line = out.readLine()) != null && !line.equals(LockHolder.LOCKED)) {
            // log lines of the child
        }
        assertThat(line).as("the child process locked " + store).isEqualTo(LockHolder.LOCKED);
        return process;
    }

    /** The main of the child process: locks the store given as argument and sleeps. */
    public static final class LockHolder {
        static final String LOCKED = "locked";

        public static void main(String[] args) throws Exception {
            StoreLock lock = StoreLock.acquire(Path.of(args[0]));
            System.out.println(LOCKED);
            System.out.flush();
            Thread.sleep(Long.MAX_VALUE);
            lock.close();
        }
    }
}
