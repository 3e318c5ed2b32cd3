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

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.rhino.flink.config.RhinoOptions;
import io.rhino.flink.config.RhinoRuntimeSettings;
import io.rhino.flink.reconfiguration.RhinoDirectory;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rhino's REST server: one per JobManager process (per class loader that holds Rhino's classes),
 * started by the first Rhino operator's coordinator and stopped with the last ({@link #acquire}).
 * Netty's HTTP codec, one event-loop thread, bodies up to {@link #MAX_BODY_BYTES} (larger ones are
 * answered 413 by the aggregator). The address, port, timeouts and connection cap are those of the
 * job that started it; tokens and {@code rhino.rest.enabled} are each job's own ({@link
 * RestAccess}).
 */
public final class RhinoRestServer {

    private static final Logger LOG = LoggerFactory.getLogger(RhinoRestServer.class);

    /** Request bodies larger than this are refused with 413. */
    public static final int MAX_BODY_BYTES = 64 * 1024;

    /** How often a port another socket holds is tried again while Rhino jobs run. */
    static final long REBIND_EVERY_MILLIS = 2_000;

    private static RhinoRestServer running;
    private static int users;
    // tries a taken port again until it binds or no job uses the server any more
    private static Thread rebinding;

    private final EventLoopGroup group;
    private final Channel channel;
    private final RhinoRuntimeSettings.Rest settings;

    private RhinoRestServer(
            EventLoopGroup group, Channel channel, RhinoRuntimeSettings.Rest settings) {
        this.group = group;
        this.channel = channel;
        this.settings = settings;
    }

    /** Released by the operator that acquired it; the last release stops the server. */
    public interface Lease extends AutoCloseable {
        @Override
        void close();
    }

    /**
     * Starts the server if none runs, and leases it. A server that cannot start is logged as an
     * error and the job runs on, with the Java API. A port another socket holds (a JobManager
     * restarted on the same host while the old process's port lingers, or a connection that took it
     * as its local port) is tried again every {@link #REBIND_EVERY_MILLIS} ms while a lease is
     * held; an address that is not local is not.
     */
    public static synchronized Lease acquire(
            RhinoRuntimeSettings.Rest settings, RhinoDirectory directory, double maxImbalance) {
        if (running == null && users == 0 && rebinding == null) {
            Started started = startOnNettyThread(settings, directory, maxImbalance, false);
            running = started.server();
            if (running == null && started.portTaken()) {
                rebindLater(settings, directory, maxImbalance);
            }
        } else if (running != null && !running.servesAsAsked(settings)) {
            LOG.warn(
                    "A Rhino job asks for a REST server with {}, but this JobManager's server"
                            + " already runs with {} (the first job's): the job is served there,"
                            + " with its own token",
                    settings,
                    running.settings);
        }
        users++;
        boolean[] released = {false};
        return () -> {
            synchronized (RhinoRestServer.class) {
                if (released[0]) {
                    return;
                }
                released[0] = true;
                release();
            }
        };
    }

    /** One user fewer; the last one stops the server (or ends the tries to bind it). */
    private static synchronized void release() {
        if (--users == 0 && running != null) {
            NettyOwnThread.run("rhino-rest-stop", running::stop);
            running = null;
        }
        RhinoRestServer.class.notifyAll();
    }

    /**
     * Tries the taken port again on a thread of its own until the server starts or no lease is held
     * any more; the thread ends then, and so outlives no job.
     */
    private static void rebindLater(
            RhinoRuntimeSettings.Rest settings, RhinoDirectory directory, double maxImbalance) {
        Thread thread =
                new Thread(
                        () -> {
                            synchronized (RhinoRestServer.class) {
                                try {
                                    while (users > 0 && running == null) {
                                        RhinoRestServer.class.wait(REBIND_EVERY_MILLIS);
                                        if (users > 0 && running == null) {
                                            running =
                                                    startOnNettyThread(
                                                                    settings,
                                                                    directory,
                                                                    maxImbalance,
                                                                    true)
                                                            .server();
                                        }
                                    }
                                } catch (InterruptedException e) {
                                    Thread.currentThread().interrupt();
                                } finally {
                                    rebinding = null;
                                }
                            }
                        },
                        "rhino-rest-rebind");
        thread.setDaemon(true);
        rebinding = thread;
        thread.start();
    }

