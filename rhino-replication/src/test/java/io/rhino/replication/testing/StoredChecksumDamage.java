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

package io.rhino.replication.testing;

import io.rhino.replication.store.ReplicaStore;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserDefinedFileAttributeView;

/** Damages the checksum a store keeps of a stored file, wherever the store keeps it. */
public final class StoredChecksumDamage {

    private StoredChecksumDamage() {}

    /** Records {@code crc} as the stored file's checksum. */
    public static void write(ReplicaStore store, Path stored, int crc) throws IOException {
        if (store.checksumsInAttributes()) {
            attributes(stored)
                    .write(
                            ReplicaStore.CHECKSUM_ATTRIBUTE,
                            ByteBuffer.allocate(Integer.BYTES).putInt(0, crc));
        } else {
            Files.writeString(sidecar(stored), Integer.toHexString(crc), StandardCharsets.US_ASCII);
        }
    }

    /** Replaces the stored file's checksum with something that is no checksum. */
    public static void writeNoChecksum(ReplicaStore store, Path stored) throws IOException {
        byte[] garbage = "zz".getBytes(StandardCharsets.US_ASCII);
        if (store.checksumsInAttributes()) {
            attributes(stored).write(ReplicaStore.CHECKSUM_ATTRIBUTE, ByteBuffer.wrap(garbage));
        } else {
            Files.write(sidecar(stored), garbage);
        }
    }

    private static UserDefinedFileAttributeView attributes(Path file) {
        return Files.getFileAttributeView(file, UserDefinedFileAttributeView.class);
    }

    private static Path sidecar(Path stored) {
        return stored.resolveSibling(stored.getFileName() + ".crc32c");
    }
}
