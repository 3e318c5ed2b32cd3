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

package io.rhino.flink.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rhino.replication.ReplicationLimits;
import java.time.Duration;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.IllegalConfigurationException;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.SecurityOptions;
import org.junit.jupiter.api.Test;

/** Replication modes and the handover buffer bound, read from a configuration, or refused. */
class RhinoRuntimeSettingsTest {

    private static RhinoRuntimeSettings read(Configuration config) {
        return RhinoRuntimeSettings.from(config, Duration.ofSeconds(30));
    }

    @Test
    void dfsModeNeedsItsPath() {
        Configuration config = new Configuration();
        config.set(RhinoOptions.REPLICATION_MODE, "dfs");
        assertThatThrownBy(() -> read(config))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessageContaining("rhino.replication.dfs.path");

        config.set(RhinoOptions.REPLICATION_DFS_PATH, "hdfs://namenode:8020/rhino");
        RhinoRuntimeSettings.Replication replication = read(config).replication();
        assertThat(replication.peers()).as("no peer replication in dfs mode").isFalse();
        assertThat(replication.mode()).isEqualTo(ReplicationMode.DFS);
        assertThat(replication.dfsPath()).isEqualTo("hdfs://namenode:8020/rhino");
    }

    @Test
    void replicationTlsFollowsFlinksInternalSslUnlessSetAndTheTaskManagerDecides() {
        Configuration job = new Configuration();
        Configuration sslTaskManager = new Configuration();
        sslTaskManager.set(SecurityOptions.SSL_INTERNAL_ENABLED, true);
        Configuration plainTaskManager = new Configuration();

        assertThat(read(job).replication().onTaskManager(sslTaskManager).tls()).isTrue();
        assertThat(read(job).replication().onTaskManager(plainTaskManager).tls()).isFalse();

        job.set(RhinoOptions.REPLICATION_SSL_ENABLED, false);
        assertThat(read(job).replication().onTaskManager(sslTaskManager).tls()).isFalse();
        job.set(RhinoOptions.REPLICATION_SSL_ENABLED, true);
        assertThat(read(job).replication().onTaskManager(plainTaskManager).tls()).isTrue();

        plainTaskManager.set(RhinoOptions.REPLICATION_SSL_ENABLED, false);
        assertThat(read(job).replication().onTaskManager(plainTaskManager).tls()).isFalse();
    }

    @Test
    void anUnknownModeNamesTheKnownOnes() {
        Configuration config = new Configuration();
        config.set(RhinoOptions.REPLICATION_MODE, "raid");
        assertThatThrownBy(() -> read(config))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessageContaining("rhino.replication.mode")
                .hasMessageContaining("'raid'")
                .hasMessageContaining("none, peers or dfs");
    }

    @Test
    void theDefaultsReplicateNothingAndBufferSixtyFourMegabytes() {
        RhinoRuntimeSettings settings = read(new Configuration());
        assertThat(settings.replication().mode()).isEqualTo(ReplicationMode.NONE);
        assertThat(settings.handoverBufferMemory()).isEqualTo(MemorySize.ofMebiBytes(64));
    }

    @Test
    void anEmptyHandoverBufferIsRefused() {
        Configuration config = new Configuration();
        config.set(RhinoOptions.HANDOVER_BUFFER_MAX_MEMORY, MemorySize.ZERO);
        assertThatThrownBy(() -> read(config))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessageContaining("rhino.handover.buffer.max-memory");
    }

    @Test
    void noHandoverThreadIsRefused() {
        Configuration config = new Configuration();
        config.set(RhinoOptions.HANDOVER_THREADS, 0);
        assertThatThrownBy(() -> read(config))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessageContaining("rhino.handover.threads")
                .hasMessageContaining("1 or more");
    }

    @Test
    void streamsPerPeerDefaultToFourAreCarriedToTheTaskManagerAndZeroIsRefused() {
        Configuration config = new Configuration();
        assertThat(read(config).replication().streamsPerPeer()).isEqualTo(4);
        config.set(RhinoOptions.REPLICATION_STREAMS_PER_PEER, 16);
        assertThat(read(config).replication().onTaskManager(new Configuration()).streamsPerPeer())
                .isEqualTo(16);
        config.set(RhinoOptions.REPLICATION_STREAMS_PER_PEER, 0);
        assertThatThrownBy(() -> read(config))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessageContaining("rhino.replication.streams-per-peer")
                .hasMessageContaining(">= 1");
    }

    @Test
    void replicationLimitsComeFromTheJobAndTheTaskManagersOwnConfigurationWins() {
        Configuration job = new Configuration();
        assertThat(read(job).replication().limits()).isEqualTo(ReplicationLimits.DEFAULTS);
        job.set(RhinoOptions.REPLICATION_MAX_CONNECTIONS, 7);
        job.set(RhinoOptions.REPLICATION_HANDSHAKE_TIMEOUT, Duration.ofSeconds(4));
        Configuration taskManager = new Configuration();
        taskManager.set(RhinoOptions.REPLICATION_HANDSHAKE_TIMEOUT, Duration.ofSeconds(3));
        taskManager.set(RhinoOptions.REPLICATION_MAX_FILE_SIZE, MemorySize.parse("1 gb"));
        ReplicationLimits limits = read(job).replication().onTaskManager(taskManager).limits();
        assertThat(limits.maxConnections()).isEqualTo(7);
        assertThat(limits.handshakeTimeout()).isEqualTo(Duration.ofSeconds(3));
        assertThat(limits.maxFileBytes()).isEqualTo(1L << 30);
        assertThat(limits.maxStreamsPerConnection())
                .isEqualTo(ReplicationLimits.DEFAULTS.maxStreamsPerConnection());
        assertThat(limits.idleTimeout()).isEqualTo(ReplicationLimits.DEFAULTS.idleTimeout());

        taskManager.set(RhinoOptions.REPLICATION_MAX_STREAMS_PER_CONNECTION, 0);
        assertThatThrownBy(() -> read(job).replication().onTaskManager(taskManager))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessageContaining("rhino.replication.max-streams-per-connection")
                .hasMessageContaining(">= 1");
        job.set(RhinoOptions.REPLICATION_IDLE_TIMEOUT, Duration.ofMillis(1));
        assertThatThrownBy(() -> read(job))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessageContaining("rhino.replication.idle-timeout");
    }
}
