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

import com.fasterxml.jackson.core.JsonProcessingException;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.rhino.flink.reconfiguration.ReconfigurationRequestException;
import io.rhino.handover.operation.ReconfigurationConflictException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers one aggregated request: malformed HTTP is a 400 that closes the connection (what follows
 * it cannot be framed), then the {@link RequestGuard}'s checks, the bearer token, and the API.
 * Every answer is JSON; errors are {@code {"errors": ["..."]}}.
 */
final class RestRequestHandler extends SimpleChannelInboundHandler<FullHttpRequest> {

    private static final Logger LOG = LoggerFactory.getLogger(RestRequestHandler.class);
    private static final int RETRY_AFTER_SECONDS = 5;

    private final RhinoRestApi api;
    private final RequestGuard guard;

    RestRequestHandler(RhinoRestApi api, RequestGuard guard) {
        this.api = api;
        this.guard = guard;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        if (!request.decoderResult().isSuccess()) {
            Throwable cause = request.decoderResult().cause();
            write(
                    ctx,
                    request,
                    error(
                            HttpResponseStatus.BAD_REQUEST,
                            "Malformed HTTP request: "
                                    + (cause == null ? "unreadable" : cause.getMessage())
                                    + "; the connection is closed"),
                    true);
            return;
        }
        write(ctx, request, answer(request), !HttpUtil.isKeepAlive(request));
    }

    private RestResponse answer(FullHttpRequest request) {
        try {
            guard.check(request);
            Optional<String> token =
                    BearerToken.of(request.headers().get(HttpHeaderNames.AUTHORIZATION));
            return api.handle(
                    request.method(),
                    request.uri(),
                    request.content().toString(StandardCharsets.UTF_8),
                    token);
        } catch (RestException e) {
            return error(e.status(), e.getMessage());
        } catch (ReconfigurationConflictException e) {
            return error(HttpResponseStatus.CONFLICT, e.getMessage());
        } catch (ReconfigurationRequestException e) {
            return switch (e.reason()) {
                case NOT_FOUND -> error(HttpResponseStatus.NOT_FOUND, e.getMessage());
                case INVALID -> error(HttpResponseStatus.BAD_REQUEST, e.getMessage());
                case CONFLICT -> error(HttpResponseStatus.CONFLICT, e.getMessage());
                case GONE -> error(HttpResponseStatus.GONE, e.getMessage());
                case UNAVAILABLE ->
                        new RestResponse(
                                HttpResponseStatus.SERVICE_UNAVAILABLE,
                                RhinoRestApi.errors(e.getMessage()),
                                null,
                                RETRY_AFTER_SECONDS);
            };
        } catch (RuntimeException e) {
            LOG.error("Rhino REST request {} {} failed", request.method(), request.uri(), e);
            return error(
                    HttpResponseStatus.INTERNAL_SERVER_ERROR,
                    "Internal error: " + e + " (logged on the JobManager)");
        }
    }

    private static RestResponse error(HttpResponseStatus status, String message) {
        return RestResponse.of(status, RhinoRestApi.errors(message));
    }

    private static void write(
            ChannelHandlerContext ctx,
            FullHttpRequest request,
            RestResponse response,
            boolean close) {
        byte[] json;
        try {
            json =
                    JsonBody.MAPPER
                            .writerWithDefaultPrettyPrinter()
                            .writeValueAsBytes(response.body());
        } catch (JsonProcessingException e) {
            json =
                    "{\"errors\": [\"cannot render the response\"]}"
                            .getBytes(StandardCharsets.UTF_8);
        }
        FullHttpResponse http =
                new DefaultFullHttpResponse(
                        request.protocolVersion(), response.status(), Unpooled.wrappedBuffer(json));
        http.headers()
                .set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON)
                .setInt(HttpHeaderNames.CONTENT_LENGTH, json.length);
        if (response.allow() != null) {
            http.headers().set(HttpHeaderNames.ALLOW, response.allow());
        }
        if (response.retryAfter() != null) {
            http.headers().setInt(HttpHeaderNames.RETRY_AFTER, response.retryAfter());
        }
        if (response.status().equals(HttpResponseStatus.UNAUTHORIZED)) {
            http.headers().set(HttpHeaderNames.WWW_AUTHENTICATE, "Bearer realm=\"rhino\"");
        }
        if (close) {
            http.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            ctx.writeAndFlush(http).addListener(ChannelFutureListener.CLOSE);
        } else {
            http.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
            ctx.writeAndFlush(http);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.debug("Rhino REST connection from {} failed", ctx.channel().remoteAddress(), cause);
        ctx.close();
    }
}
