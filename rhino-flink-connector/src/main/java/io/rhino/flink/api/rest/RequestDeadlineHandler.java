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

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Bounds how long a request may take to arrive: the first byte of a request starts a deadline, the
 * answer to it ends it. A client that sends its request byte by byte (slowloris), or announces more
 * than it sends, is answered 408 and closed when the deadline passes. Sits before the HTTP codec,
 * so it sees bytes, not messages: a partial request line or header counts too.
 *
 * <p>The idle timeout alone cannot do this: every byte resets it.
 */
final class RequestDeadlineHandler extends ChannelDuplexHandler {

    private static final Logger LOG = LoggerFactory.getLogger(RequestDeadlineHandler.class);

    private final Duration timeout;

    /** Armed from a request's first byte until something is answered; null in between. */
    private ScheduledFuture<?> deadline;

    RequestDeadlineHandler(Duration timeout) {
        this.timeout = timeout;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        if (deadline == null) {
            deadline =
                    ctx.executor()
                            .schedule(() -> expire(ctx), timeout.toNanos(), TimeUnit.NANOSECONDS);
        }
        super.channelRead(ctx, msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise)
            throws Exception {
        // an answer (or 100 Continue) means the request, or its head, was read whole
        disarm();
        super.write(ctx, msg, promise);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        disarm();
        super.channelInactive(ctx);
    }

    private void expire(ChannelHandlerContext ctx) {
        deadline = null;
        if (!ctx.channel().isActive()) {
            return;
        }
        String reason =
                "The request did not arrive whole within "
                        + timeout.toMillis()
                        + " ms of its first byte (rhino.rest.request-timeout)";
        LOG.debug(
                "Rhino REST connection from {} closed: {}", ctx.channel().remoteAddress(), reason);
        // written from the pipeline's tail, so that the HTTP codec encodes it
        ctx.channel()
                .writeAndFlush(RestErrors.closing(HttpResponseStatus.REQUEST_TIMEOUT, reason))
                .addListener(ChannelFutureListener.CLOSE);
    }

    private void disarm() {
        if (deadline != null) {
            deadline.cancel(false);
            deadline = null;
        }
    }
}
