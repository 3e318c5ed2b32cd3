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
import io.netty.util.concurrent.ScheduledFuture;
import io.rhino.replication.protocol.ReplicationCodec;
import io.rhino.replication.protocol.ReplicationMessage;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The accepting side's handshake: challenges the sender, checks its proof, proves in turn that it
 * knows the secret, then marks the channel authenticated and leaves the pipeline to the {@link
 * StreamReceiver} and the handlers after it. Anything else before that, a frame the codec refused,
 * or no valid hello within the handshake timeout closes the connection with a logged reason,
 * counted as refused. Until then the codec lets through only handshake frames of a few KiB, so a
 * stranger costs this side one small buffer for at most the handshake timeout.
 */
final class ServerHandshake extends SimpleChannelInboundHandler<ReplicationMessage> {

    private static final Logger LOG = LoggerFactory.getLogger(ServerHandshake.class);

    private final Authentication authentication;
    private final String self;
    private final ReplicationStats stats;
    private final Duration timeout;
    private byte[] nonce;
    private ScheduledFuture<?> deadline;
    private boolean refused;

    ServerHandshake(
            Authentication authentication, String self, ReplicationStats stats, Duration timeout) {
        this.authentication = authentication;
        this.self = self;
        this.stats = stats;
        this.timeout = timeout;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        nonce = Authentication.nonce();
        ctx.writeAndFlush(new ReplicationMessage.Challenge(nonce));
        deadline =
                ctx.executor()
                        .schedule(
                                () -> refuse(ctx, "did not authenticate within " + timeout),
                                timeout.toMillis(),
                                TimeUnit.MILLISECONDS);
        super.channelActive(ctx);
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, ReplicationMessage message) {
        if (!(message instanceof ReplicationMessage.Hello hello)) {
            refuse(ctx, "sent " + message.getClass().getSimpleName() + " before authenticating");
        } else if (hello.nonce().length != Authentication.NONCE_BYTES) {
            refuse(
                    ctx,
                    "sent a nonce of "
                            + hello.nonce().length
                            + " bytes (expected: "
                            + Authentication.NONCE_BYTES
                            + ")");
        } else if (authentication.refusal(hello.scope()).isPresent()) {
            refuse(ctx, authentication.refusal(hello.scope()).get());
        } else if (!authentication.accepts(hello.scope(), nonce, hello.memberId(), hello.proof())) {
            refuse(
                    ctx,
                    "authentication failed at "
                            + self
                            + " for '"
                            + hello.memberId()
                            + "'"
                            + (hello.scope().isEmpty()
                                    ? ": peers must share rhino.replication.secret"
                                    : " in scope '"
                                            + hello.scope()
                                            + "': it does not know that job operator's secret"));
        } else {
            deadline.cancel(false);
            ReplicationCodec.markAuthenticated(ctx.channel());
            ctx.channel().attr(Handshake.SCOPE).set(hello.scope());
            ctx.writeAndFlush(
                    new ReplicationMessage.Welcome(
                            authentication.proveReceiver(
                                    hello.scope(), hello.nonce(), hello.memberId())));
            ctx.pipeline().remove(this);
            ctx.fireUserEventTriggered(
                    new Handshake.Authenticated(hello.memberId(), hello.scope()));
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (ReplicationCodec.isProtocolViolation(cause)) {
            refuse(ctx, "broke the protocol: " + cause.getMessage());
        } else {
            ctx.fireExceptionCaught(cause);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        if (deadline != null) {
            deadline.cancel(false);
        }
        super.channelInactive(ctx);
    }

    private void refuse(ChannelHandlerContext ctx, String what) {
        if (refused) {
            return;
        }
        refused = true;
        if (deadline != null) {
            deadline.cancel(false);
        }
        stats.refused();
        LOG.warn(
                "Refused replication peer at {} before authentication: it {}; closing",
                ctx.channel().remoteAddress(),
                what);
        ctx.writeAndFlush(
                        new ReplicationMessage.Fail(
                                ReplicationMessage.Fail.CONNECTION, "member " + self + ": " + what))
                .addListener(ChannelFutureListener.CLOSE);
    }
}
