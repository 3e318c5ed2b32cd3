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
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.ReferenceCountUtil;
import io.rhino.replication.protocol.ReplicationCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last handler of an accepted connection: records who the handshake let in, closes a connection
 * that sent nothing for the idle timeout, refuses a message no handler before it took, and says why
 * a connection failed (a TLS handshake, a protocol violation, anything else), closing it. Each
 * refusal is logged and counted. Event loop only.
 */
final class ConnectionGuard extends ChannelInboundHandlerAdapter {

    private static final Logger LOG = LoggerFactory.getLogger(ConnectionGuard.class);

    private final ReceivingConnection connection;

    ConnectionGuard(ReceivingConnection connection) {
        this.connection = connection;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object message) {
        try {
            connection.refuseConnection(
                    ctx,
                    "sent "
                            + (connection.isAuthenticated() ? "an unexpected " : "")
                            + message.getClass().getSimpleName()
                            + (connection.isAuthenticated() ? "" : " before authenticating"));
        } finally {
            ReferenceCountUtil.release(message);
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) throws Exception {
        if (event instanceof Handshake.Authenticated authenticated) {
            connection.authenticated(authenticated.peer(), authenticated.scope());
            return;
        }
        if (event instanceof IdleStateEvent) {
            connection.stats().refused();
            LOG.warn(
                    "Replication peer {} ({}) sent nothing for {} with {} streams open; closing",
                    connection.peer(),
                    ctx.channel().remoteAddress(),
                    connection.limits().idleTimeout(),
                    connection.openStreams());
            ctx.close();
            return;
        }
        if (event instanceof SslHandshakeCompletionEvent handshake && !handshake.isSuccess()) {
            connection.stats().refused();
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
            LOG.debug(
                    "After closing the connection from {}: {}",
                    connection.peer(),
                    cause.toString());
            return;
        }
        if (ReplicationTls.isTlsFailure(cause)) {
            LOG.debug("TLS failure from {}", ctx.channel().remoteAddress(), cause);
        } else if (ReplicationCodec.isProtocolViolation(cause)) {
            connection.stats().refused();
            LOG.warn(
                    "Replication peer {} ({}) broke the protocol: {}; closing",
                    connection.peer(),
                    ctx.channel().remoteAddress(),
                    cause.toString());
        } else {
            LOG.warn("Replication connection from {} failed", ctx.channel().remoteAddress(), cause);
        }
        ctx.close();
    }
}
