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
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The connecting side against peers that are not what they claim: one that never answers, one that
 * cannot prove it knows the secret, one that sends file data before the handshake. The service
 * trusts none of them, sends them nothing, and keeps no memory for them.
 */
@Timeout(120)
class SenderHandshakeTest {

    private static final String SECRET = "sender-test-secret";

    @TempDir Path temp;

    private ReplicationService service;
    private ServerSocket fake;
    private final List<Socket> accepted = Collections.synchronizedList(new ArrayList<>());
    private final List<String> seenFromService = Collections.synchronizedList(new ArrayList<>());

    @AfterEach
    void stop() throws IOException {
        if (service != null) {
            service.close();
        }
        if (fake != null) {
            fake.close();
        }
        for (Socket socket : accepted) {
            socket.close();
        }
    }

    private ReplicationService service(Duration handshakeTimeout) throws IOException {
        service =
                ReplicationService.start(
                        ReplicationConfig.anyPort(
                                        "127.0.0.1",
                                        temp.resolve("store"),
                                        SECRET,
                                        Duration.ofSeconds(60))
                                .withLimits(
                                        ReplicationLimits.DEFAULTS.withHandshakeTimeout(
                                                handshakeTimeout)));
        return service;
    }

    /** A fake peer: runs {@code behaviour} on every connection made to it. */
    private PeerAddress fakePeer(Behaviour behaviour) throws IOException {
        fake = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"));
        Thread acceptor =
                new Thread(
                        () -> {
                            try {
                                while (true) {
                                    Socket socket = fake.accept();
                                    accepted.add(socket);
                                    socket.setSoTimeout(5_000);
                                    try {
                                        behaviour.run(
                                                new DataInputStream(socket.getInputStream()),
                                                socket.getOutputStream());
                                    } catch (IOException e) {
                                        // the service closed it
                                    }
                                }
                            } catch (IOException closed) {
                                // the test ended
                            }
                        },
                        "fake-peer");
        acceptor.setDaemon(true);
        acceptor.start();
        return new PeerAddress("127.0.0.1", fake.getLocalPort());
    }

    @FunctionalInterface
    private interface Behaviour {
        void run(DataInputStream in, OutputStream out) throws IOException;
    }

    private Path file() throws IOException {
        Path file = temp.resolve("source.sst");
        Files.write(file, new byte[100_000]);
        return file;
    }

    @Test
    void aPeerThatNeverAnswersFailsTheConnectionWhichIsNotReused() throws Exception {
        service(Duration.ofMillis(500));
        PeerAddress silent = fakePeer((in, out) -> {});
        for (int attempt = 1; attempt <= 2; attempt++) {
            long started = System.nanoTime();
            assertThatThrownBy(
                            () ->
                                    service.replicate(file(), "j/o/vnode-1/1.sst", List.of(silent))
                                            .get(30, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .hasMessageContaining("did not complete the handshake within");
            assertThat(Duration.ofNanos(System.nanoTime() - started))
                    .isLessThan(Duration.ofSeconds(10));
        }
        assertThat(accepted).as("a new connection for the second attempt").hasSize(2);
    }

    @Test
    void aPeerThatCannotProveItKnowsTheSecretIsSentNothing() throws Exception {
        service(Duration.ofSeconds(10));
        PeerAddress impostor =
                fakePeer(
                        (in, out) -> {
                            out.write(
                                    RawPeer.encode(
                                            new ReplicationMessage.Challenge(
                                                    Authentication.nonce())));
                            out.flush();
                            seenFromService.add(readFrame(in).getClass().getSimpleName());
                            // welcomes the service without knowing the secret
                            out.write(RawPeer.encode(new ReplicationMessage.Welcome(new byte[32])));
                            out.flush();
                            try {
                                ReplicationMessage next;
                                while ((next = readFrame(in)) != null) {
                                    seenFromService.add(next.getClass().getSimpleName());
                                }
                            } catch (SocketTimeoutException | java.io.EOFException e) {
                                // nothing more
                            }
                        });
        assertThatThrownBy(
                        () ->
                                service.replicate(file(), "j/o/vnode-1/1.sst", List.of(impostor))
                                        .get(30, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .hasMessageContaining("could not prove it knows rhino.replication.secret");
        Thread.sleep(200);
        assertThat(seenFromService).containsExactly("Hello");
    }

    @Test
    void fileDataFromAPeerBeforeTheHandshakeCostsNoMemory() throws Exception {
        service(Duration.ofSeconds(10));
        AtomicInteger served = new AtomicInteger();
        byte[] chunk =
                RawPeer.encode(
                        new ReplicationMessage.Chunk(
                                1, Unpooled.wrappedBuffer(new byte[ReplicationCodec.CHUNK_BYTES])));
        PeerAddress pushy =
                fakePeer(
                        (in, out) -> {
                            served.incrementAndGet();
                            out.write(chunk);
                            out.flush();
                            while (in.read() >= 0) {
                                // until the service closes
                            }
                        });
        long before = ReplicationMemory.inUseBytes();
        int connections = 50;
        for (int i = 0; i < connections; i++) {
            assertThatThrownBy(
                            () ->
                                    service.replicate(file(), "j/o/vnode-1/1.sst", List.of(pushy))
                                            .get(30, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class);
        }
        long after = ReplicationMemory.inUseBytes();
        assertThat(served.get()).isEqualTo(connections);
        assertThat(after - before)
                .as("buffers held after %d peers sent a chunk before the handshake", connections)
                .isLessThan(1L << 20);
    }

    private static ReplicationMessage readFrame(DataInputStream in) throws IOException {
        return RawPeer.readFrame(in);
    }
}
