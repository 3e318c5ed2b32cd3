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
import io.rhino.replication.protocol.ReplicationCodec;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** Reads a local file chunk by chunk, as the receiver grants credit: memory stays bounded. */
final class FileChunkSource implements ChunkSource {

    private final FileChannel file;
    private final long size;
    private long position;

    FileChunkSource(Path path) throws IOException {
        this.file = FileChannel.open(path, StandardOpenOption.READ);
        this.size = file.size();
    }

    long size() {
        return size;
    }

    @Override
    public boolean hasNext() {
        return position < size;
    }

    @Override
    public ByteBuf next(ByteBufAllocator allocator) throws IOException {
        int length = (int) Math.min(ReplicationCodec.CHUNK_BYTES, size - position);
        ByteBuf chunk = allocator.directBuffer(length);
        try {
            while (chunk.writerIndex() < length) {
                int read =
                        chunk.writeBytes(
                                file, position + chunk.writerIndex(), length - chunk.writerIndex());
                if (read < 0) {
                    throw new IOException("the file shrank while it was replicated");
                }
            }
        } catch (IOException | RuntimeException e) {
            chunk.release();
            throw e;
        }
        position += length;
        return chunk;
    }

    @Override
    public void close() {
        try {
            file.close();
        } catch (IOException ignored) {
            // read-only
        }
    }
}
