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

import io.rhino.replication.ReplicationTls;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.IllegalConfigurationException;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.configuration.SecurityOptions;

/**
 * The replication service's TLS from the stores of Flink's internal SSL on this TaskManager, so
 * replication is secured with the certificates the cluster already uses between its processes.
 */
final class FlinkInternalTls {

    private FlinkInternalTls() {}

    /**
     * @throws IllegalConfigurationException naming a missing option or a store that cannot be used
     */
    static ReplicationTls fromTaskManager(ReadableConfig config) {
        ReplicationTls.KeyStoreFile keyStore =
                new ReplicationTls.KeyStoreFile(
                        Path.of(
                                required(
                                        config,
                                        SecurityOptions.SSL_INTERNAL_KEYSTORE,
                                        SecurityOptions.SSL_KEYSTORE)),
                        config.get(SecurityOptions.SSL_INTERNAL_KEYSTORE_TYPE),
                        required(
                                config,
                                SecurityOptions.SSL_INTERNAL_KEYSTORE_PASSWORD,
                                SecurityOptions.SSL_KEYSTORE_PASSWORD));
        ReplicationTls.KeyStoreFile trustStore =
                new ReplicationTls.KeyStoreFile(
                        Path.of(
                                required(
                                        config,
                                        SecurityOptions.SSL_INTERNAL_TRUSTSTORE,
                                        SecurityOptions.SSL_TRUSTSTORE)),
                        config.get(SecurityOptions.SSL_INTERNAL_TRUSTSTORE_TYPE),
                        required(
                                config,
                                SecurityOptions.SSL_INTERNAL_TRUSTSTORE_PASSWORD,
                                SecurityOptions.SSL_TRUSTSTORE_PASSWORD));
        String keyPassword =
                required(
                        config,
                        SecurityOptions.SSL_INTERNAL_KEY_PASSWORD,
                        SecurityOptions.SSL_KEY_PASSWORD);
        try {
            ReplicationTls stores = ReplicationTls.fromStores(keyStore, keyPassword, trustStore);
            return new ReplicationTls(
                    stores.keys(),
                    stores.trust(),
                    list(config.get(SecurityOptions.SSL_PROTOCOL)),
                    list(config.get(SecurityOptions.SSL_ALGORITHMS)));
        } catch (IOException e) {
            throw new IllegalConfigurationException(
                    "Rhino replication TLS (rhino.replication.ssl.enabled): " + e.getMessage(), e);
        }
    }

    private static String required(
            ReadableConfig config, ConfigOption<String> option, ConfigOption<String> fallback) {
        return config.getOptional(option)
                .or(() -> config.getOptional(fallback))
                .orElseThrow(
                        () ->
                                new IllegalConfigurationException(
                                        "Rhino replication TLS (rhino.replication.ssl.enabled)"
                                                + " needs "
                                                + option.key()
                                                + " (or "
                                                + fallback.key()
                                                + ") in the TaskManager's configuration"));
    }

    private static List<String> list(String commaSeparated) {
        return Arrays.stream(commaSeparated.split(","))
                .map(String::trim)
                .filter(value -> !value.isEmpty())
                .toList();
    }
}
