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
import io.netty.handler.timeout.IdleStateEvent;
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
 * The receiving side of one connection, once the {@link ServerHandshake} authenticated the sender:
 * for each stream writes the chunks into the store, passes them on down the chain while writing
 * (pipelined), verifies the CRC32C once the last byte is in, and acks upstream only when the file
 * is stored here and acked downstream. Every refusal (bad path, checksum mismatch, full disk, dead
 * downstream member, a downstream member the {@link PeerPolicy} does not know, a fetch answered to
 * another address than the fetching member's, a file above the size limit, too many streams) fails
 * that stream with a reason naming this member and removes its partial file; protocol violations (a
 * chunk beyond the credit granted, a reused stream id) and a connection that sends nothing for the
 * idle timeout close the connection. Each is logged and counted as refused. Chunks are released
 * when read ({@link SimpleChannelInboundHandler}); one passed on down the chain is retained for it.
 * Event-loop only.
 */
final class ReceiverHandler extends SimpleChannelInboundHandler<ReplicationMessage> {

    private static final Logger LOG = LoggerFactory.getLogger(ReceiverHandler.class);

    /** Chunks a sender may have in flight per stream: bounds memory per hop. */
    static final int CREDIT_WINDOW = 16;

    private final class Incoming {
        final long id;
        final ReplicationMessage.Open open;
        final ReplicaStore.Incoming file;
        Forward forward;
        // chunks the sender may still send: what this side granted minus what arrived
        int credit = CREDIT_WINDOW;
        boolean stored;
        boolean acked;

        Incoming(long id, ReplicationMessage.Open open, ReplicaStore.Incoming file) {
            this.id = id;
            this.open = open;
            this.file = file;
        }

        /** Grants the sender one more chunk. */
        void grant() {
            credit++;
            ctx.writeAndFlush(new ReplicationMessage.Credit(id, 1));
        }
    }

    private final ReplicaStore store;
    private final Forwarder forwarder;
    private final Pusher pusher;
    private final String self;
    private final ReplicationStats stats;
    private final ReplicationLimits limits;
    private final java.util.function.Supplier<PeerPolicy> policy;
    private final Authentication authentication;
    private final Map<Long, Incoming> streams = new HashMap<>();
    private int fetchesInFlight;
    private ChannelHandlerContext ctx;
    private String peer;
    private String scope;

    ReceiverHandler(
            ReplicaStore store,
            Forwarder forwarder,
            Pusher pusher,
            String self,
            ReplicationStats stats,
            ReplicationLimits limits,
            java.util.function.Supplier<PeerPolicy> policy,
            Authentication authentication) {
        this.stats = stats;
        this.policy = policy;
        this.authentication = authentication;
        this.store = store;
        this.forwarder = forwarder;
        this.pusher = pusher;
        this.self = self;
        this.limits = limits;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, ReplicationMessage message) {
        if (peer == null) {
            // the handshake handler lets nothing else through: a pipeline without one
            refuseConnection("sent " + type(message) + " before authenticating");
            return;
        }
        if (message instanceof ReplicationMessage.Open open) {
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

    private void open(ReplicationMessage.Open open) {
        long id = open.stream();
        if (streams.containsKey(id)) {
            refuseConnection("reopened stream " + id);
            return;
        }
        ReplicaStore.Incoming file;
        try {
            checkRoomForOneMore();
            if (open.size() > limits.maxFileBytes()) {
                throw new IOException(
                        "a file of "
                                + open.size()
                                + " bytes is above the limit of "
                                + limits.maxFileBytes());
            }
            checkInScope(open.path());
            checkDownstream(open);
            file = store.create(open.path(), id);
        } catch (IllegalArgumentException | IOException e) {
            refuseStream(id, "replica '" + open.path() + "'", e.getMessage());
            return;
        }
        Incoming incoming = new Incoming(id, open, file);
        Forward forward =
                open.downstream().isEmpty()
                        ? null
                        : forwarder.forward(
                                open.downstream(),
                                open.path(),
                                open.size(),
                                open.crc(),
                                incoming::grant);
        incoming.forward = forward;
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
            checkRoomForOneMore();
            checkInScope(fetch.sourcePath());
            checkInScope(fetch.targetPath());
            replyTo = PeerAddress.parse(fetch.replyTo());
            if (!replyTo.toString().equals(peer)) {
                // else any peer could have this member send a replica to an address it names
                throw new IOException(
                        "a fetch is answered to the member asking only, "
                                + peer
                                + ", not to "
                                + replyTo);
            }
            file =
                    store.file(fetch.sourcePath())
                            .orElseThrow(
                                    () -> new IOException("no replica of " + fetch.sourcePath()));
            if (!store.verify(fetch.sourcePath())) {
                throw new IOException(
                        "the replica of " + fetch.sourcePath() + " is damaged (checksum mismatch)");
            }
        } catch (IllegalArgumentException | IOException e) {
            refuseStream(
                    id,
                    "to send '" + fetch.sourcePath() + "' to " + fetch.replyTo(),
                    e.getMessage());
            return;
        }
        fetchesInFlight++;
        pusher.push(file, fetch.targetPath(), replyTo)
                .whenComplete(
                        (ok, failure) -> {
                            fetchesInFlight--;
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

    /**
     * Refuses a path outside the scope this connection authenticated in, and any path once that
     * scope is no longer served here.
     */
    private void checkInScope(String path) throws IOException {
        java.util.Optional<String> gone = authentication.refusal(scope);
        if (gone.isPresent()) {
            throw new IOException("this peer " + gone.get());
        }
        if (!Authentication.inScope(scope, path)) {
            throw new IOException(
                    "the path is outside the scope '"
                            + scope
                            + "' this peer authenticated in: a job operator's peers touch only"
                            + " its own replicas");
        }
    }

    /** Refuses a chain whose next members the policy does not know for this file. */
    private void checkDownstream(ReplicationMessage.Open open) throws IOException {
        for (String member : open.downstream()) {
            PeerAddress hop = PeerAddress.parse(member);
            if (!policy.get().mayForward(open.path(), hop)) {
                throw new IOException(
                        "the chain names "
                                + hop
                                + ", which is no replication member of this file's job here");
            }
        }
    }

    /** Refuses one more stream or fetch on a connection that has as many as it may. */
    private void checkRoomForOneMore() throws IOException {
        if (streams.size() + fetchesInFlight >= limits.maxStreamsPerConnection()) {
            throw new IOException(
                    "already "
                            + (streams.size() + fetchesInFlight)
                            + " streams and fetches open on this connection, the most allowed");
        }
    }

    private void refuseStream(long id, String what, String reason) {
        stats.refused();
        LOG.warn("Refused {} from {}: {}", what, peer, reason);
        ctx.writeAndFlush(new ReplicationMessage.Fail(id, "member " + self + ": " + reason));
    }

    /** Writes a chunk; the handler releases it afterwards, the forward retains what it keeps. */
    private void chunk(ReplicationMessage.Chunk chunk) {
        Incoming incoming = streams.get(chunk.stream());
        if (incoming == null) {
            return; // a stream that already failed
        }
        if (--incoming.credit < 0) {
            refuseConnection(
                    "sent more chunks of stream "
                            + incoming.id
                            + " than the "
                            + CREDIT_WINDOW
                            + " credited");
            return;
        }
        try {
            if (incoming.file.written() + chunk.data().readableBytes() > incoming.open.size()) {
                throw new IOException("more than the announced " + incoming.open.size() + " bytes");
            }
            incoming.file.write(chunk.data().nioBuffer());
            stats.received(chunk.data().readableBytes());
        } catch (IOException e) {
            fail(incoming, "writing '" + incoming.open.path() + "' failed: " + store.explain(e));
            return;
        }
        if (incoming.forward != null) {
            incoming.forward.source().offer(chunk.data().retain());
            incoming.forward.pump();
        } else {
            incoming.grant();
        }
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
        boolean committed = false;
        String refusal = null;
        try {
            incoming.file.commit(incoming.open.crc());
            committed = true;
        } catch (IOException e) {
            refusal = store.explain(e);
        } catch (RuntimeException e) {
            refusal = "the store refused: " + e;
            LOG.warn("Storing '{}' failed", incoming.open.path(), e);
        } finally {
            if (!committed) {
                incoming.file.abort(); // whatever failed, even an Error, no partial file stays
            }
        }
        if (refusal != null) {
            stats.refused();
            LOG.warn("Storing '{}' from {} failed: {}", incoming.open.path(), peer, refusal);
            ctx.writeAndFlush(
                    new ReplicationMessage.Fail(
                            incoming.id, "member " + self + ": storing failed: " + refusal));
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
        if (event instanceof Handshake.Authenticated authenticated) {
            peer = authenticated.peer();
            scope = authenticated.scope();
            return;
        }
        if (event instanceof IdleStateEvent) {
            stats.refused();
            LOG.warn(
                    "Replication peer {} ({}) sent nothing for {} with {} streams open; closing",
                    peer,
                    ctx.channel().remoteAddress(),
                    limits.idleTimeout(),
                    streams.size());
            ctx.close();
            return;
        }
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
        if (!ctx.channel().isActive()) {
            // the rest of a refused connection's input, decoded as it closes: said already
            LOG.debug("After closing the connection from {}: {}", peer, cause.toString());
            return;
        }
        if (ReplicationTls.isTlsFailure(cause)) {
            LOG.debug("TLS failure from {}", ctx.channel().remoteAddress(), cause);
        } else if (ReplicationCodec.isProtocolViolation(cause)) {
            stats.refused();
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
