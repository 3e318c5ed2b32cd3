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

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.Unpooled;
import io.rhino.replication.protocol.ReplicationCodec;
import io.rhino.replication.protocol.ReplicationMessage;
import io.rhino.replication.store.CommitListener;
import io.rhino.replication.testing.ChangingFileTree;
import java.io.IOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a replication service grants a peer before and after it authenticated, probed over real
 * sockets against a real service: every bound closes the connection or fails the stream with a
 * reason, counts it as refused, and leaves no memory or partial file behind.
 */
@Timeout(120)
class ReplicationBoundsTest {

    private static final String SECRET = "bounds-test-secret";

    @TempDir Path temp;

    private final LiveServices live = new LiveServices();

    private ReplicationService service(String name, ReplicationLimits limits) throws IOException {
        return live.start(
                ReplicationConfig.anyPort(
                                "127.0.0.1", temp.resolve(name), SECRET, Duration.ofSeconds(60))
                        .withLimits(limits));
    }

    private RawPeer peer(ReplicationService service) throws IOException {
        return live.peer(service);
    }

    @AfterEach
    void stop() throws Exception {
        live.close();
    }

    @Test
    void chunksBeforeHelloCostNoMemoryAndAreRefused() throws Exception {
        ReplicationService service = service("a", ReplicationLimits.DEFAULTS);
        byte[] chunkFrame =
                RawPeer.encode(
                        new ReplicationMessage.Chunk(
                                1, Unpooled.wrappedBuffer(new byte[ReplicationCodec.CHUNK_BYTES])));
        int connections = 300;
        Memory before = Memory.now();
        Memory afterFirst = null;
        for (int round = 1; round <= 2; round++) {
            Memory start = Memory.now();
            for (int i = 0; i < connections; i++) {
                try (RawPeer peer = new RawPeer(service.address())) {
                    try {
                        peer.sendRaw(chunkFrame);
                    } catch (IOException refusedMidWrite) {
                        // the service may close before the body is through
                    }
                    peer.awaitClosed(10_000);
                }
            }
            awaitRefused(service, (long) round * connections);
            Memory end = Memory.now();
            System.out.printf(
                    "Round %d, %d CHUNK-before-HELLO connections: Netty pool in use %d -> %d"
                            + " bytes, reserved %d -> %d bytes; JVM direct buffers %d -> %d"
                            + " bytes%n",
                    round,
                    connections,
                    start.inUse,
                    end.inUse,
                    start.reserved,
                    end.reserved,
                    start.direct,
                    end.direct);
            assertThat(end.inUse - before.inUse)
                    .as(
                            "buffers still held after round %d of %d refused connections",
                            round, connections)
                    .isLessThan(1L << 20);
            if (afterFirst == null) {
                afterFirst = end;
            } else {
                assertThat(end.reserved)
                        .as("the pool grew again in the second round")
                        .isLessThanOrEqualTo(afterFirst.reserved);
            }
        }
        assertThat(service.stats().refusedRequests()).isEqualTo(2L * connections);
        assertThat(ChangingFileTree.partialFiles(service.store().root())).isEmpty();
    }

    @Test
    void aPeerThatNeverAuthenticatesIsClosedAfterTheHandshakeTimeout() throws Exception {
        ReplicationService service =
                service(
                        "a",
                        ReplicationLimits.DEFAULTS.withHandshakeTimeout(Duration.ofMillis(500)));
        RawPeer silent = peer(service);
        assertThat(silent.read()).isInstanceOf(ReplicationMessage.Challenge.class);
        ReplicationMessage last = silent.awaitClosed(5_000);
        assertThat(((ReplicationMessage.Fail) last).reason()).contains("did not authenticate");

        RawPeer withholding = peer(service); // announces a hello, sends half of it
        withholding.sendRaw(new byte[] {0, 0, 0, 100, 2, 0});
        withholding.awaitClosed(5_000);
        assertThat(service.stats().refusedRequests()).isEqualTo(2);
    }

