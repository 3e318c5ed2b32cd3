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

package io.rhino.benchmarks.replication;

import io.rhino.replication.ReplicationTls;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** A self-signed certificate for TLS between a benchmark's replication members. */
public final class SelfSignedTls {

    private static final String PASSWORD = "benchmark-only";

    private SelfSignedTls() {}

    /**
     * Makes a PKCS12 store with the JDK's keytool in {@code directory}; every member uses it as key
     * store and trust store.
     */
    public static ReplicationTls create(Path directory) throws IOException, InterruptedException {
        Files.createDirectories(directory);
        Path store = directory.resolve("members.p12");
        Process keytool =
                new ProcessBuilder(
                                Path.of(System.getProperty("java.home"), "bin", "keytool")
                                        .toString(),
                                "-genkeypair",
                                "-alias",
                                "members",
                                "-keyalg",
                                "RSA",
                                "-keysize",
                                "2048",
                                "-dname",
                                "CN=replication-benchmark",
                                "-validity",
                                "2",
                                "-storetype",
                                "PKCS12",
                                "-keystore",
                                store.toString(),
                                "-storepass",
                                PASSWORD,
                                "-keypass",
                                PASSWORD)
                        .redirectErrorStream(true)
                        .start();
        String output = new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (keytool.waitFor() != 0) {
            throw new IOException("keytool could not make a certificate: " + output);
        }
        ReplicationTls.KeyStoreFile file =
                new ReplicationTls.KeyStoreFile(store, "PKCS12", PASSWORD);
        return ReplicationTls.fromStores(file, PASSWORD, file);
    }
}
