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

package io.rhino.flink.state;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.zip.CRC32;
import java.util.zip.CheckedInputStream;
import java.util.zip.CheckedOutputStream;
import java.util.zip.Deflater;
import java.util.zip.DeflaterOutputStream;
import java.util.zip.Inflater;
import java.util.zip.InflaterInputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The first timer of each key group of a vnode's timer queues, as the queues' caches hold them. A
 * subtask that installs the vnode creates its timer queues from them instead of seeking every key
 * group's first timer in a RocksDB instance whose blocks are not cached yet (see {@link
 * RocksDbTimerQueueFactory}). Two paths carry them:
 *
 * <ul>
 *   <li>a handover: the origin writes them as a file into the export's RocksDB directory, so that
 *       every state transfer ships it with the RocksDB files; the target takes it out before it
 *       restores the instance;
 *   <li>a checkpoint: the synchronous part reads them, and the {@link VnodeManifest} stores them
 *       beside the vnode's handle, for a restore (failover, local recovery, replicas, a native
 *       savepoint) to create the queues from.
 * </ul>
 *
 * <p>They are checksummed: heads that do not read back whole are ignored with a warning, and the
 * queues read their heads from RocksDB as they would without them.
 */
final class TimerQueueHeads {

    private static final Logger LOG = LoggerFactory.getLogger(TimerQueueHeads.class);

    /** The file's name in the export's RocksDB directory. */
    static final String FILE_NAME = "rhino-timer-heads";

    static final TimerQueueHeads NONE = new TimerQueueHeads(Map.of());

    private static final int FORMAT = 0x52544801; // "RTH" and version 1

    private static final byte UNKNOWN = 0;
    private static final byte EMPTY = 1;
    private static final byte HEAD = 2;

    private final Map<String, KeyGroupHeads> byQueue;

    TimerQueueHeads(Map<String, KeyGroupHeads> byQueue) {
        this.byQueue = Collections.unmodifiableMap(new LinkedHashMap<>(byQueue));
    }

    /**
     * The first timers of one queue's key groups, in the byte order Flink's RocksDB timer queue
     * stores them. A key group is known (its head, or null if it holds no timer) or unknown (the
     * origin's cache did not say; the target reads it from RocksDB).
     *
     * @param firstKeyGroup the key group of {@code heads[0]}
     * @param heads each key group's first timer, null where it has none or is unknown
     * @param known the key groups (indices into {@code heads}) whose entry is known
     */
    record KeyGroupHeads(int firstKeyGroup, byte[][] heads, BitSet known) {

        int numberOfKeyGroups() {
            return heads.length;
        }

        byte[] head(int keyGroup) {
            return heads[keyGroup - firstKeyGroup];
        }
    }

    /** The queue's heads, or null if none were shipped for it. */
    KeyGroupHeads of(String queue) {
        return byQueue.get(queue);
    }

    /** Writes them into the export's RocksDB directory {@code db}. */
    void writeInto(Path db) throws IOException {
        if (byQueue.isEmpty()) {
            return;
        }
        try (OutputStream file = Files.newOutputStream(db.resolve(FILE_NAME))) {
            BufferedOutputStream buffered = new BufferedOutputStream(file);
            write(buffered);
            buffered.flush();
        }
    }

    /** Whether they hold no queue's heads. */
    boolean isEmpty() {
        return byQueue.isEmpty();
    }

    /** These heads without those of {@code queue}. */
    TimerQueueHeads without(String queue) {
        if (!byQueue.containsKey(queue)) {
            return this;
        }
        Map<String, KeyGroupHeads> rest = new LinkedHashMap<>(byQueue);
        rest.remove(queue);
        return rest.isEmpty() ? NONE : new TimerQueueHeads(rest);
    }

