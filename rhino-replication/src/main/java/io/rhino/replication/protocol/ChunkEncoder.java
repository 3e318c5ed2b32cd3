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

package io.rhino.replication.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.FileRegion;
import io.netty.handler.codec.MessageToMessageEncoder;
import java.util.List;

/**
 * Frames file data without copying it: a chunk's header goes out as a small buffer and its bytes as
 * they are, a received buffer passed on, or a {@link FileRegion} the kernel sends from the page
 * cache (sendfile). Sits after (on the outbound side before) the {@link ReplicationCodec}, which
 * lets buffers and regions through; the wire format is the codec's.
 */
public final class ChunkEncoder extends MessageToMessageEncoder<Object> {

    @Override
    public boolean acceptOutboundMessage(Object message) {
        return message instanceof ReplicationMessage.Chunk || message instanceof FileChunk;
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, Object message, List<Object> out) {
        long stream;
        Object data;
        long length;
        if (message instanceof ReplicationMessage.Chunk chunk) {
            stream = chunk.stream();
            // the encoder releases the chunk after this; its data goes on
            data = chunk.data().retain();
            length = chunk.data().readableBytes();
        } else {
            FileChunk chunk = (FileChunk) message;
            stream = chunk.stream();
            data = chunk.region();
            length = chunk.region().count();
        }
        ByteBuf header = ctx.alloc().buffer(ReplicationCodec.CHUNK_HEADER_BYTES);
        int frameLength =
                (int)
                        (ReplicationCodec.CHUNK_HEADER_BYTES
                                - ReplicationCodec.PREFIX_BYTES
                                + length);
        header.writeInt(frameLength);
        header.writeInt(ReplicationCodec.lengthChecksum(frameLength));
        header.writeByte(ReplicationCodec.CHUNK);
        header.writeLong(stream);
        out.add(header);
        out.add(data);
    }

    /** A chunk of a local file, sent by the kernel from the page cache. */
    public record FileChunk(long stream, FileRegion region) {}
}
