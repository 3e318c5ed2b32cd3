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

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.FileRegion;
import io.netty.util.AbstractReferenceCounted;
import io.rhino.replication.protocol.ChunkEncoder;
import io.rhino.replication.protocol.ReplicationCodec;
import io.rhino.replication.protocol.ReplicationMessage;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A local file sent chunk by chunk, as the receiver grants credit, without copying it through this
 * process: each chunk is a {@link FileRegion} of the open file that the socket transfers from the
 * page cache ({@code FileChannel.transferTo}, sendfile on Linux). The file stays open while the
 * source or any of its chunks waiting in the channel is unreleased. Where the bytes must pass
 * through the JVM (TLS encrypts them there), chunks are read into buffers instead.
 */
final class FileChunkSource extends AbstractReferenceCounted implements ChunkSource {

    private final FileChannel file;
    private final long size;
    private final boolean zeroCopy;
    private long position;
    private boolean closed;

    FileChunkSource(Path path, boolean zeroCopy) throws IOException {
        this.file = FileChannel.open(path, StandardOpenOption.READ);
        this.size = file.size();
        this.zeroCopy = zeroCopy;
    }

    long size() {
        return size;
    }

    @Override
    public boolean hasNext() {
        return position < size;
    }

    @Override
    public Object next(long stream, ByteBufAllocator allocator) throws IOException {
        int length = (int) Math.min(ReplicationCodec.CHUNK_BYTES, size - position);
        if (zeroCopy) {
            Region region = new Region(position, length);
            position += length;
            return new ChunkEncoder.FileChunk(stream, region);
        }
        ByteBuf chunk = allocator.directBuffer(length);
        try {
            while (chunk.isWritable()) {
                if (chunk.writeBytes(file, position + chunk.readableBytes(), chunk.writableBytes())
                        < 0) {
                    throw new IOException("the file shrank while it was replicated");
                }
            }
        } catch (IOException e) {
            chunk.release();
            throw e;
        }
        position += length;
        return new ReplicationMessage.Chunk(stream, chunk);
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            release();
        }
    }

    @Override
    protected void deallocate() {
        try {
            file.close();
        } catch (IOException ignored) {
            // read-only
        }
    }

    @Override
    public FileChunkSource touch(Object hint) {
        return this;
    }

    /** One chunk of the file; holds the file open until sent or dropped. */
    private final class Region extends AbstractReferenceCounted implements FileRegion {
        private final long start;
        private final long count;
        private long transferred;

        Region(long start, long count) {
            this.start = start;
            this.count = count;
            FileChunkSource.this.retain();
        }

        @Override
        public long position() {
            return start;
        }

        @Override
        @Deprecated
        public long transfered() {
            return transferred;
        }

        @Override
        public long transferred() {
            return transferred;
        }

        @Override
        public long count() {
            return count;
        }

        @Override
        public long transferTo(WritableByteChannel target, long position) throws IOException {
            long left = count - position;
            if (left <= 0) {
                return 0;
            }
            long written = file.transferTo(start + position, left, target);
            if (written == 0 && start + position >= file.size()) {
                throw new IOException("the file shrank while it was replicated");
            }
            transferred += written;
            return written;
        }

        @Override
        protected void deallocate() {
            FileChunkSource.this.release();
        }

        @Override
        public Region retain() {
            super.retain();
            return this;
        }

        @Override
        public Region retain(int increment) {
            super.retain(increment);
            return this;
        }

        @Override
        public Region touch() {
            return this;
        }

        @Override
        public Region touch(Object hint) {
            return this;
        }
    }
}
