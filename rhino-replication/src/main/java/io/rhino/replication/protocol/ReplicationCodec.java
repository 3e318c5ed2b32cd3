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
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageCodec;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.util.AttributeKey;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Encodes and decodes {@link ReplicationMessage}s as frames {@code [int length][int CRC32C of the
 * length][byte type][body]}, the length counting type and body. Put a {@link #frameDecoder()} in
 * front: it refuses frames above {@link #MAX_FRAME_BYTES}, and above {@link #HANDSHAKE_FRAME_BYTES}
 * until the channel is {@linkplain #markAuthenticated authenticated}. Until then only the
 * handshake's messages decode: anything else is refused from its type byte, before its body is
 * read, so a peer that has not proven it knows the secret makes this side allocate nothing beyond
 * one small frame. An unknown type, a string or list above its limit, or a body that does not match
 * its type is a {@link CorruptedFrameException}; the handlers log it and close the connection.
 *
 * <p>Every frame but a chunk ends with the CRC32C of its type and body: a bit flipped on the wire
 * in a path, a size, a file's checksum, a stream id of an ack, or a credit is found like one in a
 * file's data, which the file's own CRC32C covers end to end.
 */
public final class ReplicationCodec extends ByteToMessageCodec<ReplicationMessage> {

    /** Bytes of file data per chunk. */
    public static final int CHUNK_BYTES = 64 * 1024;

    /** The largest frame accepted: a chunk plus its header. */
    public static final int MAX_FRAME_BYTES = CHUNK_BYTES + 64;

    private static final int MAX_STRING_BYTES = 4096;

    /**
     * The largest frame accepted before authentication: a hello with its longest member id and
     * scope.
     */
    public static final int HANDSHAKE_FRAME_BYTES = 3 * MAX_STRING_BYTES;

    private static final AttributeKey<Boolean> AUTHENTICATED =
            AttributeKey.valueOf(ReplicationCodec.class, "authenticated");
    private static final int MAX_CHAIN = 16;

    private static final byte CHALLENGE = 1;
    private static final byte HELLO = 2;
    private static final byte WELCOME = 3;
    private static final byte OPEN = 4;
    static final byte CHUNK = 5;

    /** The CRC32C at the end of every frame but a chunk. */
    private static final int TRAILER_BYTES = 4;

    /** Length, its checksum, type and stream id in front of a chunk's data. */
    static final int CHUNK_HEADER_BYTES = 4 + 4 + 1 + 8;

    /** A frame's length and the CRC32C of the length, in front of its type. */
    static final int PREFIX_BYTES = 8;

    private static final byte CREDIT = 6;
    private static final byte ACK = 7;
    private static final byte FAIL = 8;
    private static final byte FETCH = 9;

    /** Splits the byte stream into frames, refusing oversize and empty ones. */
    public static ReplicationFrameDecoder frameDecoder() {
        return new ReplicationFrameDecoder();
    }

    /** From now on the channel takes every message, up to {@link #MAX_FRAME_BYTES}. */
    public static void markAuthenticated(Channel channel) {
        channel.attr(AUTHENTICATED).set(Boolean.TRUE);
    }

    /** Whether both sides of the channel proved they know the secret. */
    public static boolean isAuthenticated(Channel channel) {
        return Boolean.TRUE.equals(channel.attr(AUTHENTICATED).get());
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, ReplicationMessage message, ByteBuf out) {
        int lengthIndex = out.writerIndex();
        out.writeLong(0); // the length and its checksum, once known
        if (message instanceof ReplicationMessage.Challenge c) {
            out.writeByte(CHALLENGE);
            writeBytes(out, c.nonce());
        } else if (message instanceof ReplicationMessage.Hello h) {
            out.writeByte(HELLO);
            writeString(out, h.memberId());
            writeString(out, h.scope());
            writeBytes(out, h.proof());
            writeBytes(out, h.nonce());
        } else if (message instanceof ReplicationMessage.Welcome w) {
            out.writeByte(WELCOME);
            writeBytes(out, w.proof());
        } else if (message instanceof ReplicationMessage.Open o) {
            out.writeByte(OPEN);
            out.writeLong(o.stream());
            writeString(out, o.path());
            out.writeLong(o.size());
            out.writeInt(o.crc());
            out.writeByte(o.downstream().size());
            o.downstream().forEach(member -> writeString(out, member));
        } else if (message instanceof ReplicationMessage.Chunk c) {
            out.writeByte(CHUNK);
            out.writeLong(c.stream());
            // the encoder releases the chunk once written
            out.writeBytes(c.data(), c.data().readerIndex(), c.data().readableBytes());
        } else if (message instanceof ReplicationMessage.Credit c) {
            out.writeByte(CREDIT);
            out.writeLong(c.stream());
            out.writeInt(c.chunks());
        } else if (message instanceof ReplicationMessage.Ack a) {
            out.writeByte(ACK);
            out.writeLong(a.stream());
        } else if (message instanceof ReplicationMessage.Fetch f) {
            out.writeByte(FETCH);
            out.writeLong(f.request());
            writeString(out, f.sourcePath());
            writeString(out, f.targetPath());
            writeString(out, f.replyTo());
        } else if (message instanceof ReplicationMessage.Fail f) {
            out.writeByte(FAIL);
            out.writeLong(f.stream());
            writeString(out, truncate(f.reason()));
        }
        if (!(message instanceof ReplicationMessage.Chunk)) {
            CRC32C crc = new CRC32C();
            crc.update(
                    out.nioBuffer(
                            lengthIndex + PREFIX_BYTES,
                            out.writerIndex() - lengthIndex - PREFIX_BYTES));
            out.writeInt((int) crc.getValue());
        }
        int length = out.writerIndex() - lengthIndex - PREFIX_BYTES;
        out.setInt(lengthIndex, length);
        out.setInt(lengthIndex + 4, lengthChecksum(length));
    }

    /**
     * The CRC32C of a frame's length, sent after it: a length damaged on the wire is found as soon
     * as its 8 bytes are in, before this side waits for a body that never comes.
     */
    public static int lengthChecksum(int length) {
        CRC32C crc = new CRC32C();
        crc.update(length >>> 24);
        crc.update(length >>> 16);
        crc.update(length >>> 8);
        crc.update(length);
        return (int) crc.getValue();
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf frame, List<Object> out) {
        byte type = frame.getByte(frame.readerIndex());
        if (!isAuthenticated(ctx.channel()) && !isHandshake(type)) {
            throw new UnauthenticatedFrameException(
                    "sent a frame of type " + name(type) + " before authenticating");
        }
        if (type != CHUNK) {
            checkTrailer(frame, type);
        }
        frame.skipBytes(1);
        ReplicationMessage message =
                switch (type) {
                    case CHALLENGE -> new ReplicationMessage.Challenge(readBytes(frame));
                    case HELLO ->
                            new ReplicationMessage.Hello(
                                    readString(frame),
                                    readString(frame),
                                    readBytes(frame),
                                    readBytes(frame));
                    case WELCOME -> new ReplicationMessage.Welcome(readBytes(frame));
                    case OPEN -> readOpen(frame);
                    case CHUNK ->
                            new ReplicationMessage.Chunk(frame.readLong(), ownCopy(ctx, frame));
                    case CREDIT -> new ReplicationMessage.Credit(frame.readLong(), frame.readInt());
                    case ACK -> new ReplicationMessage.Ack(frame.readLong());
                    case FAIL -> new ReplicationMessage.Fail(frame.readLong(), readString(frame));
                    case FETCH ->
                            new ReplicationMessage.Fetch(
                                    frame.readLong(),
                                    readString(frame),
                                    readString(frame),
                                    readString(frame));
                    default ->
                            throw new CorruptedFrameException(
                                    "unknown replication message type " + type);
                };
        if (frame.isReadable()) {
            throw new CorruptedFrameException(
                    frame.readableBytes() + " unexpected bytes after a message of type " + type);
        }
        out.add(message);
    }

    /** Checks and strips the CRC32C at the frame's end. */
    private static void checkTrailer(ByteBuf frame, byte type) {
        int body = frame.readableBytes() - TRAILER_BYTES;
        if (body < 1) {
            throw new CorruptedFrameException(
                    "a frame of type " + name(type) + " without its checksum");
        }
        CRC32C crc = new CRC32C();
        crc.update(frame.nioBuffer(frame.readerIndex(), body));
        int expected = frame.getInt(frame.readerIndex() + body);
        if ((int) crc.getValue() != expected) {
            throw new CorruptedFrameException(
                    "a frame of type " + name(type) + " damaged in transit (checksum mismatch)");
        }
        frame.writerIndex(frame.readerIndex() + body);
    }

    private static boolean isHandshake(byte type) {
        return type == CHALLENGE || type == HELLO || type == WELCOME || type == FAIL;
    }

    private static String name(byte type) {
        return switch (type) {
            case CHALLENGE -> "CHALLENGE";
            case HELLO -> "HELLO";
            case WELCOME -> "WELCOME";
            case OPEN -> "OPEN";
            case CHUNK -> "CHUNK";
            case CREDIT -> "CREDIT";
            case ACK -> "ACK";
            case FAIL -> "FAIL";
            case FETCH -> "FETCH";
            default -> "unknown (" + type + ")";
        };
    }

    /** A frame other than the handshake's from a peer that has not authenticated. */
    public static final class UnauthenticatedFrameException extends CorruptedFrameException {
        private static final long serialVersionUID = 1L;

        UnauthenticatedFrameException(String message) {
            super(message);
        }
    }

    private static ReplicationMessage.Open readOpen(ByteBuf frame) {
        long stream = frame.readLong();
        String path = readString(frame);
        long size = frame.readLong();
        int crc = frame.readInt();
        int members = frame.readUnsignedByte();
        if (members > MAX_CHAIN) {
            throw new CorruptedFrameException("a chain of " + members + " members");
        }
        List<String> downstream = new ArrayList<>(members);
        for (int i = 0; i < members; i++) {
            downstream.add(readString(frame));
        }
        if (size < 0) {
            throw new CorruptedFrameException("a file of " + size + " bytes");
        }
        return new ReplicationMessage.Open(stream, path, size, crc, downstream);
    }

    private static void writeString(ByteBuf out, String value) {
        writeBytes(out, value.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The chunk's bytes in a buffer of their own. A slice would pin the frame decoder's whole read
     * buffer for as long as the chunk waits to be forwarded and keep that decoder from compacting
     * it, so a hop would hold far more than its credit window; copying 64 KiB costs microseconds.
     * Direct, unlike {@code readBytes(int)}'s allocator default where Netty finds no Unsafe: the
     * member writes it to a file channel, which would otherwise copy it once more.
     */
    private static ByteBuf ownCopy(ChannelHandlerContext ctx, ByteBuf frame) {
        ByteBuf copy = ctx.alloc().directBuffer(frame.readableBytes());
        copy.writeBytes(frame);
        return copy;
    }

    private static String readString(ByteBuf in) {
        return new String(readBytes(in), StandardCharsets.UTF_8);
    }

    private static void writeBytes(ByteBuf out, byte[] bytes) {
        out.writeShort(bytes.length);
        out.writeBytes(bytes);
    }

    private static byte[] readBytes(ByteBuf in) {
        int length = in.readUnsignedShort();
        if (length > MAX_STRING_BYTES || length > in.readableBytes()) {
            throw new CorruptedFrameException("a field of " + length + " bytes");
        }
        byte[] bytes = new byte[length];
        in.readBytes(bytes);
        return bytes;
    }

    private static String truncate(String reason) {
        String text = reason == null ? "null" : reason;
        return text.length() > 1000 ? text.substring(0, 1000) + "..." : text;
    }

    /** Whether {@code cause} is a frame this codec refused (logged, then the connection closes). */
    public static boolean isProtocolViolation(Throwable cause) {
        return cause instanceof CorruptedFrameException
                || cause instanceof TooLongFrameException
                || cause.getCause() instanceof CorruptedFrameException
                || cause.getCause() instanceof TooLongFrameException;
    }
}
