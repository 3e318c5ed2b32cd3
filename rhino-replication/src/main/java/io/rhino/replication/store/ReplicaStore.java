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
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The replica files of one peer, under one root directory (the "dedicated disk"). Paths come from
 * the network and are checked before anything touches the disk: relative, at most {@value
 * #MAX_DEPTH} segments of {@code [A-Za-z0-9_][A-Za-z0-9._-]*}, so no {@code ..}, no absolute path,
 * nothing outside the root. A file is written under a temporary name, forced to disk and verified,
 * then moved into place atomically with its checksum ({@link StoredChecksums}: an extended
 * attribute, or a file {@code <name>.crc32c} beside it): a failed or partial transfer never
 * replaces or corrupts an existing replica. Temporary files left by a crash are removed when the
 * store opens.
 */
public final class ReplicaStore {

    private static final Logger LOG = LoggerFactory.getLogger(ReplicaStore.class);

    static final int MAX_DEPTH = 8;
    private static final Pattern SEGMENT = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9._-]{0,127}");
    private static final String PART = ".part-";
    private static final String CHECKSUM = StoredChecksums.FILE_SUFFIX;

    private final Path root;
    private final StoredChecksums checksums;
    private volatile CommitListener listener = CommitListener.NONE;
    private volatile long outOfSpaceAtNanos;
    private volatile boolean outOfSpace;
    // files a restore opened before checking them, until a check passes (this process only)
    private final Set<Path> openedUnchecked = ConcurrentHashMap.newKeySet();

    /** Opens (creating) the store and removes what interrupted transfers left. */
    public ReplicaStore(Path root) throws IOException {
        this.root = Files.createDirectories(root).toRealPath();
        try (Stream<Path> files = Files.walk(this.root)) {
            files.filter(p -> p.getFileName().toString().contains(PART))
                    .forEach(
                            orphan -> {
                                LOG.info(
                                        "Removing the partial replica {} of an earlier run",
                                        orphan);
                                deleteQuietly(orphan);
                            });
        }
        this.checksums = StoredChecksums.probing(this.root.resolve("checksum-probe" + PART + "0"));
    }

    /**
     * The extended attribute (user namespace) holding a stored file's CRC32C, 4 bytes big-endian,
     * where the filesystem keeps attributes ({@code getfattr -n user.rhino.crc32c -e hex FILE}).
     */
    public static final String CHECKSUM_ATTRIBUTE = StoredChecksums.ATTRIBUTE;

    /** Whether a stored file's checksum is an attribute of it rather than a file beside it. */
    public boolean checksumsInAttributes() {
        return checksums.inAttributes();
    }

    public Path root() {
        return root;
    }

    /**
     * What a failed write means, for the member's refusal: the I/O error, and on a full disk where
     * and what to do about it. A full disk is remembered (see {@link #outOfSpaceAgoMillis}).
     */
    public String explain(IOException failure) {
        String message = failure.getMessage() == null ? failure.toString() : failure.getMessage();
        if (!message.contains("No space left")) {
            return message;
        }
        outOfSpaceAtNanos = System.nanoTime();
        outOfSpace = true;
        long free;
        try {
            free = Files.getFileStore(root).getUsableSpace();
        } catch (IOException e) {
            free = -1;
        }
        return message
                + ": the replica store "
                + root
                + " is full ("
                + free
                + " bytes free); the replicas it holds are intact. Free space there or point"
                + " rhino.replication.dir at a larger disk";
    }

    /** How long ago a write last failed for lack of space here, -1 if none did. */
    public long outOfSpaceAgoMillis() {
        return outOfSpace ? (System.nanoTime() - outOfSpaceAtNanos) / 1_000_000 : -1;
    }

    /** From now on, commits go through {@code listener}. */
    public void listen(CommitListener listener) {
        this.listener = listener;
    }

    /** Deletes a stored file and its checksum (nothing if absent). */
    public void delete(String relativePath) throws IOException {
        Path file = resolve(relativePath);
        Files.deleteIfExists(checksumOf(file));
        Files.deleteIfExists(file);
        openedUnchecked.remove(file);
    }

    /** Deletes a directory of the store with everything in it (nothing if absent). */
    public void deleteTree(String relativePath) throws IOException {
        Path directory = resolve(relativePath);
        deleteDirectory(directory);
        openedUnchecked.removeIf(file -> file.startsWith(directory));
    }

    /** Deletes {@code directory} with everything in it (nothing if absent). */
    static void deleteDirectory(Path directory) throws IOException {
        if (!Files.isDirectory(directory)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(directory)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }

    /**
     * The file {@code relativePath} names in this store.
     *
     * @throws IllegalArgumentException saying what is wrong with the path
     */
    public Path resolve(String relativePath) {
        if (relativePath == null || relativePath.isEmpty()) {
            throw new IllegalArgumentException("empty replica path");
        }
        String[] segments = relativePath.split("/", -1);
        if (segments.length > MAX_DEPTH) {
            throw new IllegalArgumentException(
                    "replica path '"
                            + relativePath
                            + "' has "
                            + segments.length
                            + " segments (at most "
                            + MAX_DEPTH
                            + ")");
        }
        for (String segment : segments) {
            if (!SEGMENT.matcher(segment).matches()) {
                throw new IllegalArgumentException(
                        "replica path '"
                                + relativePath
                                + "' has the segment '"
                                + segment
                                + "' (expected: relative, segments of [A-Za-z0-9_][A-Za-z0-9._-]*,"
                                + " no '..')");
            }
        }
        String name = segments[segments.length - 1];
        if (name.endsWith(CHECKSUM) || name.contains(PART)) {
            throw new IllegalArgumentException(
                    "replica path '" + relativePath + "' uses a name reserved by the store");
        }
        Path resolved = root.resolve(relativePath).normalize();
        if (!resolved.startsWith(root)) {
            throw new IllegalArgumentException(
                    "replica path '" + relativePath + "' leaves the store");
        }
        return resolved;
    }

    /** Starts writing {@code relativePath}; nothing is visible until {@link Incoming#commit}. */
    public Incoming create(String relativePath, long stream) throws IOException {
        Path target = resolve(relativePath);
        Files.createDirectories(target.getParent());
        Path temporary = target.resolveSibling(target.getFileName() + PART + stream);
        return new Incoming(relativePath, target, temporary, listener, checksums);
    }

    /**
     * Starts storing a file of this machine under {@code relativePath} by hard-linking it, as if it
     * had been received: a replica this peer holds without anything crossing the network. The link
     * is made now (milliseconds), under a temporary name; {@link Adoption#commit} computes the
     * checksum, which reads the whole file, and makes it visible.
     *
     * @return empty if there is nothing to do: the path is stored already, or {@code source} is on
     *     another filesystem than the store (a link cannot cross one, and a copy would cost what
     *     receiving it costs)
     */
    public Optional<Adoption> link(String relativePath, Path source) throws IOException {
        Path target = resolve(relativePath);
        if (file(relativePath).isPresent()) {
            return Optional.empty();
        }
        Files.createDirectories(target.getParent());
        Path temporary = target.resolveSibling(target.getFileName() + PART + "adopted");
        Files.deleteIfExists(temporary);
        try {
            Files.createLink(temporary, source);
        } catch (UnsupportedOperationException | IOException e) {
            if (Files.getFileStore(source).equals(Files.getFileStore(root))) {
                throw e;
            }
            return Optional.empty();
        }
        return Optional.of(new Adoption(target, temporary, checksums));
    }

    /** A local file linked into the store under a temporary name, not visible yet. */
    public static final class Adoption {
        private final Path target;
        private final Path temporary;
        private final StoredChecksums checksums;

        private Adoption(Path target, Path temporary, StoredChecksums checksums) {
            this.target = target;
            this.temporary = temporary;
            this.checksums = checksums;
        }

        /** Computes the file's checksum and makes it visible with it. */
        public void commit() throws IOException {
            try {
                Incoming.publish(checksums, temporary, target, crc32c(temporary));
            } catch (IOException e) {
                abort();
                throw e;
            }
        }

        /** Drops the link. */
        public void abort() {
            deleteQuietly(temporary);
            deleteQuietly(checksumOf(temporary));
        }
    }

    /** The stored file, if complete. */
    public Optional<Path> file(String relativePath) {
        Path file = resolve(relativePath);
        return checksums.complete(file) ? Optional.of(file) : Optional.empty();
    }

    /**
     * Notes that a restore opened this stored file before checking it. Until a {@link #verify} of
     * it passes, {@link #mustCheckBeforeOpening} tells later restores to check it first: a damaged
     * copy that failed the restored task is then passed over instead of failing it again.
     */
    public void openedUnchecked(String relativePath) {
        openedUnchecked.add(resolve(relativePath));
    }

    /** Whether a restore opened this file unchecked and no check of it has passed since. */
    public boolean mustCheckBeforeOpening(String relativePath) {
        return openedUnchecked.contains(resolve(relativePath));
    }

    /**
     * Whether the stored file still has the checksum it was stored with (a flipped bit on disk is
     * found here, in the file or in its checksum; a file that lost its checksum fails too).
     *
     * @throws IOException if it is not stored or cannot be read
     */
    public boolean verify(String relativePath) throws IOException {
        Path file = resolve(relativePath);
        boolean intact = verify(file);
        if (intact) {
            openedUnchecked.remove(file);
        }
        return intact;
    }

    private boolean verify(Path file) throws IOException {
        int recorded;
        try {
            recorded = recordedChecksum(file);
        } catch (StoredChecksums.DamagedChecksumException e) {
            LOG.warn("{}", e.getMessage());
            return false;
        } catch (NoSuchFileException e) {
            if (!Files.isRegularFile(file)) {
                throw e;
            }
            // e.g. a store copied without its extended attributes
            LOG.warn("The replica {} has no checksum: treated as damaged", file);
            return false;
        }
        return crc32c(file) == recorded;
    }

    /**
     * The CRC32C {@code storedFile}, a file of a store, was stored with.
     *
     * @throws java.nio.file.NoSuchFileException if it has none (not stored, or collected)
     * @throws IOException if the recorded checksum is damaged
     */
    public static int recordedChecksum(Path storedFile) throws IOException {
        return StoredChecksums.read(storedFile);
    }

    /**
     * Bytes of the files in the store, partial ones included, checksum records left out. Files that
     * streams drop or commit while the walk runs are skipped rather than failing it: a metrics
     * gauge reads this while replication goes on.
     */
    public long usedBytes() throws IOException {
        long[] total = {0};
        ChangingFileTree.forEachRegularFile(
                root,
                (file, attributes) -> {
                    if (!file.getFileName().toString().endsWith(CHECKSUM)) {
                        total[0] += attributes.size();
                    }
                });
        return total[0];
    }

    /** The CRC32C of a whole file. */
    public static int crc32c(Path file) throws IOException {
        CRC32C crc = new CRC32C();
        ByteBuffer buffer = ByteBuffer.allocate(1 << 16);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            while (channel.read(buffer) >= 0) {
                buffer.flip();
                crc.update(buffer);
                buffer.clear();
            }
        }
        return (int) crc.getValue();
    }

    private static Path checksumOf(Path file) {
        return StoredChecksums.sidecar(file);
    }

    private static void deleteQuietly(Path path) {
        try {
            Files.deleteIfExists(path);
        } catch (IOException e) {
            LOG.warn("Could not delete {}", path, e);
        }
    }

    /** A file being received: written and checksummed as chunks arrive. */
    public static final class Incoming {
        private final String relativePath;
        private final Path target;
        private final Path temporary;
        private final FileChannel channel;
        private final CommitListener listener;
        private final StoredChecksums checksums;
        private final CRC32C crc = new CRC32C();
        private long written;

        private Incoming(
                String relativePath,
                Path target,
                Path temporary,
                CommitListener listener,
                StoredChecksums checksums)
                throws IOException {
            this.relativePath = relativePath;
            this.listener = listener;
            this.checksums = checksums;
            this.target = target;
            this.temporary = temporary;
            this.channel =
                    FileChannel.open(
                            temporary,
                            StandardOpenOption.CREATE,
                            StandardOpenOption.TRUNCATE_EXISTING,
                            StandardOpenOption.WRITE);
        }

        public String relativePath() {
            return relativePath;
        }

        public long written() {
            return written;
        }

        /** Appends {@code data} (a disk that is full throws here). */
        public void write(ByteBuffer data) throws IOException {
            crc.update(data.duplicate());
            while (data.hasRemaining()) {
                written += channel.write(data);
            }
        }

        /**
         * Forces the file to disk and checks it against {@code expectedCrc}.
         *
         * @throws IOException if it does not match (the temporary file is deleted)
         */
        public void finish(int expectedCrc) throws IOException {
            channel.force(true);
            channel.close();
            int actual = (int) crc.getValue();
            if (actual != expectedCrc) {
                abort();
                throw new IOException(
                        "checksum mismatch for '"
                                + relativePath
                                + "': expected "
                                + Integer.toHexString(expectedCrc)
                                + ", received "
                                + Integer.toHexString(actual));
            }
        }

        /** Makes the finished file visible, replacing an older replica of it atomically. */
        public void commit(int crc) throws IOException {
            listener.beforeCommit(relativePath, temporary);
            publish(checksums, temporary, target, crc);
            try {
                listener.committed(relativePath);
            } catch (RuntimeException e) {
                LOG.warn("After storing '{}': {}", relativePath, e.toString(), e);
            }
        }

        /** Drops what was written. */
        public void abort() {
            try {
                channel.close();
            } catch (IOException ignored) {
                // deleting it anyway
            }
            deleteQuietly(temporary);
            deleteQuietly(checksumOf(temporary));
        }

        /** Makes {@code temporary} visible as {@code target} with its checksum {@code crc}. */
        static void publish(StoredChecksums checksums, Path temporary, Path target, int crc)
                throws IOException {
            checksums.record(temporary, crc);
            move(temporary, target);
            if (!checksums.inAttributes()) {
                // the data first: a checksum without its file is never visible
                move(checksumOf(temporary), checksumOf(target));
            }
        }

        private static void move(Path from, Path to) throws IOException {
            try {
                Files.move(
                        from,
                        to,
                        StandardCopyOption.ATOMIC_MOVE,
                        StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(from, to, StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }
}
