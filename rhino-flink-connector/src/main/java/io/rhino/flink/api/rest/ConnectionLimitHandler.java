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

package io.rhino.flink.api.rest;

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.util.ReferenceCountUtil;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Caps the connections open at once. One instance per connection, sharing the server's count. A
 * connection beyond the cap is served nothing: its first request is answered 503 and it is closed,
 * and if none arrives within the request timeout it is closed anyway, so that surplus sockets do
 * not stay open for the idle timeout.
 */
final class ConnectionLimitHandler extends ChannelInboundHandlerAdapter {

    private static final Logger LOG = LoggerFactory.getLogger(ConnectionLimitHandler.class);

    private final AtomicInteger open;
    private final int max;
    private final Duration grace;
    private boolean counted;
    private boolean refused;

    ConnectionLimitHandler(AtomicInteger open, int max, Duration grace) {
        this.open = open;
        this.max = max;
        this.grace = grace;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        counted = true;
        if (open.incrementAndGet() > max) {
            refused = true;
            LOG.debug(
                    "Rhino REST connection from {} beyond rhino.rest.max-connections ({}): its"
                            + " request will be refused",
                    ctx.channel().remoteAddress(),
                    max);
            ctx.executor().schedule(() -> ctx.close(), grace.toNanos(), TimeUnit.NANOSECONDS);
        }
        super.channelActive(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        if (counted) {
            counted = false;
            open.decrementAndGet();
        }
        super.channelInactive(ctx);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        if (!refused) {
            super.channelRead(ctx, msg);
            return;
        }
        boolean request = msg instanceof HttpRequest;
        ReferenceCountUtil.release(msg);
        if (request) {
            ctx.writeAndFlush(
                            RestErrors.closing(
                                    HttpResponseStatus.SERVICE_UNAVAILABLE,
                                    "Too many connections to Rhino's REST API (at most "
                                            + max
                                            + ", rhino.rest.max-connections); close idle ones"
                                            + " and retry"))
                    .addListener(ChannelFutureListener.CLOSE);
        }
    }
}
