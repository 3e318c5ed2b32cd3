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
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Refuses a request whose {@code Transfer-Encoding} is anything but {@code chunked}. Netty's
 * decoder reads {@code Transfer-Encoding: gzip} as a request without a body, so the body's bytes
 * would be read as the next request (and the request itself, bodiless, would mean "all defaults");
 * RFC 9112 (6.3) says to answer 400 and close. No coding but chunked is supported, so any other is
 * refused the same way.
 */
final class TransferEncodingCheck extends ChannelInboundHandlerAdapter {

    /**
     * Set once a request was refused: what follows on the connection is dropped until it closes.
     */
    private boolean refused;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        if (refused) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (msg instanceof HttpRequest request) {
            List<String> codings = codings(request);
            if (!codings.isEmpty() && !codings.equals(List.of("chunked"))) {
                refused = true;
                ReferenceCountUtil.release(msg);
                ctx.writeAndFlush(
                                RestErrors.closing(
                                        HttpResponseStatus.BAD_REQUEST,
                                        "Transfer-Encoding "
                                                + codings
                                                + " is not supported: send the body with"
                                                + " Content-Length or 'Transfer-Encoding:"
                                                + " chunked'; the connection is closed"))
                        .addListener(ChannelFutureListener.CLOSE);
                return;
            }
        }
        super.channelRead(ctx, msg);
    }

    private static List<String> codings(HttpRequest request) {
        List<String> codings = new ArrayList<>();
        for (String header : request.headers().getAll(HttpHeaderNames.TRANSFER_ENCODING)) {
            for (String coding : header.split(",")) {
                String name = coding.strip().toLowerCase(Locale.ROOT);
                if (!name.isEmpty()) {
                    codings.add(name.length() > 40 ? name.substring(0, 40) + "..." : name);
                }
            }
        }
        return codings;
    }
}
