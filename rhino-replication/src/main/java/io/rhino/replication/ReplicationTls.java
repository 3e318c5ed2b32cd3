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

import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.List;
import java.util.Objects;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLException;
import javax.net.ssl.TrustManagerFactory;

/**
 * Mutual TLS between replication peers: every peer presents the certificate of its key store and
 * accepts only peers whose certificate its trust store trusts, in both directions (as Flink's
 * internal connections). With TLS files travel through the JVM to be encrypted, so the primary's
 * zero-copy sending is off.
 *
 * @param keys this peer's key and certificate
 * @param trust the certificates it accepts peers by
 * @param protocols the TLS protocols allowed (empty: the JDK's defaults)
 * @param cipherSuites the cipher suites allowed (empty: the JDK's defaults)
 */
public record ReplicationTls(
        KeyManagerFactory keys,
        TrustManagerFactory trust,
        List<String> protocols,
        List<String> cipherSuites) {

    public ReplicationTls {
        Objects.requireNonNull(keys, "keys");
        Objects.requireNonNull(trust, "trust");
        protocols = List.copyOf(protocols);
        cipherSuites = List.copyOf(cipherSuites);
    }

    /**
     * TLS from key and trust store files.
     *
     * @throws IOException naming the store that cannot be read, and why
     */
    public static ReplicationTls fromStores(
            KeyStoreFile keyStore, String keyPassword, KeyStoreFile trustStore) throws IOException {
        try {
            KeyManagerFactory keys =
                    KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keys.init(keyStore.load(), keyPassword.toCharArray());
            TrustManagerFactory trust =
                    TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trust.init(trustStore.load());
            return new ReplicationTls(keys, trust, List.of(), List.of());
        } catch (GeneralSecurityException e) {
            throw new IOException(
                    "cannot use key store " + keyStore.path() + " with its key password: " + e, e);
        }
    }

    /** Whether {@code failure} comes from TLS (reported by the handshake event already). */
    static boolean isTlsFailure(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof SSLException) {
                return true;
            }
        }
        return false;
    }

    SslContext serverContext() throws SSLException {
        return configure(SslContextBuilder.forServer(keys)).build();
    }

    SslContext clientContext() throws SSLException {
        return configure(SslContextBuilder.forClient().keyManager(keys)).build();
    }

    private SslContextBuilder configure(SslContextBuilder builder) {
        builder.sslProvider(SslProvider.JDK).trustManager(trust).clientAuth(ClientAuth.REQUIRE);
        if (!protocols.isEmpty()) {
            builder.protocols(protocols);
        }
        if (!cipherSuites.isEmpty()) {
            builder.ciphers(cipherSuites);
        }
        return builder;
    }

    /** A key or trust store on disk. */
    public record KeyStoreFile(Path path, String type, String password) {

        public KeyStoreFile {
            Objects.requireNonNull(path, "path");
            Objects.requireNonNull(type, "type");
            Objects.requireNonNull(password, "password");
        }

        KeyStore load() throws IOException {
            try (InputStream in = Files.newInputStream(path)) {
                KeyStore store = KeyStore.getInstance(type);
                store.load(in, password.toCharArray());
                return store;
            } catch (IOException | GeneralSecurityException e) {
                throw new IOException(
                        "cannot read " + type + " store " + path + ": " + e.getMessage(), e);
            }
        }
    }
}
