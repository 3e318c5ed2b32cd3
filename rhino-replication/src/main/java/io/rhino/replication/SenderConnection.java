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

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.handler.timeout.IdleStateEvent;
import io.rhino.replication.protocol.ReplicationCodec;
import io.rhino.replication.protocol.ReplicationMessage;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sending side of one connection to a peer, once the {@link ClientHandshake} authenticated both
 * sides: carries file streams, each sending only as many chunks as the peer granted credits for,
 * and only while the socket is writable. A stream completes when the peer acks (stored and verified
 * there and downstream) and fails with the reason the peer, or the lost connection, gives.
 * Event-loop only, except {@link #ready}. A connection with nothing in flight for half the idle
 * timeout closes (the next use opens a new one), before the peer would close it as idle. Chunks the
 * peer sends, which it never may, are released like every message read.
 *
 * <p>The peer holds up to a credit window of every stream it passes on down a chain while the next
 * member is slower. So this member keeps at most {@code localStreamLimit} streams of its own files
 * with a downstream open at once, and queues the others: the memory of the members after it stays
 * bounded however many files a checkpoint has. Streams it forwards for others, and streams ending
 * at the peer, which writes them out as they come, are never queued: a forwarded stream waiting on
 * this member's own could close a cycle of members waiting on each other.
 */
final class SenderConnection extends SimpleChannelInboundHandler<ReplicationMessage> {

    private static final Logger LOG = LoggerFactory.getLogger(SenderConnection.class);

    private record Stream(
            long id,
            String path,
            ChunkSource source,
            CompletableFuture<Void> result,
            int[] credits,
            boolean limited) {}

    /** A stream to open: at once, or after waiting in the queue for one of the limited places. */
    private record Request(
            long id,
            String path,
            long size,
            int crc,
            List<String> downstream,
            ChunkSource source,
            CompletableFuture<Void> result) {}

    private final PeerAddress peer;
    private final CompletableFuture<SenderConnection> ready = new CompletableFuture<>();
    private final int localStreamLimit;
    private final Map<Long, Stream> streams = new HashMap<>();
    private final Map<Long, Request> queued = new LinkedHashMap<>();
    private int limitedOpen;
    // fetch requests waiting for the peer's answer, by request id (shared with stream ids)
    private final Map<Long, CompletableFuture<Void>> fetches = new HashMap<>();
    private Channel channel;
    private long nextStream = 1;

    SenderConnection(PeerAddress peer, int localStreamLimit) {
        if (localStreamLimit < 1) {
            throw new IllegalArgumentException(
                    "localStreamLimit must be at least 1, got " + localStreamLimit);
        }
        this.peer = peer;
        this.localStreamLimit = localStreamLimit;
    }

    /** Completes once the peer accepted this side. */
    CompletableFuture<SenderConnection> ready() {
        return ready;
    }

    Channel channel() {
        return channel;
    }

    /**
     * Opens a stream; {@code result} completes when the rest of the chain stored the file. A stream
     * of one of this member's own files ({@code ownFile}) with a downstream waits in a queue while
     * {@code localStreamLimit} others are open; one this member passes on never waits.
     *
     * @return the stream's id, also while it waits
     */
    long open(
            String path,
            long size,
            int crc,
            List<String> downstream,
            ChunkSource source,
            CompletableFuture<Void> result,
            boolean ownFile) {
        long id = nextStream++;
        Request stream = new Request(id, path, size, crc, downstream, source, result);
        if (!ownFile || downstream.isEmpty()) {
            start(stream, false);
        } else if (limitedOpen < localStreamLimit) {
            start(stream, true);
        } else {
            queued.put(id, stream);
        }
        return id;
    }

    private void start(Request stream, boolean limited) {
        if (!channel.isActive()) {
            stream.source().close();
            stream.result().completeExceptionally(lost());
            return;
        }
        if (limited) {
            limitedOpen++;
        }
        streams.put(
                stream.id(),
                new Stream(
                        stream.id(),
                        stream.path(),
                        stream.source(),
                        stream.result(),
                        new int[1],
                        limited));
        channel.writeAndFlush(
                new ReplicationMessage.Open(
                        stream.id(),
                        stream.path(),
                        stream.size(),
                        stream.crc(),
                        stream.downstream()));
    }

    /** A stream left: a limited one makes room for the next queued one. */
    private void ended(Stream stream) {
        if (!stream.limited()) {
            return;
        }
        limitedOpen--;
        while (limitedOpen < localStreamLimit && !queued.isEmpty()) {
            Request next = queued.remove(queued.keySet().iterator().next());
            if (next.result().isDone()) {
                // cancelled by its caller; the abandon that follows finds nothing left to do
                next.source().close();
                continue;
            }
            start(next, true);
        }
    }

    /**
     * Asks the peer to send its copy of {@code sourcePath} to {@code replyTo}'s store as {@code
     * targetPath}; {@code result} completes once it is stored there.
     *
     * @return the request's id
     */
    long fetch(
            String sourcePath, String targetPath, String replyTo, CompletableFuture<Void> result) {
        long id = nextStream++;
        if (!channel.isActive()) {
            result.completeExceptionally(lost());
            return id;
        }
        fetches.put(id, result);
        channel.writeAndFlush(new ReplicationMessage.Fetch(id, sourcePath, targetPath, replyTo));
        return id;
    }

    /** Gives up waiting for a fetch (timeout); the peer's late answer is ignored. */
    void forgetFetch(long id) {
        fetches.remove(id);
    }

    /** Sends what the stream's credit and the socket allow. */
    void pump(long id) {
        Stream stream = streams.get(id);
        if (stream == null) {
            return;
        }
        boolean wrote = false;
        try {
            while (stream.credits()[0] > 0 && stream.source().hasNext() && channel.isWritable()) {
                stream.credits()[0]--;
                channel.write(stream.source().next(id, channel.alloc()));
                wrote = true;
            }
        } catch (Exception e) {
            cancel(id, "reading the file for " + peer + " failed: " + e);
        }
        if (wrote) {
            channel.flush();
        }
    }

    /** Abandons a stream (timeout, local error): tells the peer so it drops its partial file. */
    void cancel(long id, String reason) {
        Request waiting = queued.remove(id);
        if (waiting != null) {
            waiting.source().close();
            waiting.result().completeExceptionally(new ReplicationException(reason));
            return;
        }
        Stream stream = streams.remove(id);
        if (stream != null) {
            stream.source().close();
            stream.result().completeExceptionally(new ReplicationException(reason));
            if (channel.isActive()) {
                channel.writeAndFlush(new ReplicationMessage.Fail(id, reason));
            }
            ended(stream);
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        channel = ctx.channel();
        super.channelActive(ctx);
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, ReplicationMessage message) {
        if (message instanceof ReplicationMessage.Credit credit) {
            Stream stream = streams.get(credit.stream());
            if (stream != null) {
                stream.credits()[0] += credit.chunks();
                pump(credit.stream());
            }
        } else if (message instanceof ReplicationMessage.Ack ack) {
            Stream stream = streams.remove(ack.stream());
            if (stream != null) {
                stream.source().close();
                stream.result().complete(null);
                ended(stream);
            }
            CompletableFuture<Void> fetch = fetches.remove(ack.stream());
            if (fetch != null) {
                fetch.complete(null);
            }
        } else if (message instanceof ReplicationMessage.Fail fail) {
            failed(ctx, fail);
        } else {
            LOG.warn("Unexpected {} from replication peer {}; closing", message, peer);
            ctx.close();
        }
    }

    private void failed(ChannelHandlerContext ctx, ReplicationMessage.Fail fail) {
        if (fail.stream() == ReplicationMessage.Fail.CONNECTION) {
            ReplicationException refused =
                    new ReplicationException("peer " + peer + " refused: " + fail.reason());
            ready.completeExceptionally(refused);
            failAll(refused);
            ctx.close();
            return;
        }
        Stream stream = streams.remove(fail.stream());
        if (stream != null) {
            stream.source().close();
            stream.result()
                    .completeExceptionally(
                            new ReplicationException("peer " + peer + ": " + fail.reason()));
            ended(stream);
        }
        CompletableFuture<Void> fetch = fetches.remove(fail.stream());
        if (fetch != null) {
            fetch.completeExceptionally(
                    new ReplicationException("peer " + peer + ": " + fail.reason()));
        }
    }

    /**
     * The handshake's outcome; a failed TLS handshake fails the connection with its cause, not as a
     * lost connection.
     */
    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) throws Exception {
        if (event instanceof Handshake.Authenticated) {
            ready.complete(this);
            return;
        }
        if (event instanceof Handshake.Failed failed) {
            ready.completeExceptionally(failed.cause());
            failAll(failed.cause());
            return;
        }
        if (event instanceof IdleStateEvent) {
            // a handshake in progress has its own timeout
            if (ready.isDone() && streams.isEmpty() && queued.isEmpty() && fetches.isEmpty()) {
                LOG.debug("Closing the idle replication connection to {}", peer);
                ctx.close();
            }
            return;
        }
        if (event instanceof SslHandshakeCompletionEvent handshake && !handshake.isSuccess()) {
            ReplicationException refused =
                    new ReplicationException(
                            "TLS handshake with peer "
                                    + peer
                                    + " failed: "
                                    + handshake.cause().getMessage()
                                    + " (every TaskManager needs TLS on, and a certificate the"
                                    + " others' trust stores accept)");
            ready.completeExceptionally(refused);
            failAll(refused);
        }
        super.userEventTriggered(ctx, event);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
        if (ctx.channel().isWritable()) {
            for (long id : new ArrayList<>(streams.keySet())) {
                pump(id);
            }
        }
        super.channelWritabilityChanged(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        ReplicationException lost = lost();
        ready.completeExceptionally(lost);
        failAll(lost);
        super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (ReplicationTls.isTlsFailure(cause)) {
            LOG.debug("TLS failure with {}", peer, cause);
        } else if (ReplicationCodec.isProtocolViolation(cause)) {
            LOG.warn("Replication peer {} broke the protocol: {}; closing", peer, cause.toString());
        } else {
            LOG.warn("Replication connection to {} failed", peer, cause);
        }
        ctx.close();
    }

    private ReplicationException lost() {
        return new ReplicationException("connection to peer " + peer + " lost");
    }

    private void failAll(ReplicationException cause) {
        for (Request waiting : queued.values()) {
            waiting.source().close();
            waiting.result().completeExceptionally(cause);
        }
        queued.clear();
        for (Stream stream : streams.values()) {
            stream.source().close();
            stream.result().completeExceptionally(cause);
        }
        streams.clear();
        limitedOpen = 0;
        fetches.values().forEach(fetch -> fetch.completeExceptionally(cause));
        fetches.clear();
    }
}