    /**
     * Their checksummed serialized form, deflated, as {@link #fromBytes} reads it. Deflating at the
     * fastest level shrank a subtask's heads (NBQ8: 4 vnodes, 2,048 key groups, two queues) from
     * about 400 KB to 86 KB: they are written with every checkpoint.
     */
    byte[] toBytes() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Deflater deflater = new Deflater(Deflater.BEST_SPEED);
        try (DeflaterOutputStream deflated = new DeflaterOutputStream(bytes, deflater, 8192)) {
            write(deflated);
        } finally {
            deflater.end();
        }
        return bytes.toByteArray();
    }

    /**
     * Reads heads serialized by {@link #toBytes}: none, with a warning naming {@code source}, if
     * they do not read back whole.
     */
    static TimerQueueHeads fromBytes(byte[] bytes, String source) {
        Inflater inflater = new Inflater();
        try (InputStream in =
                new InflaterInputStream(new ByteArrayInputStream(bytes), inflater, 8192)) {
            return read(new BufferedInputStream(in));
        } catch (IOException | RuntimeException e) {
            LOG.warn(
                    "Ignoring the timer queue heads of {} ({}); the timer queues read their first"
                            + " timers from RocksDB instead",
                    source,
                    e.toString());
            return NONE;
        } finally {
            inflater.end();
        }
    }

    private void write(OutputStream stream) throws IOException {
        CRC32 checksum = new CRC32();
        // buffered above the checksum and the deflater: both are slow a byte at a time
        DataOutputStream out =
                new DataOutputStream(
                        new BufferedOutputStream(new CheckedOutputStream(stream, checksum), 8192));
        out.writeInt(FORMAT);
        out.writeInt(byQueue.size());
        for (Map.Entry<String, KeyGroupHeads> queue : byQueue.entrySet()) {
            KeyGroupHeads heads = queue.getValue();
            out.writeUTF(queue.getKey());
            out.writeInt(heads.firstKeyGroup());
            out.writeInt(heads.numberOfKeyGroups());
            for (int i = 0; i < heads.numberOfKeyGroups(); i++) {
                byte[] head = heads.heads()[i];
                if (!heads.known().get(i)) {
                    out.writeByte(UNKNOWN);
                } else if (head == null) {
                    out.writeByte(EMPTY);
                } else {
                    out.writeByte(HEAD);
                    out.writeInt(head.length);
                    out.write(head);
                }
            }
        }
        out.flush();
        new DataOutputStream(stream).writeLong(checksum.getValue());
    }

    /**
     * Reads and deletes the heads an export's RocksDB directory {@code db} holds: none if it holds
     * no such file, or if the file is damaged (with a warning).
     */
    static TimerQueueHeads takeFrom(Path db) {
        Path file = db.resolve(FILE_NAME);
        try {
            return read(file);
        } catch (NoSuchFileException e) {
            return NONE;
        } catch (IOException | RuntimeException e) {
            LOG.warn(
                    "Ignoring the timer queue heads shipped in {} ({}); the timer queues read"
                            + " their first timers from RocksDB instead",
                    file,
                    e.toString());
            return NONE;
        } finally {
            try {
                // Flink's restore would link it into the instance directory, where nothing reads it
                Files.deleteIfExists(file);
            } catch (IOException e) {
                LOG.warn("Could not delete {}: {}", file, e.toString());
            }
        }
    }

    private static TimerQueueHeads read(Path file) throws IOException {
        try (InputStream stream = new BufferedInputStream(Files.newInputStream(file))) {
            return read(stream);
        }
    }

    private static TimerQueueHeads read(InputStream stream) throws IOException {
        CRC32 checksum = new CRC32();
        DataInputStream in = new DataInputStream(new CheckedInputStream(stream, checksum));
        int format = in.readInt();
        if (format != FORMAT) {
            throw new IOException("unknown format " + Integer.toHexString(format));
        }
        int queues = in.readInt();
        if (queues < 0 || queues > 1024) {
            throw new IOException(queues + " timer queues");
        }
        Map<String, KeyGroupHeads> byQueue = new LinkedHashMap<>();
        for (int q = 0; q < queues; q++) {
            String name = in.readUTF();
            int firstKeyGroup = in.readInt();
            int keyGroups = in.readInt();
            if (keyGroups < 0 || keyGroups > 32_768) {
                throw new IOException("queue " + name + " has " + keyGroups + " key groups");
            }
            byte[][] heads = new byte[keyGroups][];
            BitSet known = new BitSet(keyGroups);
            for (int i = 0; i < keyGroups; i++) {
                byte kind = in.readByte();
                if (kind == HEAD) {
                    int length = in.readInt();
                    if (length < 0 || length > 1 << 20) {
                        throw new IOException("a head of " + length + " bytes");
                    }
                    heads[i] = in.readNBytes(length);
                    if (heads[i].length != length) {
                        throw new IOException("the heads end inside a head");
                    }
                } else if (kind != EMPTY && kind != UNKNOWN) {
                    throw new IOException("unknown entry kind " + kind);
                }
                known.set(i, kind != UNKNOWN);
            }
            byQueue.put(name, new KeyGroupHeads(firstKeyGroup, heads, known));
        }
        long computed = checksum.getValue();
        long stored = new DataInputStream(stream).readLong();
        if (computed != stored) {
            throw new IOException("checksum mismatch");
        }
        return new TimerQueueHeads(byQueue);
    }
}
