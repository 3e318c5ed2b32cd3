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

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.rhino.replication.protocol.ReplicationCodec;
import io.rhino.replication.protocol.ReplicationMessage;
import io.rhino.replication.store.ReplicaStore;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The receiving side of one connection: challenges the sender, then for each stream writes the
 * chunks into the store, passes them on down the chain while writing (pipelined), verifies the
 * CRC32C once the last byte is in, and acks upstream only when the file is stored here and acked
 * downstream. Every refusal (bad path, checksum mismatch, full disk, dead downstream member) fails
 * that stream with a reason naming this member and removes its partial file; protocol violations
 * close the connection. Event-loop only.
 */
final class ReceiverHandler extends SimpleChannelInboundHandler<ReplicationMessage> {

    private static final Logger LOG = LoggerFactory.getLogger(ReceiverHandler.class);

    /** Chunks a sender may have in flight per stream: bounds memory per hop. */
    static final int CREDIT_WINDOW = 16;

    private final class Incoming {
        final long id;
        final ReplicationMessage.Open open;
        final ReplicaStore.Incoming file;
        final Forward forward;
        boolean stored;
        boolean acked;

        Incoming(
                long id,
                ReplicationMessage.Open open,
                ReplicaStore.Incoming file,
                Forward forward) {
            this.id = id;
            this.open = open;
            this.file = file;
            this.forward = forward;
        }
    }

    private final ReplicaStore store;
    private final Authentication authentication;
    private final Forwarder forwarder;
    private final Pusher pusher;
    private final String self;
    private final ReplicationStats stats;
    private final Map<Long, Incoming> streams = new HashMap<>();
    private ChannelHandlerContext ctx;
    private byte[] nonce;
    private String peer;

    ReceiverHandler(
            ReplicaStore store,
            Authentication authentication,
            Forwarder forwarder,
            Pusher pusher,
            String self,
            ReplicationStats stats) {
        this.stats = stats;
        this.store = store;
        this.authentication = authentication;
        this.forwarder = forwarder;
        this.pusher = pusher;
        this.self = self;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        this.ctx = ctx;
        nonce = Authentication.nonce();
        ctx.writeAndFlush(new ReplicationMessage.Challenge(nonce));
        super.channelActive(ctx);
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, ReplicationMessage message) {
        if (peer == null && !(message instanceof ReplicationMessage.Hello)) {
            refuseConnection("sent " + type(message) + " before authenticating");
            return;
        }
        if (message instanceof ReplicationMessage.Hello hello) {
            hello(hello);
        } else if (message instanceof ReplicationMessage.Open open) {
            open(open);
        } else if (message instanceof ReplicationMessage.Chunk chunk) {
            chunk(chunk);
        } else if (message instanceof ReplicationMessage.Fetch fetch) {
            fetch(fetch);
        } else if (message instanceof ReplicationMessage.Fail fail) {
            Incoming incoming = streams.remove(fail.stream());
            if (incoming != null) {
                drop(incoming, "the sender gave up: " + fail.reason());
            }
        } else {
            refuseConnection("sent an unexpected " + type(message));
        }
    }

    private void hello(ReplicationMessage.Hello hello) {
        if (peer != null) {
            refuseConnection("authenticated twice");
        } else if (!authentication.accepts(nonce, hello.memberId(), hello.proof())) {
            stats.refused();
            LOG.warn(
                    "Refused replication peer {} ({}): wrong or missing secret",
                    hello.memberId(),
                    ctx.channel().remoteAddress());
            ctx.writeAndFlush(
                            new ReplicationMessage.Fail(
                                    ReplicationMessage.Fail.CONNECTION,
                                    "authentication failed at "
                                            + self
                                            + ": peers must share rhino.replication.secret"))
                    .addListener(ChannelFutureListener.CLOSE);
        } else {
            peer = hello.memberId();
            ctx.writeAndFlush(new ReplicationMessage.Welcome());
        }
    }

    private void open(ReplicationMessage.Open open) {
        long id = open.stream();
        if (streams.containsKey(id)) {
            refuseConnection("reopened stream " + id);
            return;
        }
        ReplicaStore.Incoming file;
        try {
            file = store.create(open.path(), id);
        } catch (IllegalArgumentException | IOException e) {
            stats.refused();
            LOG.warn("Refused replica '{}' from {}: {}", open.path(), peer, e.getMessage());
            ctx.writeAndFlush(
                    new ReplicationMessage.Fail(id, "member " + self + ": " + e.getMessage()));
            return;
        }
        Forward forward =
                open.downstream().isEmpty()
                        ? null
                        : forwarder.forward(
                                open.downstream(),
                                open.path(),
                                open.size(),
                                open.crc(),
                                () -> ctx.writeAndFlush(new ReplicationMessage.Credit(id, 1)));
        Incoming incoming = new Incoming(id, open, file, forward);
        streams.put(id, incoming);
        if (forward != null) {
            forward.result.whenComplete(
                    (ok, failure) -> {
                        if (failure == null) {
                            maybeAck(incoming);
                        } else if (streams.remove(id) != null) {
                            drop(incoming, null);
                            ctx.writeAndFlush(
                                    new ReplicationMessage.Fail(
                                            id,
                                            "member "
                                                    + self
                                                    + " forwarding: "
                                                    + failure.getMessage()));
                        }
                    });
        }
        ctx.writeAndFlush(new ReplicationMessage.Credit(id, CREDIT_WINDOW));
        if (open.size() == 0) {
            finish(incoming);
        }
    }

