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

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.rhino.replication.protocol.ReplicationMessage;
import java.io.IOException;
import java.util.Optional;
import java.util.function.IntSupplier;
import java.util.function.LongPredicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the handlers of one accepted connection share once the {@link ServerHandshake} let the peer
 * in: who it is and the scope it authenticated in, the budget of streams and fetches it may have
 * open at once, and how a refusal is said (logged, counted, sent back). Event loop only.
 */
final class ReceivingConnection {

    private static final Logger LOG = LoggerFactory.getLogger(ReceivingConnection.class);

    private final String self;
    private final ReplicationStats stats;
    private final ReplicationLimits limits;
    private final Authentication authentication;
    private IntSupplier openStreams = () -> 0;
    private LongPredicate streamOpen = id -> false;
    private IntSupplier openFetches = () -> 0;
    private String peer;
    private String scope;

    ReceivingConnection(
            String self,
            ReplicationStats stats,
            ReplicationLimits limits,
            Authentication authentication) {
        this.self = self;
        this.stats = stats;
        this.limits = limits;
        this.authentication = authentication;
    }

    String self() {
        return self;
    }

    ReplicationStats stats() {
        return stats;
    }

    ReplicationLimits limits() {
        return limits;
    }

    /** The handshake succeeded: {@code peer} works in {@code scope} from now on. */
    void authenticated(String peer, String scope) {
        this.peer = peer;
        this.scope = scope;
    }

    boolean isAuthenticated() {
        return peer != null;
    }

    /** The member id the peer proved, or null before the handshake. */
    String peer() {
        return peer;
    }

    /** The streams the receiver has open: counted against the connection's budget. */
    void trackStreams(IntSupplier count, LongPredicate isOpen) {
        this.openStreams = count;
        this.streamOpen = isOpen;
    }

    /** Whether a stream of that id is open: a fetch may not reuse it. */
    boolean isStreamOpen(long id) {
        return streamOpen.test(id);
    }

    /** Counts the fetches being served against the connection's budget. */
    void countFetches(IntSupplier fetches) {
        this.openFetches = fetches;
    }

    int openStreams() {
        return openStreams.getAsInt();
    }

    /** Refuses one more stream or fetch on a connection that has as many as it may. */
    void checkRoomForOneMore() throws IOException {
        int open = openStreams.getAsInt() + openFetches.getAsInt();
        if (open >= limits.maxStreamsPerConnection()) {
            throw new IOException(
                    "already "
                            + open
                            + " streams and fetches open on this connection, the most"
                            + " allowed");
        }
    }

    /**
     * Refuses a path outside the scope this connection authenticated in, and any path once that
     * scope is no longer served here.
     */
    void checkInScope(String path) throws IOException {
        Optional<String> gone = authentication.refusal(scope);
        if (gone.isPresent()) {
            throw new IOException("this peer " + gone.get());
        }
        if (!Authentication.inScope(scope, path)) {
            throw new IOException(
                    "the path is outside the scope '"
                            + scope
                            + "' this peer authenticated in: a job operator's peers touch only"
                            + " its own replicas");
        }
    }

    /** Fails one stream or fetch with {@code reason}, logged and counted; the connection stays. */
    void refuseStream(ChannelHandlerContext ctx, long id, String what, String reason) {
        stats.refused();
        LOG.warn("Refused {} from {}: {}", what, peer, reason);
        ctx.writeAndFlush(new ReplicationMessage.Fail(id, "member " + self + ": " + reason));
    }

    /** Closes the connection after telling the peer why, logged and counted. */
    void refuseConnection(ChannelHandlerContext ctx, String what) {
        stats.refused();
        LOG.warn("Replication peer {} ({}) {}; closing", peer, ctx.channel().remoteAddress(), what);
        ctx.writeAndFlush(
                        new ReplicationMessage.Fail(
                                ReplicationMessage.Fail.CONNECTION, "member " + self + ": " + what))
                .addListener(ChannelFutureListener.CLOSE);
    }
}
