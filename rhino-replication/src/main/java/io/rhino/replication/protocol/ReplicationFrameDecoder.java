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
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.codec.TooLongFrameException;

/**
 * Splits the byte stream into the {@link ReplicationCodec}'s frames. Checks each frame's announced
 * length before reading its body: above {@link ReplicationCodec#HANDSHAKE_FRAME_BYTES} before the
 * channel is authenticated, above {@link ReplicationCodec#MAX_FRAME_BYTES} after, or empty (a frame
 * has at least its type byte), it is refused and the connection closes. So an unauthenticated peer
 * makes this side buffer at most one handshake frame.
 */
public final class ReplicationFrameDecoder extends LengthFieldBasedFrameDecoder {

    ReplicationFrameDecoder() {
        // the length's checksum follows it; both are stripped
        super(ReplicationCodec.MAX_FRAME_BYTES, 0, 4, 4, ReplicationCodec.PREFIX_BYTES, true);
    }

    @Override
    protected Object decode(ChannelHandlerContext ctx, ByteBuf in) throws Exception {
        if (in.readableBytes() >= 4) {
            long length = in.getUnsignedInt(in.readerIndex());
            boolean authenticated = ReplicationCodec.isAuthenticated(ctx.channel());
            if (!authenticated && length > ReplicationCodec.HANDSHAKE_FRAME_BYTES) {
                throw new TooLongFrameException(
                        "a frame of "
                                + length
                                + " bytes before authenticating (at most "
                                + ReplicationCodec.HANDSHAKE_FRAME_BYTES
                                + " until then)");
            }
            if (length == 0) {
                throw new CorruptedFrameException("an empty frame (expected: at least a type)");
            }
        }
        if (in.readableBytes() >= ReplicationCodec.PREFIX_BYTES) {
            int length = in.getInt(in.readerIndex());
            if (in.getInt(in.readerIndex() + 4) != ReplicationCodec.lengthChecksum(length)) {
                throw new CorruptedFrameException(
                        "a frame length damaged in transit (checksum mismatch)");
            }
        }
        return super.decode(ctx, in);
    }
}