    /**
     * Sends the stored copy of a file to the fetching member's service, after checking the path,
     * the reply address and the copy's checksum: a damaged replica is refused, never sent.
     */
    private void fetch(ReplicationMessage.Fetch fetch) {
        long id = fetch.request();
        if (streams.containsKey(id)) {
            refuseConnection("reused stream id " + id + " for a fetch");
            return;
        }
        Path file;
        PeerAddress replyTo;
        try {
            replyTo = PeerAddress.parse(fetch.replyTo());
            file =
                    store.file(fetch.sourcePath())
                            .orElseThrow(
                                    () -> new IOException("no replica of " + fetch.sourcePath()));
            if (!store.verify(fetch.sourcePath())) {
                throw new IOException(
                        "the replica of " + fetch.sourcePath() + " is damaged (checksum mismatch)");
            }
        } catch (IllegalArgumentException | IOException e) {
            stats.refused();
            LOG.warn(
                    "Refused to send '{}' to {} ({}): {}",
                    fetch.sourcePath(),
                    fetch.replyTo(),
                    peer,
                    e.getMessage());
            ctx.writeAndFlush(
                    new ReplicationMessage.Fail(id, "member " + self + ": " + e.getMessage()));
            return;
        }
        pusher.push(file, fetch.targetPath(), replyTo)
                .whenComplete(
                        (ok, failure) -> {
                            if (failure == null) {
                                stats.fetchServed();
                            }
                            ctx.writeAndFlush(
                                    failure == null
                                            ? new ReplicationMessage.Ack(id)
                                            : new ReplicationMessage.Fail(
                                                    id,
                                                    "member "
                                                            + self
                                                            + " sending '"
                                                            + fetch.sourcePath()
                                                            + "': "
                                                            + failure.getMessage()));
                        });
    }

    private void chunk(ReplicationMessage.Chunk chunk) {
        Incoming incoming = streams.get(chunk.stream());
        if (incoming == null) {
            chunk.data().release(); // a stream that already failed
            return;
        }
        try {
            if (incoming.file.written() + chunk.data().readableBytes() > incoming.open.size()) {
                throw new IOException("more than the announced " + incoming.open.size() + " bytes");
            }
            incoming.file.write(chunk.data().nioBuffer());
            stats.received(chunk.data().readableBytes());
        } catch (IOException e) {
            chunk.data().release();
            fail(incoming, "writing '" + incoming.open.path() + "' failed: " + store.explain(e));
            return;
        }
        if (incoming.forward != null) {
            incoming.forward.source().offer(chunk.data().retain());
            incoming.forward.pump();
        } else {
            ctx.writeAndFlush(new ReplicationMessage.Credit(incoming.id, 1));
        }
        chunk.data().release();
        if (incoming.file.written() == incoming.open.size()) {
            finish(incoming);
        }
    }

    private void finish(Incoming incoming) {
        try {
            incoming.file.finish(incoming.open.crc());
        } catch (IOException e) {
            fail(incoming, store.explain(e));
            return;
        }
        incoming.stored = true;
        maybeAck(incoming);
    }

    private void maybeAck(Incoming incoming) {
        if (incoming.acked
                || !incoming.stored
                || (incoming.forward != null && !incoming.forward.result.isDone())) {
            return;
        }
        incoming.acked = true;
        streams.remove(incoming.id);
        try {
            incoming.file.commit(incoming.open.crc());
        } catch (IOException e) {
            incoming.file.abort();
            ctx.writeAndFlush(
                    new ReplicationMessage.Fail(
                            incoming.id,
                            "member " + self + ": storing failed: " + store.explain(e)));
            return;
        }
        stats.stored();
        ctx.writeAndFlush(new ReplicationMessage.Ack(incoming.id));
    }

    private void fail(Incoming incoming, String reason) {
        streams.remove(incoming.id);
        stats.refused();
        String message = "member " + self + ": " + reason;
        LOG.warn("Replica stream {} from {} failed: {}", incoming.id, peer, message);
        drop(incoming, message);
        ctx.writeAndFlush(new ReplicationMessage.Fail(incoming.id, message));
    }

    /** Removes the partial file and abandons the stream downstream. */
    private void drop(Incoming incoming, String reason) {
        incoming.file.abort();
        if (incoming.forward != null) {
            incoming.forward.cancel(reason == null ? "upstream failed" : reason);
        }
    }

    private void refuseConnection(String what) {
        stats.refused();
        LOG.warn("Replication peer {} ({}) {}; closing", peer, ctx.channel().remoteAddress(), what);
        ctx.writeAndFlush(
                        new ReplicationMessage.Fail(
                                ReplicationMessage.Fail.CONNECTION, "member " + self + ": " + what))
                .addListener(ChannelFutureListener.CLOSE);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        for (Incoming incoming : streams.values()) {
            drop(incoming, "connection from upstream lost at " + self);
        }
        streams.clear();
        super.channelInactive(ctx);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) throws Exception {
        if (event instanceof SslHandshakeCompletionEvent handshake && !handshake.isSuccess()) {
            stats.refused();
            LOG.warn(
                    "Refused replication peer at {}: TLS handshake failed: {}",
                    ctx.channel().remoteAddress(),
                    handshake.cause().getMessage());
        }
        super.userEventTriggered(ctx, event);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (ReplicationTls.isTlsFailure(cause)) {
            LOG.debug("TLS failure from {}", ctx.channel().remoteAddress(), cause);
        } else if (ReplicationCodec.isProtocolViolation(cause)) {
            LOG.warn(
                    "Replication peer {} ({}) broke the protocol: {}; closing",
                    peer,
                    ctx.channel().remoteAddress(),
                    cause.toString());
        } else {
            LOG.warn("Replication connection from {} failed", ctx.channel().remoteAddress(), cause);
        }
        ctx.close();
    }

    private static String type(ReplicationMessage message) {
        return message.getClass().getSimpleName();
    }
}
