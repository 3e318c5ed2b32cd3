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

package io.rhino.flink.routing;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.File;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.TreeSet;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataInputViewStreamWrapper;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.core.memory.DataOutputViewStreamWrapper;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.util.function.ThrowingConsumer;

/**
 * Holds back, at a target gate, the records of vnodes that are moving here but not installed yet,
 * to replay them in arrival order once their state is installed. Records of other vnodes pass.
 *
 * <p>Held records are kept serialized: in memory up to {@code maxMemoryBytes}, then appended to a
 * file in one of the TaskManager's spilling directories, so a slow install never exhausts the heap
 * whatever the input rate. Replaying reads them back one at a time. Task thread only.
 */
final class IncomingVnodeBuffer<T> implements AutoCloseable {

    private final TypeSerializer<T> serializer;
    private final long maxMemoryBytes;
    private final File[] spillDirectories;
    private final Set<Integer> pendingVnodes = new HashSet<>();
    private RecordLog log;
    private int spillFiles;

    /**
     * @param serializer the records' value serializer (the buffer's own copy)
     * @param maxMemoryBytes serialized bytes held in memory before records go to disk
     * @param spillDirectories where records beyond that go
     */
    IncomingVnodeBuffer(
            TypeSerializer<T> serializer, long maxMemoryBytes, File[] spillDirectories) {
        this.serializer = serializer;
        this.maxMemoryBytes = maxMemoryBytes;
        this.spillDirectories = spillDirectories.clone();
        this.log = new RecordLog();
    }

    /** The vnodes whose records wait, ascending. */
    Set<Integer> pending() {
        return new TreeSet<>(pendingVnodes);
    }

    boolean isHolding() {
        return !pendingVnodes.isEmpty();
    }

    boolean isPending(int vnode) {
        return pendingVnodes.contains(vnode);
    }

    void expect(Set<Integer> vnodes) {
        pendingVnodes.addAll(vnodes);
    }

    void add(int vnode, StreamRecord<T> record) throws IOException {
        log.append(vnode, record);
    }

    /**
     * Marks the vnodes installed and passes their held records to {@code replay} in arrival order;
     * records of still pending vnodes stay, in their order.
     *
     * @return how many records were replayed
     */
    int release(Set<Integer> installed, ThrowingConsumer<StreamRecord<T>, Exception> replay)
            throws Exception {
        pendingVnodes.removeAll(installed);
        RecordLog drained = log;
        log = new RecordLog();
        int replayed = 0;
        try (drained;
                RecordReader reader = drained.reader()) {
            for (int i = 0; i < drained.count; i++) {
                int vnode = reader.in().readInt();
                StreamRecord<T> record = reader.record();
                if (pendingVnodes.contains(vnode)) {
                    log.append(vnode, record);
                } else {
                    replay.accept(record);
                    replayed++;
                }
            }
        }
        return replayed;
    }

    /** Records held. */
    int size() {
        return log.count;
    }

    /** Serialized bytes held in memory. */
    long memoryBytes() {
        return log.memory.length();
    }

    /** Serialized bytes held on disk. */
    long spilledBytes() {
        return log.spilledBytes;
    }

    /** Deletes the spill file, if any. */
    @Override
    public void close() throws IOException {
        log.close();
    }

    /** Records in arrival order: the first ones in memory, the rest in a file. */
    private final class RecordLog implements AutoCloseable {
        private final DataOutputSerializer memory = new DataOutputSerializer(4096);
        private int count;
        private int inMemory;
        private Path spillFile;
        private OutputStream spillStream;
        private DataOutputView spillView;
        private long spilledBytes;

        void append(int vnode, StreamRecord<T> record) throws IOException {
            DataOutputView out;
            if (spillView == null && memory.length() < maxMemoryBytes) {
                out = memory;
                inMemory++;
            } else {
                out = spill();
            }
            out.writeInt(vnode);
            out.writeBoolean(record.hasTimestamp());
            if (record.hasTimestamp()) {
                out.writeLong(record.getTimestamp());
            }
            serializer.serialize(record.getValue(), out);
            count++;
        }

        private DataOutputView spill() throws IOException {
            if (spillView == null) {
                File directory = spillDirectories[spillFiles++ % spillDirectories.length];
                spillFile =
                        Files.createTempFile(directory.toPath(), "rhino-handover-buffer-", ".bin");
                spillStream = new BufferedOutputStream(Files.newOutputStream(spillFile), 1 << 16);
                spillView = new DataOutputViewStreamWrapper(new CountingStream(spillStream));
            }
            return spillView;
        }

        RecordReader reader() throws IOException {
            if (spillStream != null) {
                spillStream.flush();
            }
            return new RecordReader(this);
        }

        @Override
        public void close() throws IOException {
            if (spillStream != null) {
                spillStream.close();
                spillStream = null;
            }
            if (spillFile != null) {
                Files.deleteIfExists(spillFile);
                spillFile = null;
            }
        }

        /** Counts what goes to the spill file (a long: spills may pass 2 GB). */
        private final class CountingStream extends FilterOutputStream {
            CountingStream(OutputStream out) {
                super(out);
            }

            @Override
            public void write(int b) throws IOException {
                out.write(b);
                spilledBytes++;
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                out.write(b, off, len);
                spilledBytes += len;
            }
        }
    }

    /** Reads a log's records back, memory first, then its file. */
    private final class RecordReader implements AutoCloseable {
        private final RecordLog log;
        private final DataInputDeserializer memory;
        private int read;
        private InputStream file;
        private DataInputView fileView;
        private DataInputView current;

        RecordReader(RecordLog log) {
            this.log = log;
            this.memory =
                    new DataInputDeserializer(log.memory.getSharedBuffer(), 0, log.memory.length());
        }

        /** Where the next record starts. */
        DataInputView in() throws IOException {
            if (read < log.inMemory) {
                read++;
                return current = memory;
            }
            if (fileView == null) {
                file = new BufferedInputStream(Files.newInputStream(log.spillFile), 1 << 16);
                fileView = new DataInputViewStreamWrapper(file);
            }
            read++;
            return current = fileView;
        }

        /** The rest of the record whose vnode {@link #in} just read. */
        StreamRecord<T> record() throws IOException {
            boolean hasTimestamp = current.readBoolean();
            long timestamp = hasTimestamp ? current.readLong() : 0;
            T value = serializer.deserialize(current);
            return hasTimestamp ? new StreamRecord<>(value, timestamp) : new StreamRecord<>(value);
        }

        @Override
        public void close() throws IOException {
            if (file != null) {
                file.close();
            }
        }
    }
}
