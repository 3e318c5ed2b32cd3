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
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.util.ReferenceCountUtil;
import java.util.concurrent.TimeUnit;

/**
 * Netty's aggregator, whose own refusals (413 for a body over the limit, 417 for an expectation
 * other than {@code 100-continue}) have empty bodies: these carry the API's {@code {"errors":
 * [...]}} instead, and close the connection.
 */
final class JsonHttpObjectAggregator extends HttpObjectAggregator {

    /** How long the rest of an oversized body is read and dropped before the connection closes. */
    static final long CLOSE_GRACE_MILLIS = 2_000;

    private final int maxContentLength;

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
    protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
        // The client may be sending the rest of the body already: no request can follow it.
        // Closing at once, with that body unread, resets the connection, and the client may lose
        // the answer; so the output is shut (the client reads the answer, then the end), the rest
        // of the body is read and dropped (the aggregator discards it), and the connection closes
        // when the client closes it or after a grace period.
        ctx.writeAndFlush(
                        RestErrors.closing(HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE, tooLarge()))
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

    private String tooLarge() {
        return "The body is larger than "
                + maxContentLength
                + " bytes; a request body is at most "
                + maxContentLength / 1024
                + " KiB";
    }
}
