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

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Marks a replica store as used by a live process: an exclusive lock on its {@code .lock} file,
 * which the operating system releases when the process ends, {@code kill -9} included. A
 * TaskManager that starts finds the stores of TaskManagers that died beside its own (their lock is
 * free) and removes them, so a restarted TaskManager does not leave its predecessor's replicas on
 * the disk forever.
 */
public final class StoreLock implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(StoreLock.class);

    public static final String NAME = ".lock";

    /** A store whose lock file is younger than this may be starting; it is never removed. */
    private static final Duration STARTING = Duration.ofSeconds(10);

    private final FileChannel channel;
    private final FileLock lock;

    private StoreLock(FileChannel channel, FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    /**
     * Locks {@code store} (created if needed) for this process.
     *
     * @throws IOException if another service holds it
     */
    public static StoreLock acquire(Path store) throws IOException {
        Files.createDirectories(store);
        // a service of this JVM that stopped on its own thread may release it a moment later
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (true) {
            FileChannel channel =
                    FileChannel.open(
                            store.resolve(NAME),
                            StandardOpenOption.CREATE,
                            StandardOpenOption.WRITE);
            boolean heldHere = false;
            FileLock lock = null;
            try {
                lock = channel.tryLock();
            } catch (OverlappingFileLockException e) {
                heldHere = true;
            }
            if (lock != null) {
                return new StoreLock(channel, lock);
            }
            channel.close();
            if (!heldHere || System.nanoTime() > deadline) {
                throw new IOException(
                        "The replica store "
                                + store
                                + " is in use by another replication service; give each"
                                + " TaskManager its own store");
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("Interrupted while waiting for the store " + store, e);
            }
        }
    }

    /**
     * Removes the stores in {@code parent}, other than {@code own}, whose lock no live process
     * holds.
     *
     * @return the removed stores
     */
    public static List<Path> removeAbandoned(Path parent, Path own) throws IOException {
        List<Path> removed = new ArrayList<>();
        if (!Files.isDirectory(parent)) {
            return removed;
        }
        List<Path> stores;
        try (Stream<Path> children = Files.list(parent)) {
            stores = children.filter(Files::isDirectory).toList();
        }
        Path ownStore = own.toRealPath();
        for (Path store : stores) {
            if (!store.toRealPath().equals(ownStore) && isAbandoned(store)) {
                ReplicaStore.deleteDirectory(store);
                removed.add(store);
                LOG.info("Removed the replica store {} of a TaskManager that is gone", store);
            }
        }
        return removed;
    }

    private static boolean isAbandoned(Path store) throws IOException {
        Path lockFile = store.resolve(NAME);
        if (!Files.isRegularFile(lockFile)
                || Files.getLastModifiedTime(lockFile)
                        .toInstant()
                        .isAfter(Instant.now().minus(STARTING))) {
            return false; // not a store, or one that is starting
        }
        try (FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.WRITE)) {
            FileLock lock = channel.tryLock();
            if (lock == null) {
                return false; // another process holds it
            }
            lock.release();
            return true;
        } catch (OverlappingFileLockException heldHere) {
            return false; // a service of this JVM holds it (several TaskManagers in one JVM)
        }
    }

    /**
     * Releases the lock, and removes {@code store} if it holds no file but its lock (directories
     * without files aside). Removed while still locked, so no other service takes it meanwhile.
     */
    public synchronized void closeRemovingEmpty(Path store) throws IOException {
        if (channel.isOpen() && Files.isDirectory(store) && holdsNoFile(store)) {
            ReplicaStore.deleteDirectory(store);
        }
        close();
    }

    private static boolean holdsNoFile(Path store) throws IOException {
        try (Stream<Path> files = Files.walk(store)) {
            return files.filter(Files::isRegularFile)
                    .allMatch(
                            f ->
                                    f.getFileName().toString().equals(NAME)
                                            && f.getParent().equals(store));
        }
    }

    @Override
    public synchronized void close() throws IOException {
        // idempotent: the service releases it when its thread stops, or when closed and awaited
        if (channel.isOpen()) {
            try {
                lock.release();
            } finally {
                channel.close();
            }
        }
    }
}
