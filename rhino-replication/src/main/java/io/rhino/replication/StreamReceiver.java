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

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.rhino.replication.protocol.ReplicationMessage;
import io.rhino.replication.store.ReplicaStore;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The replica streams of one accepted connection (OPEN, CHUNK and the sender's FAIL), once the
 * {@link ServerHandshake} authenticated the sender: for each stream writes the chunks into the
 * store, passes them on down the chain while writing (pipelined), verifies the CRC32C once the last
 * byte is in, and acks upstream only when the file is stored here and acked downstream. Every
 * refusal (a path outside the peer's scope, checksum mismatch, full disk, dead downstream member, a
 * downstream member the {@link PeerPolicy} does not know, a file above the size limit, too many
 * streams) fails that stream with a reason naming this member and removes its partial file;
 * protocol violations (a chunk beyond the credit granted, a reused stream id) close the connection.
 * Each is logged and counted as refused. Chunks are released when read ({@link
 * SimpleChannelInboundHandler}); one passed on down the chain is retained for it. Other messages
 * pass on. Event loop only.
 */
final class StreamReceiver extends SimpleChannelInboundHandler<ReplicationMessage> {

    private static final Logger LOG = LoggerFactory.getLogger(StreamReceiver.class);

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
    private final Supplier<PeerPolicy> policy;
    private final ReceivingConnection connection;
    private final Map<Long, Incoming> streams = new HashMap<>();
    private ChannelHandlerContext ctx;

    StreamReceiver(
            ReplicaStore store,
            Forwarder forwarder,
            Supplier<PeerPolicy> policy,
            ReceivingConnection connection) {
        this.store = store;
        this.forwarder = forwarder;
        this.policy = policy;
        this.connection = connection;
        connection.trackStreams(streams::size, streams::containsKey);
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public boolean acceptInboundMessage(Object message) {
        return message instanceof ReplicationMessage.Open
                || message instanceof ReplicationMessage.Chunk
                || message instanceof ReplicationMessage.Fail;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, ReplicationMessage message) {
        if (!connection.isAuthenticated()) {
            // the handshake handler lets nothing else through: a pipeline without one
            connection.refuseConnection(
                    ctx, "sent " + message.getClass().getSimpleName() + " before authenticating");
            return;
        }
        if (message instanceof ReplicationMessage.Open open) {
            open(open);
        } else if (message instanceof ReplicationMessage.Chunk chunk) {
            chunk(chunk);
        } else if (message instanceof ReplicationMessage.Fail fail) {
            Incoming incoming = streams.remove(fail.stream());
            if (incoming != null) {
                drop(incoming, "the sender gave up: " + fail.reason());
            }
        }
    }

    private void open(ReplicationMessage.Open open) {
        long id = open.stream();
        if (streams.containsKey(id)) {
            connection.refuseConnection(ctx, "reopened stream " + id);
            return;
        }
        ReplicaStore.Incoming file;
        try {
            connection.checkRoomForOneMore();
            if (open.size() > connection.limits().maxFileBytes()) {
                throw new IOException(
                        "a file of "
                                + open.size()
                                + " bytes is above the limit of "
                                + connection.limits().maxFileBytes());
            }
            connection.checkInScope(open.path());
            checkDownstream(open);
            file = store.create(open.path(), id);
        } catch (IllegalArgumentException | IOException e) {
            connection.refuseStream(ctx, id, "replica '" + open.path() + "'", e.getMessage());
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
                                                    + connection.self()
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

    /** Writes a chunk; the handler releases it afterwards, the forward retains what it keeps. */
    private void chunk(ReplicationMessage.Chunk chunk) {
        Incoming incoming = streams.get(chunk.stream());
        if (incoming == null) {
            return; // a stream that already failed
        }
        if (--incoming.credit < 0) {
            connection.refuseConnection(
                    ctx,
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
            connection.stats().received(chunk.data().readableBytes());
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
            connection.stats().refused();
            LOG.warn(
                    "Storing '{}' from {} failed: {}",
                    incoming.open.path(),
                    connection.peer(),
                    refusal);
            ctx.writeAndFlush(
                    new ReplicationMessage.Fail(
                            incoming.id,
                            "member " + connection.self() + ": storing failed: " + refusal));
            return;
        }
        connection.stats().stored();
        ctx.writeAndFlush(new ReplicationMessage.Ack(incoming.id));
    }

    private void fail(Incoming incoming, String reason) {
        streams.remove(incoming.id);
        connection.stats().refused();
        String message = "member " + connection.self() + ": " + reason;
        LOG.warn("Replica stream {} from {} failed: {}", incoming.id, connection.peer(), message);
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

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        for (Incoming incoming : streams.values()) {
            drop(incoming, "connection from upstream lost at " + connection.self());
        }
        streams.clear();
        super.channelInactive(ctx);
    }
}
