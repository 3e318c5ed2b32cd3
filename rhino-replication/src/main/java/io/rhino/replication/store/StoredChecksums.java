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
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.UserDefinedFileAttributeView;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where the store keeps a replica's checksum: in an extended attribute of the file ({@value
 * #ATTRIBUTE}, user namespace) where the filesystem has them, so storing a file creates one inode
 * and a single rename makes file and checksum visible together; else in a file beside it ({@code
 * <name>.crc32c}). Files stored with a checksum file beside them (an older store, or one moved to a
 * filesystem without attributes) keep being read that way.
 */
final class StoredChecksums {

    /** The attribute's name in the user namespace ({@code user.rhino.crc32c}). */
    static final String ATTRIBUTE = "rhino.crc32c";

    static final String FILE_SUFFIX = ".crc32c";

    private static final Logger LOG = LoggerFactory.getLogger(StoredChecksums.class);

    private final boolean inAttributes;

    private StoredChecksums(boolean inAttributes) {
        this.inAttributes = inAttributes;
    }

    /** Checksums in attributes if a file of {@code probe}'s directory takes one, else in files. */
    static StoredChecksums probing(Path probe) {
        try {
            Files.deleteIfExists(probe);
            Files.createFile(probe);
            try {
                write(view(probe), 0x2a);
                if (read(view(probe)).map(v -> v.getInt(0)).orElse(-1) == 0x2a) {
                    return new StoredChecksums(true);
                }
            } finally {
                Files.deleteIfExists(probe);
            }
        } catch (IOException | UnsupportedOperationException e) {
            LOG.info(
                    "The replica store {} keeps checksums in files beside the replicas: its"
                            + " filesystem takes no extended attributes ({})",
                    probe.getParent(),
                    e.toString());
        }
        return new StoredChecksums(false);
    }

    /** Whether checksums go into attributes, so a stored file needs nothing beside it. */
    boolean inAttributes() {
        return inAttributes;
    }

    /**
     * Records {@code crc} for a file not visible yet ({@code temporary}); {@link #publish} then
     * makes both visible under {@code target}.
     */
    void record(Path temporary, int crc) throws IOException {
        if (inAttributes) {
            write(view(temporary), crc);
        } else {
            Files.writeString(
                    sidecar(temporary), Integer.toHexString(crc), StandardCharsets.US_ASCII);
        }
    }

    /** Whether {@code file} is complete: stored with its checksum. */
    boolean complete(Path file) {
        // with attributes a file reaches its name only with its checksum (one rename)
        return Files.isRegularFile(inAttributes ? file : sidecar(file));
    }

    /**
     * The checksum {@code file} was stored with: its attribute, else the file beside it.
     *
     * @throws NoSuchFileException if it has none
     * @throws DamagedChecksumException if what is stored is no checksum
     */
    static int read(Path file) throws IOException {
        Optional<ByteBuffer> attribute = Optional.empty();
        if (Files.isRegularFile(file)) {
            try {
                attribute = read(view(file));
            } catch (UnsupportedOperationException | IOException e) {
                // no attributes here: the file beside it holds the checksum
            }
        }
        if (attribute.isPresent()) {
            ByteBuffer value = attribute.get();
            if (value.capacity() != Integer.BYTES) {
                throw new DamagedChecksumException(file, value.capacity() + " bytes");
            }
            return value.getInt(0);
        }
        String text = Files.readString(sidecar(file), StandardCharsets.US_ASCII).trim();
        try {
            return Integer.parseUnsignedInt(text, 16);
        } catch (NumberFormatException e) {
            throw new DamagedChecksumException(file, "'" + text + "'");
        }
    }

    /** The checksum stored with a replica is no checksum: the replica counts as damaged. */
    static final class DamagedChecksumException extends IOException {
        private static final long serialVersionUID = 1L;

        DamagedChecksumException(Path file, String found) {
            super("the checksum of " + file + " is damaged: " + found);
        }
    }

    static Path sidecar(Path file) {
        return file.resolveSibling(file.getFileName() + FILE_SUFFIX);
    }

    private static UserDefinedFileAttributeView view(Path file) {
        UserDefinedFileAttributeView view =
                Files.getFileAttributeView(file, UserDefinedFileAttributeView.class);
        if (view == null) {
            throw new UnsupportedOperationException("no user-defined file attributes");
        }
        return view;
    }

    private static void write(UserDefinedFileAttributeView view, int crc) throws IOException {
        view.write(ATTRIBUTE, ByteBuffer.allocate(Integer.BYTES).putInt(0, crc));
    }

    private static Optional<ByteBuffer> read(UserDefinedFileAttributeView view) throws IOException {
        if (!view.list().contains(ATTRIBUTE)) {
            return Optional.empty();
        }
        ByteBuffer value = ByteBuffer.allocate(view.size(ATTRIBUTE));
        view.read(ATTRIBUTE, value);
        return Optional.of(value);
    }
}
