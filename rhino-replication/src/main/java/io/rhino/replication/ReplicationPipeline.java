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

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.timeout.IdleStateHandler;
import io.rhino.replication.protocol.ChunkEncoder;
import io.rhino.replication.protocol.ReplicationCodec;
import io.rhino.replication.store.ReplicaStore;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Assembles a replication channel's pipeline, one concern per handler: TLS, framing (bounded before
 * authentication), the codec, zero-copy chunk framing, idleness, the handshake (which leaves the
 * pipeline once both sides proved they know the secret), then on an accepted connection the streams
 * it receives ({@link StreamReceiver}), the fetches it serves ({@link FetchServer}) and the {@link
 * ConnectionGuard} that refuses the rest, and on a connection to a peer the sender.
 */
final class ReplicationPipeline {

    private ReplicationPipeline() {}

    /** The handlers of an accepted connection once the handshake let the peer in. */
    record Receiving(StreamReceiver streams, FetchServer fetches, ConnectionGuard guard) {

        /** The three over one connection's shared {@link ReceivingConnection}. */
        static Receiving of(
                ReplicaStore store,
                Forwarder forwarder,
                Pusher pusher,
                Supplier<PeerPolicy> policy,
                ReceivingConnection connection) {
            return new Receiving(
                    new StreamReceiver(store, forwarder, policy, connection),
                    new FetchServer(store, pusher, connection),
                    new ConnectionGuard(connection));
        }

        ChannelHandler[] handlers() {
            return new ChannelHandler[] {streams, fetches, guard};
        }
    }

    /** An accepted connection: {@code receiving} works for it once {@code handshake} let it. */
    static void server(
            ChannelPipeline pipeline,
            SslContext tls,
            ReplicationLimits limits,
            ServerHandshake handshake,
            Receiving receiving) {
        if (tls != null) {
            pipeline.addLast(tls.newHandler(pipeline.channel().alloc()));
        }
        framing(pipeline)
                .addLast(
                        new IdleStateHandler(
                                limits.idleTimeout().toMillis(), 0, 0, TimeUnit.MILLISECONDS))
                .addLast(handshake)
                .addLast(receiving.handlers());
    }

    /**
     * A connection to {@code peer}: {@code sender} carries streams once {@code handshake} let it.
     */
    static void client(
            ChannelPipeline pipeline,
            SslContext tls,
            PeerAddress peer,
            ReplicationLimits limits,
            ClientHandshake handshake,
            SenderConnection sender) {
        if (tls != null) {
            pipeline.addLast(tls.newHandler(pipeline.channel().alloc(), peer.host(), peer.port()));
        }
        framing(pipeline)
                .addLast(
                        new IdleStateHandler(
                                0, 0, limits.idleTimeout().toMillis() / 2, TimeUnit.MILLISECONDS))
                .addLast(handshake)
                .addLast(sender);
    }

    private static ChannelPipeline framing(ChannelPipeline pipeline) {
        return pipeline.addLast(
                ReplicationCodec.frameDecoder(), new ReplicationCodec(), new ChunkEncoder());
    }

    /** For tests: the handlers of an accepted connection, without TLS or idleness. */
    static ChannelHandler[] serverHandlers(ServerHandshake handshake, Receiving receiving) {
        return new ChannelHandler[] {
            ReplicationCodec.frameDecoder(),
            new ReplicationCodec(),
            handshake,
            receiving.streams(),
            receiving.fetches(),
            receiving.guard()
        };
    }
}
