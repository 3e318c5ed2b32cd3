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

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A PKCS12 key store holding one self-signed RSA key pair, made with the JDK's {@code keytool},
 * that serves as its own trust store: every peer holding it trusts every other. For tests,
 * benchmarks and trying TLS out; a cluster uses the certificates of its own SSL set-up.
 */
public final class SelfSignedKeyStore {

    private SelfSignedKeyStore() {}

    /**
     * Creates {@code <directory>/<alias>.p12} with store and key password {@code password} (at
     * least 6 characters, as keytool requires).
     *
     * @throws IOException with keytool's output if it fails
     */
    public static Path create(Path directory, String alias, String password)
            throws IOException, InterruptedException {
        Files.createDirectories(directory);
        Path store = directory.resolve(alias + ".p12");
        Process keytool =
                new ProcessBuilder(
                                Path.of(System.getProperty("java.home"), "bin", "keytool")
                                        .toString(),
                                "-genkeypair",
                                "-alias",
                                alias,
                                "-keyalg",
                                "RSA",
                                "-keysize",
                                "2048",
                                "-dname",
                                "CN=" + alias,
                                "-validity",
                                "2",
                                "-storetype",
                                "PKCS12",
                                "-keystore",
                                store.toString(),
                                "-storepass",
                                password,
                                "-keypass",
                                password)
                        .redirectErrorStream(true)
                        .start();
        String output = new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (keytool.waitFor() != 0) {
            throw new IOException("keytool could not make a key store: " + output);
        }
        return store;
    }

    /** TLS with the store at {@code store} as key store and trust store. */
    public static ReplicationTls tls(Path store, String password) throws IOException {
        ReplicationTls.KeyStoreFile file =
                new ReplicationTls.KeyStoreFile(store, "PKCS12", password);
        return ReplicationTls.fromStores(file, password, file);
    }
}
