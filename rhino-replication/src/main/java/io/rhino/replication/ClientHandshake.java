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
import io.netty.util.concurrent.ScheduledFuture;
import io.rhino.replication.protocol.ReplicationCodec;
import io.rhino.replication.protocol.ReplicationMessage;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The connecting side's handshake: answers the peer's challenge with its proof and a nonce of its
 * own, and accepts the peer only once its welcome proves that it knows the secret too, so a process
 * that merely listens on a member's address learns nothing and is sent nothing. Then it marks the
 * channel authenticated and leaves the pipeline to the {@link SenderConnection}. A peer that does
 * not complete the handshake within the timeout fails the connection, which is then never reused.
 */
final class ClientHandshake extends SimpleChannelInboundHandler<ReplicationMessage> {

    private static final Logger LOG = LoggerFactory.getLogger(ClientHandshake.class);

    private final PeerAddress peer;
    private final String memberId;
    private final String scope;
    private final Authentication authentication;
    private final Duration timeout;
    private byte[] nonce;
    private ScheduledFuture<?> deadline;

    ClientHandshake(
            PeerAddress peer,
            String memberId,
            String scope,
            Authentication authentication,
            Duration timeout) {
        this.peer = peer;
        this.memberId = memberId;
        this.scope = scope;
        this.authentication = authentication;
        this.timeout = timeout;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        deadline =
                ctx.executor()
                        .schedule(
                                () ->
                                        fail(
                                                ctx,
                                                "peer "
                                                        + peer
                                                        + " did not complete the handshake within "
                                                        + timeout),
                                timeout.toMillis(),
                                TimeUnit.MILLISECONDS);
        super.channelActive(ctx);
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, ReplicationMessage message) {
        if (message instanceof ReplicationMessage.Challenge challenge && nonce == null) {
            if (challenge.nonce().length != Authentication.NONCE_BYTES) {
                fail(
                        ctx,
                        "peer "
                                + peer
                                + " sent a challenge of "
                                + challenge.nonce().length
                                + " bytes (expected: "
                                + Authentication.NONCE_BYTES
                                + ")");
                return;
            }
            nonce = Authentication.nonce();
            ctx.writeAndFlush(
                    new ReplicationMessage.Hello(
                            memberId,
                            scope,
                            authentication.prove(scope, challenge.nonce(), memberId),
                            nonce));
        } else if (message instanceof ReplicationMessage.Welcome welcome && nonce != null) {
            if (!authentication.acceptsReceiver(scope, nonce, memberId, welcome.proof())) {
                fail(
                        ctx,
                        "peer "
                                + peer
                                + (scope.isEmpty()
                                        ? " could not prove it knows rhino.replication.secret: it"
                                                + " is no member of this job, or its secret"
                                                + " differs"
                                        : " could not prove it knows the secret of scope '"
                                                + scope
                                                + "': it runs no task of that job operator"));
                return;
            }
            deadline.cancel(false);
            ReplicationCodec.markAuthenticated(ctx.channel());
            ctx.pipeline().remove(this);
            ctx.fireUserEventTriggered(new Handshake.Authenticated(peer.toString(), scope));
        } else if (message instanceof ReplicationMessage.Fail) {
            ctx.fireChannelRead(message); // the peer's refusal, for the sender to report
        } else {
            fail(
                    ctx,
                    "peer "
                            + peer
                            + " sent "
                            + message.getClass().getSimpleName()
                            + " before the handshake completed");
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        if (deadline != null) {
            deadline.cancel(false);
        }
        super.channelInactive(ctx);
    }

    private void fail(ChannelHandlerContext ctx, String reason) {
        deadline.cancel(false);
        LOG.warn("Replication handshake failed: {}; closing", reason);
        ctx.fireUserEventTriggered(new Handshake.Failed(new ReplicationException(reason)));
        ctx.close();
    }
}
