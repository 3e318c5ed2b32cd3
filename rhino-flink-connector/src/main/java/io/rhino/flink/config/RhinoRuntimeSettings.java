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

import io.rhino.replication.ReplicationLimits;
import java.io.Serializable;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.IllegalConfigurationException;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.configuration.SecurityOptions;
import org.apache.flink.core.fs.Path;

/**
 * The options a Rhino operator's tasks and JobManager side run with, read once when the Rhino keyed
 * stream is built and shipped with the job.
 *
 * @param handoverTimeout how long a handover may take
 * @param handoverBufferMemory serialized bytes a target gate holds in memory before spilling
 * @param loadReportInterval how often routers and gates report load
 * @param loadWindow the window of a vnode's records per second
 * @param rest the REST server's settings
 * @param balancer the auto-balancer's settings
 * @param replication where vnode checkpoints are replicated
 * @param rescale how a rescale past the deployed parallelism restarts the job
 */
public record RhinoRuntimeSettings(
        Duration handoverTimeout,
        MemorySize handoverBufferMemory,
        int handoverThreads,
        Duration loadReportInterval,
        Duration loadWindow,
        Rest rest,
        Balancer balancer,
        Replication replication,
        Rescale rescale)
        implements Serializable {

    private static final long serialVersionUID = 1L;

    /** Rhino's REST server. */
    public record Rest(
            boolean enabled,
            String bindAddress,
            int port,
            String authToken,
            Duration idleTimeout,
            Duration requestTimeout,
            int maxConnections,
            String requestJournalDir)
            implements Serializable {

        private static final long serialVersionUID = 1L;

        public Rest {
            if (requestJournalDir != null) {
                requestJournalDir = checkedJournalDir(requestJournalDir);
            }
        }

        /** Where this job's requests are recorded, if anywhere. */
        public Optional<String> requestJournal() {
            return Optional.ofNullable(requestJournalDir);
        }

        private static String checkedJournalDir(String dir) {
            String trimmed = dir.strip();
            try {
                if (!trimmed.isEmpty() && new Path(trimmed).isAbsolute()) {
                    return trimmed;
                }
            } catch (IllegalArgumentException e) {
                // refused below, with what was expected
            }
            throw invalid(
                    RhinoOptions.REST_REQUEST_JOURNAL_DIR,
                    dir,
                    "an absolute path or URI of a file system every JobManager reaches, e.g."
                            + " hdfs:///flink/rhino-requests");
        }

        public Optional<String> token() {
            return Optional.ofNullable(authToken).filter(t -> !t.isBlank());
        }

        @Override
        public String toString() {
            return "Rest[enabled="
                    + enabled
                    + ", bindAddress="
                    + bindAddress
                    + ", port="
                    + port
                    + ", authToken="
                    + (token().isPresent() ? "(set)" : "(none)")
                    + ", idleTimeout="
                    + idleTimeout
                    + ", requestTimeout="
                    + requestTimeout
                    + ", maxConnections="
                    + maxConnections
                    + ", requestJournalDir="
                    + requestJournalDir
                    + "]";
        }
    }

    /**
     * A rescale past the deployed parallelism, through Flink's adaptive scheduler.
     *
     * @param flinkRestAddress Flink's REST endpoint ({@code http(s)://host:port}), or null if unset
     * @param restartTimeout how long the restart may take
     */
    public record Rescale(String flinkRestAddress, Duration restartTimeout)
            implements Serializable {

        private static final long serialVersionUID = 1L;

        public Rescale {
            requirePositive(RhinoOptions.RESCALE_RESTART_TIMEOUT.key(), restartTimeout);
            if (flinkRestAddress != null) {
                flinkRestAddress = checkedRestAddress(flinkRestAddress);
            }
        }

        public Optional<URI> flinkRest() {
            return Optional.ofNullable(flinkRestAddress).map(URI::create);
        }

        private static String checkedRestAddress(String address) {
            String trimmed = address.strip().replaceAll("/+$", "");
            try {
                URI uri = new URI(trimmed);
                if (("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))
                        && uri.getHost() != null
                        && (uri.getPath() == null || uri.getPath().isEmpty())
                        && uri.getQuery() == null) {
                    return trimmed;
                }
            } catch (URISyntaxException e) {
                // refused below, with what was expected
            }
            throw invalid(
                    RhinoOptions.RESCALE_FLINK_REST_ADDRESS,
                    address,
                    "http://host:port or https://host:port, without a path");
        }
    }

    /** The auto-balancer. */
    public record Balancer(
            boolean auto,
            Duration interval,
            double maxImbalance,
            Duration cooldown,
            double minBusyMsPerSecond)
            implements Serializable {

        private static final long serialVersionUID = 1L;
    }

    /** Replication of vnode checkpoints to peer TaskManagers. */
    public record Replication(
            ReplicationMode mode,
            int factor,
            String bindHost,
            int firstPort,
            int lastPort,
            String directory,
            String secret,
            Boolean tls,
            Duration timeout,
            int streamsPerPeer,
            ReplicationLimits limits,
            Duration retainAfterTasks,
            Duration fullStoreBackoff,
            String dfsPath,
            boolean checkReplicasBeforeOpen)
            implements Serializable {

        private static final long serialVersionUID = 1L;

        /** Whether checkpoints are replicated to peers (and handovers go through them). */
        public boolean peers() {
            return mode == ReplicationMode.PEERS;
        }

        static Replication from(ReadableConfig config) {
            String configured = config.get(RhinoOptions.REPLICATION_MODE).trim();
            ReplicationMode mode = ReplicationMode.fromOptionValue(configured);
            if (mode == null) {
                throw invalid(
                        RhinoOptions.REPLICATION_MODE, configured, ReplicationMode.optionValues());
            }
            String dfsPath = null;
            if (mode == ReplicationMode.DFS) {
                dfsPath =
                        config.getOptional(RhinoOptions.REPLICATION_DFS_PATH)
                                .map(String::trim)
                                .filter(path -> !path.isEmpty())
                                .orElseThrow(
                                        () ->
                                                invalid(
                                                        RhinoOptions.REPLICATION_DFS_PATH,
                                                        null,
                                                        "a filesystem URI every TaskManager"
                                                                + " reaches, with"
                                                                + " rhino.replication.mode: dfs"));
                try {
                    new org.apache.flink.core.fs.Path(dfsPath).toUri();
                } catch (IllegalArgumentException e) {
                    throw invalid(RhinoOptions.REPLICATION_DFS_PATH, dfsPath, "a filesystem URI");
                }
            }
            int factor = config.get(RhinoOptions.REPLICATION_FACTOR);
            if (factor < 1) {
                throw invalid(RhinoOptions.REPLICATION_FACTOR, factor, ">= 1");
            }
            int[] ports = ports(config.get(RhinoOptions.REPLICATION_PORT));
            Duration timeout = config.get(RhinoOptions.REPLICATION_TIMEOUT);
            requirePositive(RhinoOptions.REPLICATION_TIMEOUT.key(), timeout);
            int streamsPerPeer = config.get(RhinoOptions.REPLICATION_STREAMS_PER_PEER);
            if (streamsPerPeer < 1) {
                throw invalid(RhinoOptions.REPLICATION_STREAMS_PER_PEER, streamsPerPeer, ">= 1");
            }
            ReplicationLimits limits = limits(config, ReplicationLimits.DEFAULTS);
            Duration retain = config.get(RhinoOptions.REPLICATION_RETAIN_AFTER_TASKS);
            if (retain.isNegative()) {
                throw invalid(RhinoOptions.REPLICATION_RETAIN_AFTER_TASKS, retain, ">= 0");
            }
            Duration backoff = config.get(RhinoOptions.REPLICATION_FULL_STORE_BACKOFF);
            if (backoff.isNegative()) {
                throw invalid(RhinoOptions.REPLICATION_FULL_STORE_BACKOFF, backoff, ">= 0");
            }
            return new Replication(
                    mode,
                    factor,
                    config.getOptional(RhinoOptions.REPLICATION_BIND_HOST).orElse(null),
                    ports[0],
                    ports[1],
                    config.getOptional(RhinoOptions.REPLICATION_DIR).orElse(null),
                    config.getOptional(RhinoOptions.REPLICATION_SECRET)
                            .filter(secret -> !secret.isEmpty())
                            .orElseGet(Replication::randomSecret),
                    config.getOptional(RhinoOptions.REPLICATION_SSL_ENABLED).orElse(null),
                    timeout,
                    streamsPerPeer,
                    limits,
                    retain,
                    backoff,
                    dfsPath,
                    config.get(RhinoOptions.REPLICATION_RESTORE_CHECK_BEFORE_OPEN));
        }

        /**
         * A secret for one operator's replication peers when none is configured: 256 random bits,
         * drawn where the job is built and carried to the tasks with the operator.
         */
        static String randomSecret() {
            byte[] secret = new byte[32];
            new java.security.SecureRandom().nextBytes(secret);
            return java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(secret);
        }

        /**
         * These settings on one TaskManager: where its service binds and keeps its replicas are
         * properties of its host (an address, a dedicated disk), so the TaskManager's own
         * configuration wins over the job's for bind host, port and directory. So does TLS, which
         * the job may set, and which otherwise follows Flink's internal SSL on the TaskManager.
         */
        public Replication onTaskManager(ReadableConfig taskManagerConfig) {
            int[] ports =
                    taskManagerConfig
                            .getOptional(RhinoOptions.REPLICATION_PORT)
                            .map(Replication::ports)
                            .orElse(new int[] {firstPort, lastPort});
            return new Replication(
                    mode,
                    factor,
                    taskManagerConfig
                            .getOptional(RhinoOptions.REPLICATION_BIND_HOST)
                            .orElse(bindHost),
                    ports[0],
                    ports[1],
                    taskManagerConfig.getOptional(RhinoOptions.REPLICATION_DIR).orElse(directory),
                    secret,
                    taskManagerConfig
                            .getOptional(RhinoOptions.REPLICATION_SSL_ENABLED)
                            .or(() -> Optional.ofNullable(tls))
                            .orElseGet(
                                    () ->
                                            taskManagerConfig.get(
                                                    SecurityOptions.SSL_INTERNAL_ENABLED)),
                    timeout,
                    streamsPerPeer,
                    limits(taskManagerConfig, limits),
                    retainAfterTasks,
                    fullStoreBackoff,
                    dfsPath,
                    checkReplicasBeforeOpen);
        }

        /**
         * The limits of a replication service that {@code config} sets, the others as in {@code
         * fallback}.
         */
        private static ReplicationLimits limits(ReadableConfig config, ReplicationLimits fallback) {
            Duration handshake =
                    config.getOptional(RhinoOptions.REPLICATION_HANDSHAKE_TIMEOUT)
                            .orElse(fallback.handshakeTimeout());
            requirePositive(RhinoOptions.REPLICATION_HANDSHAKE_TIMEOUT.key(), handshake);
            Duration idle =
                    config.getOptional(RhinoOptions.REPLICATION_IDLE_TIMEOUT)
                            .orElse(fallback.idleTimeout());
            if (idle.toMillis() < 2) {
                throw invalid(RhinoOptions.REPLICATION_IDLE_TIMEOUT, idle, "at least 2 ms");
            }
            int connections =
                    config.getOptional(RhinoOptions.REPLICATION_MAX_CONNECTIONS)
                            .orElse(fallback.maxConnections());
            if (connections < 1) {
                throw invalid(RhinoOptions.REPLICATION_MAX_CONNECTIONS, connections, ">= 1");
            }
            int streams =
                    config.getOptional(RhinoOptions.REPLICATION_MAX_STREAMS_PER_CONNECTION)
                            .orElse(fallback.maxStreamsPerConnection());
            if (streams < 1) {
                throw invalid(RhinoOptions.REPLICATION_MAX_STREAMS_PER_CONNECTION, streams, ">= 1");
            }
            long fileBytes =
                    config.getOptional(RhinoOptions.REPLICATION_MAX_FILE_SIZE)
                            .map(MemorySize::getBytes)
                            .orElse(fallback.maxFileBytes());
            return new ReplicationLimits(handshake, idle, connections, streams, fileBytes);
        }

        /** A port, a range such as 50100-50200, or 0: {first, last}. */
        private static int[] ports(String value) {
            String ports = value.trim();
            int first;
            int last;
            try {
                int dash = ports.indexOf('-');
                first = Integer.parseInt(dash < 0 ? ports : ports.substring(0, dash).trim());
                last = dash < 0 ? first : Integer.parseInt(ports.substring(dash + 1).trim());
            } catch (NumberFormatException e) {
                throw invalid(
                        RhinoOptions.REPLICATION_PORT,
                        ports,
                        "a port, a range such as 50100-50200, or 0");
            }
            if (first < 0 || last < first || last > 65_535) {
                throw invalid(
                        RhinoOptions.REPLICATION_PORT, ports, "within 0..65535, first <= last");
            }
            return new int[] {first, last};
        }

        @Override
        public String toString() {
            return "Replication[mode="
                    + mode.optionValue()
                    + ", factor="
                    + factor
                    + ", bindHost="
                    + bindHost
                    + ", ports="
                    + firstPort
                    + "-"
                    + lastPort
                    + ", directory="
                    + directory
                    + ", secret="
                    + (secret == null ? "(none)" : "(set)")
                    + ", tls="
                    + (tls == null ? "(as Flink's internal SSL)" : tls)
                    + ", timeout="
                    + timeout
                    + ", streamsPerPeer="
                    + streamsPerPeer
                    + ", limits="
                    + limits
                    + ", retainAfterTasks="
                    + retainAfterTasks
                    + ", fullStoreBackoff="
                    + fullStoreBackoff
                    + ", dfsPath="
                    + dfsPath
                    + "]";
        }
    }

    public RhinoRuntimeSettings {
        Objects.requireNonNull(handoverTimeout, "handoverTimeout");
        if (handoverBufferMemory == null || handoverBufferMemory.getBytes() <= 0) {
            throw invalid(
                    RhinoOptions.HANDOVER_BUFFER_MAX_MEMORY,
                    handoverBufferMemory,
                    "a positive size, e.g. 64 mb");
        }
        if (handoverThreads < 1) {
            throw invalid(RhinoOptions.HANDOVER_THREADS, handoverThreads, "1 or more");
        }
        Objects.requireNonNull(replication, "replication");
        Objects.requireNonNull(rest, "rest");
        Objects.requireNonNull(balancer, "balancer");
        Objects.requireNonNull(rescale, "rescale");
        requirePositive(RhinoOptions.LOAD_REPORT_INTERVAL.key(), loadReportInterval);
        requirePositive(RhinoOptions.LOAD_WINDOW.key(), loadWindow);
        requirePositive(RhinoOptions.BALANCER_INTERVAL.key(), balancer.interval());
        Objects.requireNonNull(balancer.cooldown(), "cooldown");
        if (!(balancer.maxImbalance() >= 1.0)) {
            throw invalid(
                    RhinoOptions.BALANCER_MAX_IMBALANCE,
                    balancer.maxImbalance(),
                    "a max/mean ratio >= 1, e.g. 1.2");
        }
        if (rest.port() < 0 || rest.port() > 65_535) {
            throw invalid(RhinoOptions.REST_PORT, rest.port(), "0..65535, 0 for any free port");
        }
        if (rest.bindAddress() == null || rest.bindAddress().isBlank()) {
            throw invalid(RhinoOptions.REST_BIND_ADDRESS, rest.bindAddress(), "an address");
        }
        requirePositive(RhinoOptions.REST_IDLE_TIMEOUT.key(), rest.idleTimeout());
        requirePositive(RhinoOptions.REST_REQUEST_TIMEOUT.key(), rest.requestTimeout());
        if (rest.maxConnections() < 1) {
            throw invalid(
                    RhinoOptions.REST_MAX_CONNECTIONS,
                    rest.maxConnections(),
                    "at least 1 connection");
        }
    }

    /** The settings in {@code config}, with the stream's own handover timeout. */
    public static RhinoRuntimeSettings from(ReadableConfig config, Duration handoverTimeout) {
        return new RhinoRuntimeSettings(
                handoverTimeout,
                config.get(RhinoOptions.HANDOVER_BUFFER_MAX_MEMORY),
                config.get(RhinoOptions.HANDOVER_THREADS),
                config.get(RhinoOptions.LOAD_REPORT_INTERVAL),
                config.get(RhinoOptions.LOAD_WINDOW),
                new Rest(
                        config.get(RhinoOptions.REST_ENABLED),
                        config.get(RhinoOptions.REST_BIND_ADDRESS),
                        config.get(RhinoOptions.REST_PORT),
                        config.getOptional(RhinoOptions.REST_AUTH_TOKEN).orElse(null),
                        config.get(RhinoOptions.REST_IDLE_TIMEOUT),
                        config.get(RhinoOptions.REST_REQUEST_TIMEOUT),
                        config.get(RhinoOptions.REST_MAX_CONNECTIONS),
                        config.getOptional(RhinoOptions.REST_REQUEST_JOURNAL_DIR).orElse(null)),
                new Balancer(
                        config.get(RhinoOptions.BALANCER_AUTO),
                        config.get(RhinoOptions.BALANCER_INTERVAL),
                        config.get(RhinoOptions.BALANCER_MAX_IMBALANCE),
                        config.get(RhinoOptions.BALANCER_COOLDOWN),
                        minBusyTime(config)),
                Replication.from(config),
                new Rescale(
                        config.getOptional(RhinoOptions.RESCALE_FLINK_REST_ADDRESS).orElse(null),
                        config.get(RhinoOptions.RESCALE_RESTART_TIMEOUT)));
    }

    private static double minBusyTime(ReadableConfig config) {
        double value = config.get(RhinoOptions.BALANCER_MIN_BUSY_TIME);
        if (!(value >= 0 && value <= 1000)) {
            throw invalid(RhinoOptions.BALANCER_MIN_BUSY_TIME, value, "0..1000 ms per second");
        }
        return value;
    }

    /** Names the option, its value (quoted if text) and what it must be. */
    private static IllegalConfigurationException invalid(
            ConfigOption<?> option, Object value, String expected) {
        String shown = value instanceof String ? "'" + value + "'" : String.valueOf(value);
        return new IllegalConfigurationException(
                option.key() + ": " + shown + " (expected: " + expected + ")");
    }

    private static void requirePositive(String key, Duration value) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw new IllegalConfigurationException(key + ": " + value + " (expected: positive)");
        }
    }
}