    @Test
    void emptyFramesCloseTheConnectionBeforeAndAfterAuthentication() throws Exception {
        ReplicationService service = service("a", ReplicationLimits.DEFAULTS);
        RawPeer stranger = peer(service);
        stranger.sendRaw(new byte[12]); // three empty frames
        ReplicationMessage last = stranger.awaitClosed(5_000);
        assertThat(((ReplicationMessage.Fail) last).reason()).contains("empty frame");

        RawPeer member = peer(service);
        member.authenticate(SECRET, "member:1");
        member.sendRaw(new byte[12]);
        member.awaitClosed(5_000);
        awaitRefused(service, 2);
    }

    @Test
    void anAuthenticatedPeerThatWithholdsAFrameIsClosedWhenIdle() throws Exception {
        ReplicationService service =
                service("a", ReplicationLimits.DEFAULTS.withIdleTimeout(Duration.ofSeconds(1)));
        RawPeer member = peer(service);
        member.authenticate(SECRET, "member:1");
        ByteBuffer header = ByteBuffer.allocate(9);
        // the largest frame the decoder takes (its limit counts the length and its checksum)
        int length = ReplicationCodec.MAX_FRAME_BYTES - 8;
        header.putInt(length).putInt(ReplicationCodec.lengthChecksum(length)).put((byte) 5);
        member.sendRaw(header.array()); // a maximal frame announced, its body withheld
        long started = System.nanoTime();
        member.awaitClosed(5_000);
        assertThat(Duration.ofNanos(System.nanoTime() - started))
                .as("closed for idleness, not for the frame")
                .isGreaterThan(Duration.ofMillis(500));
        awaitRefused(service, 1);
    }

    @Test
    void connectionsBeyondTheCapAreClosedOnArrival() throws Exception {
        ReplicationService service = service("a", ReplicationLimits.DEFAULTS.withMaxConnections(4));
        List<RawPeer> held = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            RawPeer peer = peer(service);
            assertThat(peer.read()).isInstanceOf(ReplicationMessage.Challenge.class);
            held.add(peer);
        }
        RawPeer oneTooMany = peer(service);
        assertThat(oneTooMany.awaitClosed(5_000)).as("not even a challenge").isNull();
        assertThat(service.stats().refusedRequests()).isEqualTo(1);

