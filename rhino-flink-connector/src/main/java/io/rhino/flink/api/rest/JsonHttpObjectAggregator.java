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
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Netty's aggregator, whose own refusals (413 for a body over the limit, 417 for an expectation
 * other than {@code 100-continue}) have empty bodies: these carry the API's {@code {"errors":
 * [...]}} instead, and close the connection.
 *
 * <p>A body over the limit is read to its end and dropped before the 413 is sent. Many clients (the
 * JDK's {@code HttpClient} among them) read the answer only once they have sent the whole body; an
 * answer sent while they are still sending, followed by the end of the connection, can be lost to
 * them. How long the drain may take is bounded by {@code rhino.rest.request-timeout} (the request's
 * deadline stays armed until the answer is written), how much by {@link #DRAIN_LIMIT_FACTOR}: a
 * body announced larger than that is refused at once.
 */
final class JsonHttpObjectAggregator extends HttpObjectAggregator {

    /** A body announced larger than this many times the limit is refused before it is read. */
    static final int DRAIN_LIMIT_FACTOR = 16;

    /** How long the rest of a body refused at once is read and dropped before the close. */
    static final long CLOSE_GRACE_MILLIS = 2_000;

    private final int maxContentLength;

    /** The 413 waiting for the end of the body it refuses; null when none is. */
    private FullHttpResponse refusalAfterBody;

    JsonHttpObjectAggregator(int maxContentLength) {
        super(maxContentLength, true);
        this.maxContentLength = maxContentLength;
    }

    @Override
    protected Object newContinueResponse(
            HttpMessage start, int maxContentLength, ChannelPipeline pipeline) {
        String expectation = start.headers().get(HttpHeaderNames.EXPECT);
        Object response = super.newContinueResponse(start, maxContentLength, pipeline);
        if (!(response instanceof HttpResponse refusal)
                || refusal.status().codeClass() != HttpStatusClass.CLIENT_ERROR) {
            return response; // 100 Continue, or no expectation
        }
        ReferenceCountUtil.release(response);
        if (refusal.status().equals(HttpResponseStatus.EXPECTATION_FAILED)) {
            return RestErrors.closing(
                    HttpResponseStatus.EXPECTATION_FAILED,
                    "Expect: '"
                            + expectation
                            + "' is not supported; send 'Expect: 100-continue' or no Expect"
                            + " header");
        }
        return RestErrors.closing(HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE, tooLarge());
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, HttpObject msg, List<Object> out)
            throws Exception {
        super.decode(ctx, msg, out);
        // the oversized body has been dropped to its end (or the message that made it oversized
        // was its end): the client is now reading, and nothing may follow on this connection
        if (refusalAfterBody != null && msg instanceof LastHttpContent) {
            FullHttpResponse refusal = refusalAfterBody;
            refusalAfterBody = null;
            ctx.writeAndFlush(refusal).addListener(ChannelFutureListener.CLOSE);
        }
    }

    @Override
    protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
        FullHttpResponse refusal =
                RestErrors.closing(HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE, tooLarge());
        if (HttpUtil.getContentLength(oversized, -1L)
                <= (long) maxContentLength * DRAIN_LIMIT_FACTOR) {
            ReferenceCountUtil.release(refusalAfterBody);
            refusalAfterBody = refusal;
            return;
        }
        // Too much to drain. Closing at once, with the body unread, resets the connection and the
        // client may lose the answer; so the output is shut (a client reading while it sends sees
        // the answer, then the end), the rest is read and dropped, and the connection closes when
        // the client closes it or after a grace period.
        ctx.writeAndFlush(refusal)
                .addListener(
                        (ChannelFutureListener)
                                written -> {
                                    if (!(written.channel() instanceof SocketChannel socket)
                                            || !written.isSuccess()) {
                                        written.channel().close();
                                        return;
                                    }
                                    socket.shutdownOutput();
                                    socket.eventLoop()
                                            .schedule(
                                                    () -> socket.close(),
                                                    CLOSE_GRACE_MILLIS,
                                                    TimeUnit.MILLISECONDS);
                                });
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        ReferenceCountUtil.release(refusalAfterBody);
        refusalAfterBody = null;
        super.channelInactive(ctx);
    }

    private String tooLarge() {
        return "The body is larger than "
                + maxContentLength
                + " bytes; a request body is at most "
                + maxContentLength / 1024
                + " KiB";
    }
}
