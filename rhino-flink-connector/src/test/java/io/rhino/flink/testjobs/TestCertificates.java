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

package io.rhino.flink.testjobs;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.SecurityOptions;

/** Certificates for TLS tests, made by the JDK's keytool. */
public final class TestCertificates {

    private TestCertificates() {}

    /**
     * Points Flink's internal SSL options at {@code store}, as key store and trust store (PKCS12,
     * one password for store and key).
     */
    public static Configuration withInternalStores(
            Configuration config, Path store, String password) {
        config.set(SecurityOptions.SSL_INTERNAL_KEYSTORE, store.toString());
        config.set(SecurityOptions.SSL_INTERNAL_KEYSTORE_PASSWORD, password);
        config.set(SecurityOptions.SSL_INTERNAL_KEY_PASSWORD, password);
        config.set(SecurityOptions.SSL_INTERNAL_KEYSTORE_TYPE, "PKCS12");
        config.set(SecurityOptions.SSL_INTERNAL_TRUSTSTORE, store.toString());
        config.set(SecurityOptions.SSL_INTERNAL_TRUSTSTORE_PASSWORD, password);
        config.set(SecurityOptions.SSL_INTERNAL_TRUSTSTORE_TYPE, "PKCS12");
        return config;
    }

    /**
     * A PKCS12 store holding one self-signed RSA key pair under {@code name}; it serves as its own
     * trust store (every holder of it trusts every other).
     */
    public static Path selfSigned(Path directory, String name, String password) throws Exception {
        Path store = directory.resolve(name + ".p12");
        Process keytool =
                new ProcessBuilder(
                                Path.of(System.getProperty("java.home"), "bin", "keytool")
                                        .toString(),
                                "-genkeypair",
                                "-alias",
                                name,
                                "-keyalg",
                                "RSA",
                                "-keysize",
                                "2048",
                                "-dname",
                                "CN=" + name,
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
            throw new IllegalStateException("keytool failed: " + output);
        }
        return store;
    }
}