        held.get(0).close();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            RawPeer next = peer(service);
            ReplicationMessage first = next.awaitClosedOrFirst();
            if (first instanceof ReplicationMessage.Challenge) {
                break; // a freed place is taken again
            }
            assertThat(System.nanoTime()).as("no place freed").isLessThan(deadline);
            Thread.sleep(20);
        }
    }

    @Test
    void chunksBeyondTheCreditCloseTheConnectionInsteadOfQueueingForAStalledHop() throws Exception {
        ReplicationService service = service("a", ReplicationLimits.DEFAULTS);
        try (ServerSocket stalled =
                new ServerSocket(0, 50, java.net.InetAddress.getByName("127.0.0.1"))) {
            List<Socket> accepted = acceptForever(stalled); // never answers, never reads
            RawPeer member = peer(service);
            member.authenticate(SECRET, "member:1");
            int chunks = 100;
            member.send(
                    new ReplicationMessage.Open(
                            1,
                            "job/op/vnode-1/big.sst",
                            (long) chunks * ReplicationCodec.CHUNK_BYTES,
                            0,
                            List.of("127.0.0.1:" + stalled.getLocalPort())));
            Memory before = Memory.now();
            byte[] chunk =
                    RawPeer.encode(
                            new ReplicationMessage.Chunk(
                                    1,
                                    Unpooled.wrappedBuffer(
                                            new byte[ReplicationCodec.CHUNK_BYTES])));
            try {
                for (int i = 0; i < chunks; i++) {
                    member.sendRaw(chunk);
                }
            } catch (IOException closedMidWrite) {
                // refused before the last chunk was through
            }
            ReplicationMessage last = member.awaitClosed(5_000);
            assertThat(((ReplicationMessage.Fail) last).reason())
                    .contains("than the " + StreamReceiver.CREDIT_WINDOW + " credited");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (Memory.now().inUse - before.inUse >= 256 << 10 && System.nanoTime() < deadline) {
                Thread.sleep(10); // the refused stream's window is released as it closes
            }
            assertThat(Memory.now().inUse - before.inUse)
                    .as("held for a next hop that never reads")
                    .isLessThan(256L << 10);
            assertThat(service.stats().refusedRequests()).isEqualTo(1);
            assertThat(ChangingFileTree.partialFiles(service.store().root())).isEmpty();
            accepted.forEach(ReplicationBoundsTest::closeQuietly);
        }
    }

    @Test
    void streamsPerConnectionAndAnnouncedSizesAreBounded() throws Exception {
        ReplicationService service =
                service(
                        "a",
                        ReplicationLimits.DEFAULTS
                                .withMaxStreamsPerConnection(2)
                                .withMaxFileBytes(1000));
        RawPeer member = peer(service);
        member.authenticate(SECRET, "member:1");
        member.send(new ReplicationMessage.Open(1, "j/o/vnode-1/a.sst", 1001, 0, List.of()));
        assertThat(((ReplicationMessage.Fail) member.read()).reason())
                .contains("a file of 1001 bytes is above the limit of 1000");
        member.send(new ReplicationMessage.Open(2, "j/o/vnode-1/b.sst", 10, 0, List.of()));
        member.send(new ReplicationMessage.Open(3, "j/o/vnode-1/c.sst", 10, 0, List.of()));
        member.send(new ReplicationMessage.Open(4, "j/o/vnode-1/d.sst", 10, 0, List.of()));
        assertThat(member.read()).isEqualTo(new ReplicationMessage.Credit(2, 16));
        assertThat(member.read()).isEqualTo(new ReplicationMessage.Credit(3, 16));
        ReplicationMessage.Fail refused = (ReplicationMessage.Fail) member.read();
        assertThat(refused.stream()).isEqualTo(4);
        assertThat(refused.reason()).contains("the most allowed");
        assertThat(service.stats().refusedRequests()).isEqualTo(2);
        // the connection carries on: the open streams complete
        member.send(new ReplicationMessage.Chunk(2, Unpooled.wrappedBuffer(new byte[10])));
        assertThat(member.read()).isEqualTo(new ReplicationMessage.Credit(2, 1));
    }

    @Test
    void aCommitListenerThrowingAnythingLeavesNoPartialFile() throws Exception {
        ReplicationService sender = service("a", ReplicationLimits.DEFAULTS);
        ReplicationService receiver = service("b", ReplicationLimits.DEFAULTS);
        receiver.store()
                .listen(
                        new CommitListener() {
                            @Override
                            public void beforeCommit(String relativePath, Path file) {
                                throw new IllegalStateException("a bug in the listener");
                            }
                        });
        Path file = temp.resolve("source.sst");
        byte[] data = new byte[200_000];
        new Random(7).nextBytes(data);
        Files.write(file, data);

        assertThatThrownBy(
                        () ->
                                sender.replicate(
                                                file,
                                                "job/op/vnode-1/1.sst",
                                                List.of(receiver.address()))
                                        .get(30, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .hasMessageContaining("storing failed")
                .hasMessageContaining("a bug in the listener");
        assertThat(ChangingFileTree.partialFiles(receiver.store().root())).isEmpty();
        assertThat(receiver.store().file("job/op/vnode-1/1.sst")).isEmpty();
        assertThat(receiver.stats().refusedRequests()).isEqualTo(1);

        receiver.store().listen(CommitListener.NONE);
        sender.replicate(file, "job/op/vnode-1/1.sst", List.of(receiver.address()))
                .get(30, TimeUnit.SECONDS);
        assertThat(receiver.store().verify("job/op/vnode-1/1.sst")).isTrue();
    }

    @Test
    void anOpenNamingAHopThePolicyDoesNotKnowIsRefusedWithoutConnectingThere() throws Exception {
        ReplicationService service = service("a", ReplicationLimits.DEFAULTS);
        try (ServerSocket elsewhere =
                new ServerSocket(0, 50, java.net.InetAddress.getByName("127.0.0.1"))) {
            PeerAddress known = new PeerAddress("127.0.0.9", 9);
            service.setPeerPolicy((path, hop) -> hop.equals(known));
            List<Socket> reached = acceptForever(elsewhere);
            RawPeer member = peer(service);
            member.authenticate(SECRET, "member:1");
            String hop = "127.0.0.1:" + elsewhere.getLocalPort();
            member.send(
                    new ReplicationMessage.Open(1, "job/op/vnode-1/1.sst", 10, 0, List.of(hop)));
            ReplicationMessage.Fail refused = (ReplicationMessage.Fail) member.read();
            assertThat(refused.reason()).contains(hop).contains("no replication member");
            Thread.sleep(300);
            assertThat(reached).as("connections the peer had the service make").isEmpty();
            assertThat(service.stats().refusedRequests()).isEqualTo(1);
            assertThat(ChangingFileTree.partialFiles(service.store().root())).isEmpty();
        }
    }

    @Test
    void aFetchIsAnsweredOnlyToTheMemberThatAsks() throws Exception {
        ReplicationService holder = service("a", ReplicationLimits.DEFAULTS);
        ReplicationService owner = service("b", ReplicationLimits.DEFAULTS);
        Path file = temp.resolve("source.sst");
        Files.write(file, new byte[1000]);
        owner.replicate(file, "job/op/vnode-1/1.sst", List.of(holder.address()))
                .get(30, TimeUnit.SECONDS);
        try (ServerSocket elsewhere =
                new ServerSocket(0, 50, java.net.InetAddress.getByName("127.0.0.1"))) {
            List<Socket> reached = acceptForever(elsewhere);
            RawPeer member = peer(holder);
            member.authenticate(SECRET, owner.address().toString());
            String replyTo = "127.0.0.1:" + elsewhere.getLocalPort();
            member.send(
                    new ReplicationMessage.Fetch(1, "job/op/vnode-1/1.sst", "x/1.sst", replyTo));
            ReplicationMessage.Fail refused = (ReplicationMessage.Fail) member.read();
            assertThat(refused.reason()).contains("answered to the member asking only");
            Thread.sleep(300);
            assertThat(reached).as("connections the peer had the holder make").isEmpty();
        }
        // the owner itself still fetches its copy
        owner.fetch(holder.address(), "job/op/vnode-1/1.sst", "x/1.sst").get(30, TimeUnit.SECONDS);
        assertThat(owner.store().verify("x/1.sst")).isTrue();
    }

    @Test
    void limitsNameWhatIsWrongAndOutlastTheReplicationTimeout() {
        assertThatThrownBy(() -> ReplicationLimits.DEFAULTS.withMaxConnections(0))
                .hasMessageContaining("maxConnections 0")
                .hasMessageContaining("expected");
        assertThatThrownBy(() -> ReplicationLimits.DEFAULTS.withHandshakeTimeout(Duration.ZERO))
                .hasMessageContaining("handshakeTimeout PT0S (expected: > 0)");
        assertThat(
                        ReplicationLimits.DEFAULTS
                                .forReplicationTimeout(Duration.ofMinutes(30))
                                .idleTimeout())
                .isEqualTo(Duration.ofMinutes(60));
        assertThat(
                        ReplicationLimits.DEFAULTS
                                .forReplicationTimeout(Duration.ofMinutes(2))
                                .idleTimeout())
                .isEqualTo(ReplicationLimits.DEFAULTS.idleTimeout());
    }

    private static void awaitRefused(ReplicationService service, long count) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (service.stats().refusedRequests() < count && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(service.stats().refusedRequests()).isEqualTo(count);
    }

    /** Accepts every connection on {@code server} and holds it, reading and writing nothing. */
    private static List<Socket> acceptForever(ServerSocket server) {
        List<Socket> accepted = java.util.Collections.synchronizedList(new ArrayList<>());
        Thread acceptor =
                new Thread(
                        () -> {
                            try {
                                while (true) {
                                    accepted.add(server.accept());
                                }
                            } catch (IOException closed) {
                                // the test ended
                            }
                        },
                        "stalled-peer");
        acceptor.setDaemon(true);
        acceptor.start();
        return accepted;
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // done with it
        }
    }

    /** Replication's Netty memory, and the JVM's direct buffers, at one moment. */
    record Memory(long inUse, long reserved, long direct) {
        static Memory now() {
            long direct =
                    ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
                            .filter(pool -> pool.getName().equals("direct"))
                            .mapToLong(BufferPoolMXBean::getMemoryUsed)
                            .sum();
            return new Memory(
                    ReplicationMemory.inUseBytes(), ReplicationMemory.reservedBytes(), direct);
        }
    }
}
