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
import io.netty.util.ReferenceCounted;
import java.util.List;

/**
 * The messages of Rhino's replication protocol. A connection carries file streams one way, from the
 * connecting side (the sender) to the accepting side (the receiver); credits, acks and failures
 * flow back. Every message but the handshake belongs to one stream or one fetch request; a fetch
 * makes the receiver send a stored file to the sender's own service, over a connection of its own.
 */
public sealed interface ReplicationMessage {

    /** Receiver → sender on connect: prove you know the secret by signing this nonce. */
    record Challenge(byte[] nonce) implements ReplicationMessage {}

    /**
     * Sender → receiver: who it is, the scope it works in (the path prefix of one job's operator
     * whose secret it proves, or empty for the service-wide secret), its proof (an HMAC-SHA256 of
     * the receiver's nonce with that secret), and a nonce of its own for the receiver to sign in
     * turn.
     */
    record Hello(String memberId, String scope, byte[] proof, byte[] nonce)
            implements ReplicationMessage {}

    /**
     * Receiver → sender: authenticated; streams may open. Carries the receiver's proof that it
     * knows the secret too (an HMAC of the sender's nonce), so neither side trusts an impostor.
     */
    record Welcome(byte[] proof) implements ReplicationMessage {}

    /**
     * Sender → receiver: a file of {@code size} bytes with CRC32C {@code crc} follows in chunks;
     * store it at {@code path} (relative to the receiver's store) and forward it to {@code
     * downstream} (the rest of the chain, "host:port", nearest first).
     */
    record Open(long stream, String path, long size, int crc, List<String> downstream)
            implements ReplicationMessage {}

    /**
     * Sender → receiver: the next bytes of a stream. Counts as one reference to {@code data}: a
     * handler that reads one releases it (Netty's {@code SimpleChannelInboundHandler} does), and
     * one that keeps the data retains it.
     */
    record Chunk(long stream, ByteBuf data) implements ReplicationMessage, ReferenceCounted {

        @Override
        public int refCnt() {
            return data.refCnt();
        }

        @Override
        public Chunk retain() {
            data.retain();
            return this;
        }

        @Override
        public Chunk retain(int increment) {
            data.retain(increment);
            return this;
        }

        @Override
        public Chunk touch() {
            data.touch();
            return this;
        }

        @Override
        public Chunk touch(Object hint) {
            data.touch(hint);
            return this;
        }

        @Override
        public boolean release() {
            return data.release();
        }

        @Override
        public boolean release(int decrement) {
            return data.release(decrement);
        }
    }

    /** Receiver → sender: the sender may send {@code chunks} more chunks of the stream. */
    record Credit(long stream, int chunks) implements ReplicationMessage {}

    /** Receiver → sender: the file is stored and verified here and on every member downstream. */
    record Ack(long stream) implements ReplicationMessage {}

    /**
     * Sender → receiver: send me your stored, verified copy of {@code sourcePath}, as a file at
     * {@code targetPath} of my store, to my service at {@code replyTo} ("host:port"). Answered with
     * {@link Ack} once my service stored it, or {@link Fail}, under {@code request} (an id from the
     * sender's stream ids).
     */
    record Fetch(long request, String sourcePath, String targetPath, String replyTo)
            implements ReplicationMessage {}

    /**
     * Either way: the stream failed (stream {@link #CONNECTION} for the whole connection), why, and
     * which member said so.
     */
    record Fail(long stream, String reason) implements ReplicationMessage {
        public static final long CONNECTION = -1;
    }
}
