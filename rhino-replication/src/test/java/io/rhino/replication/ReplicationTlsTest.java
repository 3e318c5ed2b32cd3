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

import io.rhino.replication.testing.TcpRelay;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Mutual TLS between real services on loopback, with certificates made by the JDK's keytool: a
 * chain replicates and fetches over TLS and the bytes on the wire are not the file's; a peer whose
 * certificate is not trusted, and a peer without TLS, are refused in both directions.
 */
@Timeout(120)
class ReplicationTlsTest {

    private static final String PASSWORD = "store-password";
    // a text the file repeats: found on the wire without TLS, never with it
    private static final byte[] MARKER =
            "rhino-replication-plaintext-marker".getBytes(StandardCharsets.US_ASCII);

    @TempDir Path temp;

    private final List<ReplicationService> services = new ArrayList<>();
    private final List<AutoCloseable> closeables = new ArrayList<>();
    @TempDir static Path certificates;
    private static ReplicationTls clusterTls;
    private static ReplicationTls strangerTls;

    @BeforeAll
    static void certificates() throws Exception {
        clusterTls =
                SelfSignedKeyStore.tls(
                        SelfSignedKeyStore.create(certificates, "cluster", PASSWORD), PASSWORD);
        strangerTls =
                SelfSignedKeyStore.tls(
                        SelfSignedKeyStore.create(certificates, "stranger", PASSWORD), PASSWORD);
    }

    @AfterEach
    void stop() throws Exception {
        services.forEach(ReplicationService::close);
        for (AutoCloseable closeable : closeables) {
            closeable.close();
        }
    }

    @Test
    void aChainReplicatesAndFetchesOverTlsAndTheWireNeverCarriesTheFile() throws Exception {
        ReplicationService primary = service("127.0.0.1", "a", clusterTls);
        ReplicationService second = service("127.0.0.2", "b", clusterTls);
        ReplicationService third = service("127.0.0.3", "c", clusterTls);
        Path file = markedFile(5 * 1024 * 1024 + 3);
        TcpRelay wire = recorder(second.address());

        primary.replicate(
                        file, "job/op/vnode-1/000009.sst", List.of(wire.address(), third.address()))
                .get(60, TimeUnit.SECONDS);

        for (ReplicationService member : List.of(second, third)) {
            Path copy = member.store().file("job/op/vnode-1/000009.sst").orElseThrow();
            assertThat(Files.mismatch(copy, file)).isEqualTo(-1L);
        }
        assertThat(wire.bytes()).as("bytes through the recorder").hasSizeGreaterThan(5_000_000);
        assertThat(indexOf(wire.bytes(), MARKER)).as("the file's text on the wire").isEqualTo(-1);

        primary.fetch(third.address(), "job/op/vnode-1/000009.sst", "restore/000009.sst")
                .get(60, TimeUnit.SECONDS);
        assertThat(Files.mismatch(primary.store().file("restore/000009.sst").orElseThrow(), file))
                .isEqualTo(-1L);
    }

    @Test
    void withoutTlsTheSameRecorderSeesTheFile() throws Exception {
        // the control of the test above: the recorder and the marker would catch plaintext
        ReplicationService primary = service("127.0.0.1", "a", null);
        ReplicationService second = service("127.0.0.2", "b", null);
        Path file = markedFile(1024 * 1024);
        TcpRelay wire = recorder(second.address());

        primary.replicate(file, "job/op/vnode-1/000009.sst", List.of(wire.address()))
                .get(60, TimeUnit.SECONDS);

        assertThat(indexOf(wire.bytes(), MARKER)).isNotNegative();
    }

    @Test
    void aPeerWithAnUntrustedCertificateIsRefusedBothWays() throws Exception {
        ReplicationService primary = service("127.0.0.1", "a", clusterTls);
        ReplicationService stranger = service("127.0.0.2", "s", strangerTls);
        ReplicationService member = service("127.0.0.3", "m", clusterTls);
        Path file = markedFile(64 * 1024);

        assertThatThrownBy(
                        () ->
                                primary.replicate(file, "j/o/v/1.sst", List.of(stranger.address()))
                                        .get(60, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .hasMessageContaining("TLS handshake with peer " + stranger.address());
        assertThatThrownBy(
                        () ->
                                stranger.replicate(file, "j/o/v/1.sst", List.of(member.address()))
                                        .get(60, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .hasMessageContaining("TLS handshake");
        assertThat(stranger.store().file("j/o/v/1.sst")).isEmpty();
        assertThat(member.store().file("j/o/v/1.sst")).isEmpty();
        // the server learns of the failed handshake from the client's alert, a moment later
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (member.stats().refusedRequests() == 0 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(member.stats().refusedRequests()).isPositive();

        primary.replicate(file, "j/o/v/1.sst", List.of(member.address())).get(60, TimeUnit.SECONDS);
        assertThat(member.store().verify("j/o/v/1.sst")).isTrue();
    }

    @Test
    void peersWithAndWithoutTlsRefuseEachOther() throws Exception {
        ReplicationService secure = service("127.0.0.1", "a", clusterTls);
        ReplicationService plain = service("127.0.0.2", "b", null);
        Path file = markedFile(64 * 1024);

        assertThatThrownBy(
                        () ->
                                secure.replicate(file, "j/o/v/1.sst", List.of(plain.address()))
                                        .get(60, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .hasMessageContaining("TLS handshake with peer " + plain.address());
        // the plain peer waits for a challenge the TLS server never sends in clear: the server's
        // handshake timeout closes the connection
        assertThatThrownBy(
                        () ->
                                plain.replicate(file, "j/o/v/1.sst", List.of(secure.address()))
                                        .get(60, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .hasMessageContaining(secure.address().toString());
        assertThat(plain.store().file("j/o/v/1.sst")).isEmpty();
        assertThat(secure.store().file("j/o/v/1.sst")).isEmpty();
    }

    @Test
    void anUnreadableKeyStoreIsNamedInTheError() {
        Path missing = temp.resolve("missing.p12");
        assertThatThrownBy(
                        () ->
                                ReplicationTls.fromStores(
                                        new ReplicationTls.KeyStoreFile(
                                                missing, "PKCS12", PASSWORD),
                                        PASSWORD,
                                        new ReplicationTls.KeyStoreFile(
                                                missing, "PKCS12", PASSWORD)))
                .isInstanceOf(IOException.class)
                .hasMessageContaining(missing.toString());
    }

    // ------------------------------------------------------------------------------------------

    private ReplicationService service(String host, String name, ReplicationTls tls)
            throws IOException {
        ReplicationService service =
                ReplicationService.start(
                        ReplicationConfig.anyPort(
                                        host, temp.resolve(name), "secret", Duration.ofSeconds(30))
                                .withTls(tls));
        services.add(service);
        return service;
    }

    private Path markedFile(int size) throws IOException {
        byte[] data = new byte[size];
        for (int i = 0; i < size; i++) {
            data[i] = MARKER[i % MARKER.length];
        }
        Path file = Files.createTempFile(temp, "marked", ".sst");
        Files.write(file, data);
        return file;
    }

    private TcpRelay recorder(PeerAddress target) throws IOException {
        TcpRelay recorder = TcpRelay.recording(target);
        closeables.add(recorder);
        return recorder;
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
