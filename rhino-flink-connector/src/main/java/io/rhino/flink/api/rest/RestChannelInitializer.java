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

import io.netty.channel.ChannelInitializer;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerKeepAliveHandler;
import io.netty.handler.timeout.IdleStateHandler;
import io.rhino.flink.config.RhinoRuntimeSettings;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The REST server's pipeline, one handler per concern: bytes first (idle connections closed, each
 * request bounded in time), then HTTP (codec, keep-alive, the connection cap, transfer codings, the
 * aggregator's size limit), then the API.
 */
final class RestChannelInitializer extends ChannelInitializer<SocketChannel> {

    private final RhinoRestApi api;
    private final RhinoRuntimeSettings.Rest settings;
    private final RequestGuard guard;
    private final AtomicInteger openConnections = new AtomicInteger();

    RestChannelInitializer(
            RhinoRestApi api, RhinoRuntimeSettings.Rest settings, RequestGuard guard) {
        this.api = api;
        this.settings = settings;
        this.guard = guard;
    }

    @Override
    protected void initChannel(SocketChannel ch) {
        ch.pipeline()
                .addLast(
                        new IdleStateHandler(
                                0, 0, settings.idleTimeout().toMillis(), TimeUnit.MILLISECONDS))
                .addLast(new IdleCloseHandler())
                .addLast(new RequestDeadlineHandler(settings.requestTimeout()))
                .addLast(new HttpServerCodec())
                .addLast(new HttpServerKeepAliveHandler())
                .addLast(
                        new ConnectionLimitHandler(
                                openConnections,
                                settings.maxConnections(),
                                settings.requestTimeout()))
                .addLast(new TransferEncodingCheck())
                .addLast(new JsonHttpObjectAggregator(RhinoRestServer.MAX_BODY_BYTES))
                .addLast(new RestRequestHandler(api, guard));
    }
}
