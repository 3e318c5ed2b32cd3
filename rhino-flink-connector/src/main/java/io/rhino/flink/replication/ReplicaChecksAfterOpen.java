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

import io.rhino.replication.store.ReplicaStore;
import java.io.IOException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The replica files a restore opened before checking them, checked afterwards on a thread of their
 * own, so that a subtask starts processing without first reading its whole state. Reading a damaged
 * block fails in RocksDB, which checks every block it reads, so nothing damaged is processed
 * meanwhile; the check finds damage in blocks not read yet and deletes the damaged file. Until a
 * file's check passes, the store marks it for later restores to check first ({@link
 * ReplicaStore#openedUnchecked}): a task that fails before its check ended does not open the same
 * replica unchecked again.
 */
final class ReplicaChecksAfterOpen {

    private static final Logger LOG = LoggerFactory.getLogger(ReplicaChecksAfterOpen.class);

    private final ReplicaStore store;
    private final Queue<String> files = new ConcurrentLinkedQueue<>(); // vnodes restore at once

    ReplicaChecksAfterOpen(ReplicaStore store) {
        this.store = store;
    }

    /** Adds the stored files of a vnode about to open unchecked. */
    void add(List<String> storedFiles) {
        for (String file : storedFiles) {
            store.openedUnchecked(file);
        }
        files.addAll(storedFiles);
    }

    /**
     * Starts checking the files added so far; {@code onDamaged} hears why, once, if one is damaged
     * or unreadable. Closing the result stops the check (a file it did not reach stays marked).
     */
    AutoCloseable start(String owner, Consumer<String> onDamaged) {
        List<String> toCheck = List.copyOf(files);
        files.clear();
        if (toCheck.isEmpty()) {
            return () -> {};
        }
        Thread checker =
                new Thread(() -> check(owner, toCheck, onDamaged), "rhino-replica-check " + owner);
        checker.setDaemon(true);
        checker.start();
        return () -> {
            checker.interrupt();
            checker.join();
        };
    }

    /**
     * Deletes a damaged file, so that no restore or listing uses it again (a listing that names it
     * is refused, and the chain sends the vnode whole); says what became of it.
     */
    private String quarantine(String file) {
        try {
            store.delete(file);
            return "was deleted from the replica store";
        } catch (IOException e) {
            LOG.warn("Could not delete the damaged replica file {}: {}", file, e.toString());
            return "could not be deleted (" + e + "); later restores check it before opening";
        }
    }

    private void check(String owner, List<String> toCheck, Consumer<String> onDamaged) {
        long started = System.nanoTime();
        int checked = 0;
        for (String file : toCheck) {
            if (Thread.currentThread().isInterrupted()) {
                return;
            }
            Path path = store.resolve(file);
            try {
                if (!store.verify(file)) {
                    onDamaged.accept(
                            "The replica file "
                                    + path
                                    + " that "
                                    + owner
                                    + " restored from is damaged (its checksum does not match"
                                    + " the one it was stored with) and "
                                    + quarantine(file)
                                    + ". The task fails over, and the next restore takes the"
                                    + " vnode from the checkpoint storage instead; the chain"
                                    + " sends the vnode's files again at a later checkpoint."
                                    + " Check the replica disk (rhino.replication.dir).");
                    return;
                }
                checked++;
            } catch (ClosedByInterruptException e) {
                return;
            } catch (NoSuchFileException e) {
                // collected since the restore linked it: the vnode's instance keeps its own link
                checked++;
            } catch (IOException e) {
                onDamaged.accept(
                        "The replica file "
                                + path
                                + " that "
                                + owner
                                + " restored from cannot be read ("
                                + e
                                + "). The task fails over; check the replica disk"
                                + " (rhino.replication.dir).");
                return;
            }
        }
        LOG.info(
                "{} checked the {} replica files it restored from before checking them: intact"
                        + " ({} ms)",
                owner,
                checked,
                (System.nanoTime() - started) / 1_000_000);
    }
}
