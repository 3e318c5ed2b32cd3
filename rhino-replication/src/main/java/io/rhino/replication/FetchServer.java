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

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.rhino.replication.protocol.ReplicationMessage;
import io.rhino.replication.store.ReplicaStore;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Serves a peer's fetches on one accepted connection: sends the stored copy of a file to the
 * fetching member's service, after checking the path's scope, the reply address (only the member
 * asking, else any peer could have this member send a replica to an address it names) and the
 * copy's checksum (a damaged replica is refused, never sent). Every other message passes on. Event
 * loop only.
 */
final class FetchServer extends SimpleChannelInboundHandler<ReplicationMessage.Fetch> {

    private final ReplicaStore store;
    private final Pusher pusher;
    private final ReceivingConnection connection;
    private int fetchesInFlight;

    FetchServer(ReplicaStore store, Pusher pusher, ReceivingConnection connection) {
        this.store = store;
        this.pusher = pusher;
        this.connection = connection;
        connection.countFetches(() -> fetchesInFlight);
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, ReplicationMessage.Fetch fetch) {
        if (!connection.isAuthenticated()) {
            // the handshake handler lets nothing else through: a pipeline without one
            connection.refuseConnection(ctx, "sent Fetch before authenticating");
            return;
        }
        long id = fetch.request();
        if (connection.isStreamOpen(id)) {
            connection.refuseConnection(ctx, "reused stream id " + id + " for a fetch");
            return;
        }
        Path file;
        PeerAddress replyTo;
        try {
            connection.checkRoomForOneMore();
            connection.checkInScope(fetch.sourcePath());
            connection.checkInScope(fetch.targetPath());
            replyTo = PeerAddress.parse(fetch.replyTo());
            if (!replyTo.toString().equals(connection.peer())) {
                throw new IOException(
                        "a fetch is answered to the member asking only, "
                                + connection.peer()
                                + ", not to "
                                + replyTo);
            }
            file =
                    store.file(fetch.sourcePath())
                            .orElseThrow(
                                    () -> new IOException("no replica of " + fetch.sourcePath()));
            if (!store.verify(fetch.sourcePath())) {
                throw new IOException(
                        "the replica of " + fetch.sourcePath() + " is damaged (checksum mismatch)");
            }
        } catch (IllegalArgumentException | IOException e) {
            connection.refuseStream(
                    ctx,
                    id,
                    "to send '" + fetch.sourcePath() + "' to " + fetch.replyTo(),
                    e.getMessage());
            return;
        }
        fetchesInFlight++;
        pusher.push(file, fetch.targetPath(), replyTo)
                .whenComplete(
                        (ok, failure) -> {
                            fetchesInFlight--;
                            if (failure == null) {
                                connection.stats().fetchServed();
                            }
                            ctx.writeAndFlush(
                                    failure == null
                                            ? new ReplicationMessage.Ack(id)
                                            : new ReplicationMessage.Fail(
                                                    id,
                                                    "member "
                                                            + connection.self()
                                                            + " sending '"
                                                            + fetch.sourcePath()
                                                            + "': "
                                                            + failure.getMessage()));
                        });
    }
}
