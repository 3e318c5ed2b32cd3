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

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.DefaultEventExecutor;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.ScheduledFuture;
import io.rhino.replication.protocol.ReplicationCodec;
import io.rhino.replication.store.ReplicaStore;
import io.rhino.replication.store.StoreLock;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One peer of the replication network (one per TaskManager): a Netty server that receives files
 * into its {@link ReplicaStore} and passes them on along their chain, and a client that starts
 * chains from local files. One event-loop thread runs every connection of the service, so stream
 * state needs no locks; the public methods hop onto it.
 *
 * <p>A chain {@code [r1, r2, ...]} replicates a file from this member (the primary, which holds the
 * original) to r1, which stores and forwards it to r2 while it receives, and so on; the last member
 * acks once stored and verified, and every member acks upstream only after its own copy is stored
 * and its downstream acked. So a completed {@link #replicate} means every member holds a verified
 * copy. Memory per stream and hop is bounded by the credit window ({@value
 * StreamReceiver#CREDIT_WINDOW} chunks of {@value ReplicationCodec#CHUNK_BYTES} bytes) whatever the
 * file size, and a member sends at most {@link ReplicationConfig#streamsPerPeer} of its own files
 * at once to each peer that passes them on, however many it is asked to replicate: a member holds
 * at most that many windows per member whose files it passes on.
 */
public final class ReplicationService implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ReplicationService.class);

    private final ReplicationConfig config;
    private final StoreLock storeLock;
    private final ReplicaStore store;
    private final ReplicationStats stats = new ReplicationStats();
    private final Authentication authentication;
    private final SslContext serverTls;
    private final SslContext clientTls;
    private final EventLoopGroup group;
    private final EventLoop loop;
    // reads whole files (checksums of adopted replicas) off the event loop; its thread starts with
    // the first such task
    private final DefaultEventExecutor diskWork =
            new DefaultEventExecutor(new DefaultThreadFactory("rhino-replica-adoption", true));
    private final Channel server;
    private final PeerAddress address;

    /** A connection to a peer authenticated in one scope: a scope's streams go only on its own. */
    private record ConnectionKey(PeerAddress peer, String scope) {}

    private final Map<ConnectionKey, CompletableFuture<SenderConnection>> connections =
            new HashMap<>();
    // accepted connections open now; the service's one event loop alone changes it
    private final java.util.Set<Channel> accepted = new java.util.HashSet<>();
    private volatile PeerPolicy peerPolicy = PeerPolicy.ANY;

    private ReplicationService(ReplicationConfig config) throws IOException {
        this.config = config;
        this.storeLock = StoreLock.acquire(config.storeDirectory());
        this.store = new ReplicaStore(config.storeDirectory());
        this.authentication = new Authentication(config.secret(), config.scopesOnly());
        try {
            this.serverTls = config.tls() == null ? null : config.tls().serverContext();
            this.clientTls = config.tls() == null ? null : config.tls().clientContext();
        } catch (SSLException e) {
            storeLock.close();
            throw new IOException("Replication service cannot set up TLS: " + e.getMessage(), e);
        }
        this.group = new NioEventLoopGroup(1, new DefaultThreadFactory("rhino-replication", true));
        this.loop = group.next();
        Channel bound = null;
        IOException lastFailure = null;
        for (int port = config.firstPort(); port <= config.lastPort() && bound == null; port++) {
            try {
                bound = bindServer(port);
            } catch (Exception e) {
                lastFailure = new IOException("port " + port + ": " + e.getMessage(), e);
            }
        }
        if (bound == null) {
            group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS).awaitUninterruptibly();
            storeLock.close();
            throw new IOException(
                    "Replication service cannot listen on "
                            + config.bindHost()
                            + " ports "
                            + config.firstPort()
                            + "-"
                            + config.lastPort(),
                    lastFailure);
        }
        this.server = bound;
        this.address =
                new PeerAddress(
                        config.bindHost(), ((InetSocketAddress) bound.localAddress()).getPort());
        if (!authentication.required() && serverTls == null) {
            LOG.warn(
                    "Replication service {} accepts peers without a secret or TLS; set"
                            + " rhino.replication.secret or enable TLS",
                    address);
        }
        LOG.info(
                "Replication service listening on {}{}, store {}",
                address,
                serverTls == null ? "" : " (mutual TLS)",
                store.root());
    }

    /** Starts a service: opens its store (removing partial files) and binds its port. */
    public static ReplicationService start(ReplicationConfig config) throws IOException {
        return new ReplicationService(config);
    }

    public PeerAddress address() {
        return address;
    }

    public ReplicationStats stats() {
        return stats;
    }

    public ReplicaStore store() {
        return store;
    }

    /**
     * From now on, peers that prove {@code secret} in {@code scope} (a path prefix such as a job
     * operator's, without a trailing slash) may store, pass on and fetch files under it, and this
     * service's own files under it go out on connections authenticated in it. Registering a scope
     * again replaces its secret.
     */
    public void registerScope(String scope, String secret) {
        if (scope == null || scope.isEmpty() || scope.endsWith("/")) {
            throw new IllegalArgumentException(
                    "scope '" + scope + "' (expected: a path prefix without a trailing slash)");
        }
        store.resolve(scope); // the same rules as every stored path's
        authentication.register(scope, secret);
    }

    /**
     * Peers of {@code scope} are refused from now on, and this service's connections in it close.
     */
    public void forgetScope(String scope) {
        authentication.forget(scope);
        loop.execute(
                () -> {
                    List.copyOf(accepted).stream()
                            .filter(channel -> scope.equals(channel.attr(Handshake.SCOPE).get()))
                            .forEach(Channel::close);
                    connections.entrySet().removeIf(entry -> closeIfIn(scope, entry));
                });
    }

    private static boolean closeIfIn(
            String scope, Map.Entry<ConnectionKey, CompletableFuture<SenderConnection>> entry) {
        if (!entry.getKey().scope().equals(scope)) {
            return false;
        }
        entry.getValue().thenAccept(connection -> connection.channel().close());
        return true;
    }

    /** From now on, the members named downstream in a peer's OPEN must pass {@code policy}. */
    public void setPeerPolicy(PeerPolicy policy) {
        this.peerPolicy = java.util.Objects.requireNonNull(policy, "policy");
    }

    /**
     * Replicates a local file along {@code chain} (the other members, nearest first).
     *
     * @return completes when every member stored and verified it; fails naming the member that
     *     could not, or after the configured timeout
     */
    public CompletableFuture<Void> replicate(
            Path file, String relativePath, List<PeerAddress> chain) {
        CompletableFuture<Void> result = new CompletableFuture<>();
        if (chain.isEmpty()) {
            result.complete(null);
            return result;
        }
        int crc;
        FileChunkSource source;
        try {
            store.resolve(relativePath); // the same rules as every receiver's
            crc = ReplicaStore.crc32c(file);
            // TLS encrypts in the JVM: no sendfile then
            source = new FileChunkSource(file, clientTls == null);
        } catch (IOException | IllegalArgumentException e) {
            result.completeExceptionally(e);
            return result;
        }
        List<String> downstream = new ArrayList<>();
        chain.subList(1, chain.size()).forEach(member -> downstream.add(member.toString()));
        startOn(
                chain.get(0),
                authentication.scopeOf(relativePath),
                result,
                connection ->
                        connection.open(
                                relativePath, source.size(), crc, downstream, source, result, true),
                source::close,
                SenderConnection::cancel,
                "replicating '" + relativePath + "' to " + chain);
        return result;
    }

    /**
     * Fetches {@code holder}'s stored copy of {@code sourcePath} into this service's store as
     * {@code targetPath}: the holder verifies its copy and sends it here like a replica, checked on
     * arrival.
     *
     * @return completes once the file is stored here; fails with the holder's reason, or after the
     *     configured timeout
     */
    public CompletableFuture<Void> fetch(PeerAddress holder, String sourcePath, String targetPath) {
        CompletableFuture<Void> result = new CompletableFuture<>();
        String scope = authentication.scopeOf(sourcePath);
        try {
            store.resolve(targetPath);
            if (!Authentication.inScope(scope, targetPath)) {
                throw new IllegalArgumentException(
                        "'"
                                + targetPath
                                + "' is outside the scope '"
                                + scope
                                + "' of the fetched '"
                                + sourcePath
                                + "'");
            }
        } catch (IllegalArgumentException e) {
            result.completeExceptionally(e);
            return result;
        }
        startOn(
                holder,
                scope,
                result,
                connection -> connection.fetch(sourcePath, targetPath, address.toString(), result),
                () -> {},
                (connection, id, reason) -> connection.forgetFetch(id),
                "fetching '" + sourcePath + "' from " + holder);
        return result;
    }

    /** Drops a stream or request {@link #startOn} started, telling the peer where it can. */
    @FunctionalInterface
    private interface Abandon {
        void abandon(SenderConnection connection, long id, String reason);
    }

    /**
     * Once the connection to {@code peer} is ready, starts a stream or request on it ({@code start}
     * returns its id), unless {@code result} already ended ({@code cleanUp} then releases what was
     * prepared); fails {@code result} if the peer is unreachable ({@code cleanUp} first) or after
     * the configured timeout, and {@code abandon} drops what was started once {@code result} timed
     * out or its caller cancelled it. Runs on the service's own loop: the JDK's orTimeout starts a
     * JVM-wide thread that would keep the class loader of the job that first called it.
     */
    private void startOn(
            PeerAddress peer,
            String scope,
            CompletableFuture<Void> result,
            ToLongFunction<SenderConnection> start,
            Runnable cleanUp,
            Abandon abandon,
            String what) {
        long[] id = {-1};
        SenderConnection[] via = {null};
        loop.execute(
                () ->
                        connection(peer, scope)
                                .whenComplete(
                                        (connection, failure) -> {
                                            if (failure != null) {
                                                cleanUp.run();
                                                result.completeExceptionally(failure);
                                            } else if (result.isDone()) {
                                                cleanUp.run();
                                            } else {
                                                via[0] = connection;
                                                id[0] = start.applyAsLong(connection);
                                            }
                                        }));
        String timedOut = what + " timed out after " + config.timeout();
        ScheduledFuture<?> timeout =
                loop.schedule(
                        () -> {
                            if (result.completeExceptionally(new ReplicationException(timedOut))
                                    && via[0] != null) {
                                abandon.abandon(
                                        via[0], id[0], "timed out after " + config.timeout());
                            }
                        },
                        config.timeout().toMillis(),
                        TimeUnit.MILLISECONDS);
        result.whenComplete(
                (ok, failure) -> {
                    timeout.cancel(false);
                    if (failure instanceof CancellationException) {
                        loop.execute(
                                () -> {
                                    if (via[0] != null) {
                                        abandon.abandon(via[0], id[0], "cancelled");
                                    }
                                });
                    }
                });
    }

    /**
     * Replicates several files along one chain; fails if any fails. Cancelling the returned future
     * abandons every file not yet stored: the members drop their partial copies, and files still
     * waiting for their turn never leave.
     */
    public CompletableFuture<Void> replicateAll(Map<String, Path> files, List<PeerAddress> chain) {
        List<CompletableFuture<Void>> all = new ArrayList<>();
        files.forEach((relativePath, file) -> all.add(replicate(file, relativePath, chain)));
        CompletableFuture<Void> round = new CompletableFuture<>();
        CompletableFuture.allOf(all.toArray(CompletableFuture[]::new))
                .whenComplete(
                        (ok, failure) -> {
                            if (failure == null) {
                                round.complete(null);
                            } else {
                                round.completeExceptionally(failure);
                            }
                        });
        round.whenComplete(
                (ok, failure) -> {
                    if (failure instanceof CancellationException) {
                        all.forEach(file -> file.cancel(false));
                    }
                });
        return round;
    }

    /**
     * Makes files of this machine replicas in this service's store, by hard links, as if peers had
     * sent them ({@link ReplicaStore#link}): linked now, then checksummed and made visible one
     * after the other on a thread of the service. A file on another filesystem than the store, or
     * already stored, is skipped; one that fails is logged and left out.
     *
     * @param files the local file to adopt, by store path
     * @return completes with the store paths now stored
     */
    public CompletableFuture<List<String>> adopt(Map<String, Path> files) {
        Map<String, ReplicaStore.Adoption> linked = new java.util.LinkedHashMap<>();
        List<String> stored = new ArrayList<>();
        for (Map.Entry<String, Path> file : files.entrySet()) {
            try {
                store.link(file.getKey(), file.getValue())
                        .ifPresentOrElse(
                                adoption -> linked.put(file.getKey(), adoption),
                                () -> {
                                    if (store.file(file.getKey()).isPresent()) {
                                        stored.add(file.getKey());
                                    }
                                });
            } catch (IOException | RuntimeException e) {
                LOG.warn(
                        "Could not link {} into the store as {}: {}",
                        file.getValue(),
                        file.getKey(),
                        e.toString());
            }
        }
        CompletableFuture<List<String>> done = new CompletableFuture<>();
        if (linked.isEmpty()) {
            done.complete(stored);
            return done;
        }
        try {
            diskWork.execute(
                    () -> {
                        linked.forEach(
                                (path, adoption) -> {
                                    try {
                                        adoption.commit();
                                        stored.add(path);
                                    } catch (IOException e) {
                                        LOG.warn(
                                                "Could not adopt {} into the store: {}",
                                                path,
                                                e.toString());
                                    }
                                });
                        done.complete(stored);
                    });
        } catch (java.util.concurrent.RejectedExecutionException stopping) {
            linked.values().forEach(ReplicaStore.Adoption::abort);
            done.complete(stored);
        }
        return done;
    }

    /**
     * Runs {@code task} on the service's own thread after {@code delay}: a thread of the service,
     * not one that would keep the class loader of the task scheduling it.
     */
    public io.netty.util.concurrent.ScheduledFuture<?> schedule(
            Runnable task, java.time.Duration delay) {
        return loop.schedule(task, delay.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        closeAsync().awaitUninterruptibly();
        releaseStore();
    }

    /** Stops the service without waiting, so that its own thread may call it. */
    public io.netty.util.concurrent.Future<?> closeAsync() {
        server.close();
        LOG.info("Replication service {} stopping", address);
        // an adoption in progress completes first: the store goes after both stopped
        io.netty.util.concurrent.Future<?> adoptions =
                diskWork.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
        io.netty.util.concurrent.Promise<Void> stopped =
                io.netty.util.concurrent.ImmediateEventExecutor.INSTANCE.newPromise();
        group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS)
                .addListener(
                        loopDone ->
                                adoptions.addListener(
                                        adoptionsDone -> {
                                            releaseStore();
                                            stopped.setSuccess(null);
                                        }));
        return stopped;
    }

    /**
     * Releases the store's lock; a store that holds no replica any more goes with it, so a service
     * that stopped after its last job's replicas were deleted leaves nothing on the disk.
     */
    private void releaseStore() {
        try {
            storeLock.closeRemovingEmpty(store.root());
        } catch (IOException e) {
            LOG.warn("Could not release the lock of store {}: {}", store.root(), e.toString());
        }
    }

    // ------------------------------------------------------------------ event loop only

    private final Forwarder forwarder =
            (downstream, path, size, crc, creditUpstream) -> {
                Forward forward = new Forward(new ForwardChunkSource(creditUpstream));
                PeerAddress next;
                try {
                    next = PeerAddress.parse(downstream.get(0));
                } catch (IllegalArgumentException e) {
                    forward.result.completeExceptionally(e);
                    return forward;
                }
                List<String> rest = downstream.subList(1, downstream.size());
                connection(next, scopeOf(path))
                        .whenComplete(
                                (connection, failure) -> {
                                    if (failure != null) {
                                        forward.source().close();
                                        forward.result.completeExceptionally(failure);
                                    } else if (!forward.cancelled()) {
                                        forward.opened(
                                                connection,
                                                connection.open(
                                                        path,
                                                        size,
                                                        crc,
                                                        List.copyOf(rest),
                                                        forward.source(),
                                                        forward.result,
                                                        false));
                                    }
                                });
                return forward;
            };

    /** The scope a received file is passed on in: the one it was received in. */
    private String scopeOf(String path) {
        return authentication.scopeOf(path);
    }

    private CompletableFuture<SenderConnection> connection(PeerAddress peer, String scope) {
        ConnectionKey key = new ConnectionKey(peer, scope);
        CompletableFuture<SenderConnection> existing = connections.get(key);
        if (existing != null
                && !(existing.isDone()
                        && (existing.isCompletedExceptionally()
                                || !existing.join().channel().isActive()))) {
            return existing;
        }
        SenderConnection handler = new SenderConnection(peer, config.streamsPerPeer());
        connections.put(key, handler.ready());
        new Bootstrap()
                .group(loop)
                .channel(NioSocketChannel.class)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 10_000)
                .option(ChannelOption.ALLOCATOR, ReplicationMemory.ALLOCATOR)
                .option(
                        ChannelOption.WRITE_BUFFER_WATER_MARK,
                        new WriteBufferWaterMark(256 * 1024, 1024 * 1024))
                .handler(
                        new ChannelInitializer<SocketChannel>() {
                            @Override
                            protected void initChannel(SocketChannel channel) {
                                ReplicationPipeline.client(
                                        channel.pipeline(),
                                        clientTls,
                                        peer,
                                        config.limits(),
                                        new ClientHandshake(
                                                peer,
                                                address.toString(),
                                                scope,
                                                authentication,
                                                config.limits().handshakeTimeout()),
                                        handler);
                            }
                        })
                .connect(peer.host(), peer.port())
                .addListener(
                        connected -> {
                            if (!connected.isSuccess()) {
                                handler.ready()
                                        .completeExceptionally(
                                                new ReplicationException(
                                                        "cannot reach peer "
                                                                + peer
                                                                + ": "
                                                                + connected.cause().getMessage()));
                            }
                        });
        return handler.ready();
    }

    private Channel bindServer(int port) throws InterruptedException {
        return new ServerBootstrap()
                .group(loop)
                .channel(NioServerSocketChannel.class)
                .childOption(ChannelOption.ALLOCATOR, ReplicationMemory.ALLOCATOR)
                .childOption(
                        ChannelOption.WRITE_BUFFER_WATER_MARK,
                        new WriteBufferWaterMark(256 * 1024, 1024 * 1024))
                .childHandler(
                        new ChannelInitializer<SocketChannel>() {
                            @Override
                            protected void initChannel(SocketChannel channel) {
                                if (!admit(channel)) {
                                    return;
                                }
                                String self = currentAddress();
                                ReplicationPipeline.server(
                                        channel.pipeline(),
                                        serverTls,
                                        config.limits(),
                                        new ServerHandshake(
                                                authentication,
                                                self,
                                                stats,
                                                config.limits().handshakeTimeout()),
                                        ReplicationPipeline.Receiving.of(
                                                store,
                                                forwarder,
                                                (file, target, to) ->
                                                        replicate(file, target, List.of(to)),
                                                () -> peerPolicy,
                                                new ReceivingConnection(
                                                        self,
                                                        stats,
                                                        config.limits(),
                                                        authentication)));
                            }
                        })
                .bind(config.bindHost(), port)
                .sync()
                .channel();
    }

    /**
     * Counts an accepted connection against {@link ReplicationLimits#maxConnections}, or closes it
     * at once (logged and counted as refused) if the service has as many as it may.
     */
    private boolean admit(SocketChannel channel) {
        if (accepted.size() >= config.limits().maxConnections()) {
            stats.refused();
            LOG.warn(
                    "Refused replication connection from {}: already {} open, the most"
                            + " allowed; closing",
                    channel.remoteAddress(),
                    accepted.size());
            channel.close();
            return false;
        }
        accepted.add(channel);
        channel.closeFuture().addListener(closed -> accepted.remove(channel));
        return true;
    }

    private String currentAddress() {
        return address == null ? config.bindHost() : address.toString();
    }
}
