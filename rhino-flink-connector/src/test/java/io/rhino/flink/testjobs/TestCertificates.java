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

import java.nio.file.Path;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.SecurityOptions;

/** Flink's SSL options for TLS tests. */
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
}