    /**
     * Keeps the running server up until {@code done} completes, as a lease would, even if every
     * operator that leased it closes meanwhile.
     */
    public static synchronized void keepRunningUntil(CompletableFuture<?> done) {
        if (running == null || done.isDone()) {
            return;
        }
        users++;
        done.whenComplete((result, error) -> release());
    }

    /** The address the running server listens on, if one runs. */
    public static synchronized Optional<InetSocketAddress> address() {
        return Optional.ofNullable(running)
                .map(server -> (InetSocketAddress) server.channel.localAddress());
    }

    /** Whether the server's address and connection settings are those {@code asked} names. */
    private boolean servesAsAsked(RhinoRuntimeSettings.Rest asked) {
        InetSocketAddress bound = (InetSocketAddress) channel.localAddress();
        return asked.bindAddress().equals(settings.bindAddress())
                && (asked.port() == 0 || asked.port() == bound.getPort())
                && asked.idleTimeout().equals(settings.idleTimeout())
                && asked.requestTimeout().equals(settings.requestTimeout())
                && asked.maxConnections() == settings.maxConnections();
    }

    /**
     * A start's outcome: the server, or none and whether another socket held the port.
     *
     * @param server null if it did not start
     */
    private record Started(RhinoRestServer server, boolean portTaken) {}

    private static Started startOnNettyThread(
            RhinoRuntimeSettings.Rest settings,
            RhinoDirectory directory,
            double maxImbalance,
            boolean retry) {
        return NettyOwnThread.call(
                "rhino-rest-start", () -> start(settings, directory, maxImbalance, retry));
    }

    /**
     * Binds the server; a failure is logged as an error, or at debug level when {@code retry} (the
     * first failure said it is being retried).
     */
    private static Started start(
            RhinoRuntimeSettings.Rest settings,
            RhinoDirectory directory,
            double maxImbalance,
            boolean retry) {
        RhinoRestApi api = new RhinoRestApi(directory, maxImbalance);
        EventLoopGroup group =
                new NioEventLoopGroup(1, new DefaultThreadFactory("rhino-rest", true));
        try {
            InetAddress address = InetAddress.getByName(settings.bindAddress());
            Channel channel =
                    new ServerBootstrap()
                            .group(group)
                            .channel(NioServerSocketChannel.class)
                            .childHandler(
                                    new RestChannelInitializer(
                                            api, settings, new RequestGuard(address)))
                            .bind(address, settings.port())
                            .sync()
                            .channel();
            InetSocketAddress bound = (InetSocketAddress) channel.localAddress();
            LOG.info(
                    "Rhino REST API listening on http://{}:{}/rhino/v1 (the first job {})",
                    bound.getHostString(),
                    bound.getPort(),
                    settings.token().isPresent() ? "requires a bearer token" : "has no token");
            if (settings.token().isEmpty() && !address.isLoopbackAddress()) {
                LOG.warn(
                        "Rhino REST API binds {} without '{}': anyone who reaches it can move"
                                + " state. Set a token or bind a loopback address.",
                        settings.bindAddress(),
                        RhinoOptions.REST_AUTH_TOKEN.key());
            }
            return new Started(new RhinoRestServer(group, channel, settings), false);
        } catch (Exception e) {
            boolean portTaken = isPortTaken(e);
            if (retry) {
                LOG.debug(
                        "Rhino REST API still cannot listen on {}:{}: {}",
                        settings.bindAddress(),
                        settings.port(),
                        e.toString());
            } else {
                LOG.error(
                        "Rhino REST API could not listen on {}:{} ({}); the job runs on without"
                                + " it{}. Set '{}' to a free port (0 picks one) or '{}: false'.",
                        settings.bindAddress(),
                        settings.port(),
                        e.toString(),
                        portTaken
                                ? ", and the port is tried again every "
                                        + REBIND_EVERY_MILLIS
                                        + " ms while a Rhino job runs here"
                                : "",
                        RhinoOptions.REST_PORT.key(),
                        RhinoOptions.REST_ENABLED.key());
            }
            group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS).awaitUninterruptibly();
            return new Started(null, portTaken);
        }
    }

    /** Whether binding failed because another socket holds the address and port. */
    private static boolean isPortTaken(Throwable e) {
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof BindException
                    && cause.getMessage() != null
                    && cause.getMessage().contains("in use")) {
                return true;
            }
        }
        return false;
    }

    private void stop() {
        channel.close().awaitUninterruptibly();
        // waits for the event loop's thread to end: none may outlive a job on a session cluster
        group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS).awaitUninterruptibly();
        LOG.info("Rhino REST API stopped");
    }
}
