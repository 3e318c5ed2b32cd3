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

package io.rhino.flink.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rhino.flink.testjobs.TestCertificates;
import io.rhino.replication.ReplicationTls;
import io.rhino.replication.SelfSignedKeyStore;
import java.nio.file.Path;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.IllegalConfigurationException;
import org.apache.flink.configuration.SecurityOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Replication TLS built from the options of Flink's internal SSL. */
class FlinkInternalTlsTest {

    private static final String PASSWORD = "tls-password";

    @TempDir Path directory;

    @Test
    void theStoresOfFlinksInternalSslOrTheirGeneralFallbacksAreUsed() throws Exception {
        Path store = SelfSignedKeyStore.create(directory, "tm", PASSWORD);
        Configuration config = new Configuration();
        // the general security.ssl.* options stand in for the internal ones, as in Flink
        config.set(SecurityOptions.SSL_KEYSTORE, store.toString());
        config.set(SecurityOptions.SSL_KEYSTORE_PASSWORD, PASSWORD);
        config.set(SecurityOptions.SSL_KEY_PASSWORD, PASSWORD);
        config.set(SecurityOptions.SSL_INTERNAL_KEYSTORE_TYPE, "PKCS12");
        config.set(SecurityOptions.SSL_INTERNAL_TRUSTSTORE, store.toString());
        config.set(SecurityOptions.SSL_INTERNAL_TRUSTSTORE_PASSWORD, PASSWORD);
        config.set(SecurityOptions.SSL_INTERNAL_TRUSTSTORE_TYPE, "PKCS12");

        ReplicationTls tls = FlinkInternalTls.fromTaskManager(config);

        assertThat(tls.protocols()).containsExactly("TLSv1.2");
        assertThat(tls.cipherSuites())
                .containsExactly(
                        "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
                        "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384");
    }

    @Test
    void aMissingStoreOrWrongPasswordIsNamed() throws Exception {
        Configuration config = new Configuration();
        assertThatThrownBy(() -> FlinkInternalTls.fromTaskManager(config))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessageContaining("security.ssl.internal.keystore")
                .hasMessageContaining("rhino.replication.ssl.enabled");

        Path store = SelfSignedKeyStore.create(directory, "tm", PASSWORD);
        TestCertificates.withInternalStores(config, store, PASSWORD);
        config.set(SecurityOptions.SSL_INTERNAL_KEYSTORE_PASSWORD, "wrong");
        assertThatThrownBy(() -> FlinkInternalTls.fromTaskManager(config))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessageContaining(store.toString());
    }
}
