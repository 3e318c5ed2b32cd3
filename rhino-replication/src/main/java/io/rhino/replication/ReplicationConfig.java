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

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * How a replication service runs.
 *
 * @param bindHost the address it listens on and that identifies it to peers
 * @param firstPort the first port to try
 * @param lastPort the last port to try ({@code firstPort} for exactly one; 0 and 0 for any free)
 * @param storeDirectory its replica store (the dedicated disk)
 * @param secret the shared secret peers prove they know, or null to accept any peer
 * @param timeout how long a replication may take before it fails
 * @param tls mutual TLS between peers, or null for plain TCP
 * @param streamsPerPeer how many of its own files it sends at once to each peer that passes them
 *     on: every member that passes a file on holds up to a credit window (1 MiB) of it while the
 *     next member is slower
 * @param limits what the service grants a peer before closing its connection
 * @param scopesOnly whether only peers of a registered {@linkplain ReplicationService#registerScope
 *     scope} are accepted (and {@code secret} is ignored), each working only under its scope's path
 *     prefix
 */
public record ReplicationConfig(
        String bindHost,
        int firstPort,
        int lastPort,
        Path storeDirectory,
        String secret,
        Duration timeout,
        ReplicationTls tls,
        int streamsPerPeer,
        ReplicationLimits limits,
        boolean scopesOnly) {

    /** Enough to keep a chain's hops busy while one file ends and the next one starts. */
    public static final int DEFAULT_STREAMS_PER_PEER = 4;

    public ReplicationConfig {
        Objects.requireNonNull(bindHost, "bindHost");
        Objects.requireNonNull(storeDirectory, "storeDirectory");
        Objects.requireNonNull(timeout, "timeout");
        Objects.requireNonNull(limits, "limits");
        if (firstPort < 0 || lastPort < firstPort || lastPort > 65_535) {
            throw new IllegalArgumentException(
                    "ports " + firstPort + "-" + lastPort + " (expected: a range within 0..65535)");
        }
        if (streamsPerPeer < 1) {
            throw new IllegalArgumentException(
                    "streamsPerPeer " + streamsPerPeer + " (expected: at least 1)");
        }
    }

    /** A service with the {@linkplain ReplicationLimits#DEFAULTS default limits}. */
    public ReplicationConfig(
            String bindHost,
            int firstPort,
            int lastPort,
            Path storeDirectory,
            String secret,
            Duration timeout,
            ReplicationTls tls,
            int streamsPerPeer) {
        this(
                bindHost,
                firstPort,
                lastPort,
                storeDirectory,
                secret,
                timeout,
                tls,
                streamsPerPeer,
                ReplicationLimits.DEFAULTS,
                false);
    }

    /** The same service with TLS between peers. */
    public ReplicationConfig withTls(ReplicationTls tls) {
        return new ReplicationConfig(
                bindHost,
                firstPort,
                lastPort,
                storeDirectory,
                secret,
                timeout,
                tls,
                streamsPerPeer,
                limits,
                scopesOnly);
    }

    /** The same service sending {@code streams} of its own files at once to each peer. */
    public ReplicationConfig withStreamsPerPeer(int streams) {
        return new ReplicationConfig(
                bindHost,
                firstPort,
                lastPort,
                storeDirectory,
                secret,
                timeout,
                tls,
                streams,
                limits,
                scopesOnly);
    }

    /** The same service with other limits. */
    public ReplicationConfig withLimits(ReplicationLimits limits) {
        return new ReplicationConfig(
                bindHost,
                firstPort,
                lastPort,
                storeDirectory,
                secret,
                timeout,
                tls,
                streamsPerPeer,
                limits,
                scopesOnly);
    }

    /**
     * The same service taking only peers of the scopes registered on it: no peer works outside a
     * job operator's path prefix, and none without that operator's secret.
     */
    public ReplicationConfig withScopesOnly() {
        return new ReplicationConfig(
                bindHost,
                firstPort,
                lastPort,
                storeDirectory,
                secret,
                timeout,
                tls,
                streamsPerPeer,
                limits,
                true);
    }

    /** A service on any free port of {@code bindHost}, without TLS, with the default streams. */
    public static ReplicationConfig anyPort(
            String bindHost, Path storeDirectory, String secret, Duration timeout) {
        return new ReplicationConfig(
                bindHost, 0, 0, storeDirectory, secret, timeout, null, DEFAULT_STREAMS_PER_PEER);
    }
}
