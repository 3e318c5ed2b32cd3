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

import java.io.Serializable;
import java.time.Duration;
import java.util.Objects;

/**
 * What a replication service grants a peer before it closes the connection (logged, and counted in
 * {@link ReplicationStats#refusedRequests}).
 *
 * @param handshakeTimeout how long a connection may take to authenticate, both ways
 * @param idleTimeout how long an accepted connection may send nothing; a sender closes its own
 *     connections after half of it without streams in flight, so the receiver's limit only ever
 *     closes a peer that is stuck or withholds a frame
 * @param maxConnections connections the service accepts at once; more are closed on arrival
 * @param maxStreamsPerConnection streams and fetches open at once on one connection
 * @param maxFileBytes the largest file a peer may announce (a file larger than the store's free
 *     space is refused as well)
 */
public record ReplicationLimits(
        Duration handshakeTimeout,
        Duration idleTimeout,
        int maxConnections,
        int maxStreamsPerConnection,
        long maxFileBytes)
        implements Serializable {

    private static final long serialVersionUID = 1L;

    /**
     * Generous for a cluster's TaskManagers, tight for a stranger. A handover sends all of a
     * vnode's files at once, several handovers may go to one TaskManager, and each stream holds one
     * open file at the receiver: 8192 streams per connection.
     */
    public static final ReplicationLimits DEFAULTS =
            new ReplicationLimits(
                    Duration.ofSeconds(10), Duration.ofMinutes(10), 512, 8192, 64L << 30);

    /**
     * These limits with an idle timeout of at least twice {@code replicationTimeout}: a stream
     * waiting for credit from a slow next member sends nothing, and its own timeout, not the
     * connection's, should end it.
     */
    public ReplicationLimits forReplicationTimeout(Duration replicationTimeout) {
        Duration twice = replicationTimeout.multipliedBy(2);
        return twice.compareTo(idleTimeout) > 0 ? withIdleTimeout(twice) : this;
    }

    public ReplicationLimits {
        Objects.requireNonNull(handshakeTimeout, "handshakeTimeout");
        Objects.requireNonNull(idleTimeout, "idleTimeout");
        if (handshakeTimeout.isNegative() || handshakeTimeout.isZero()) {
            throw new IllegalArgumentException(
                    "handshakeTimeout " + handshakeTimeout + " (expected: > 0)");
        }
        if (idleTimeout.toMillis() < 2) {
            throw new IllegalArgumentException(
                    "idleTimeout " + idleTimeout + " (expected: at least 2 ms)");
        }
        if (maxConnections < 1 || maxStreamsPerConnection < 1 || maxFileBytes < 0) {
            throw new IllegalArgumentException(
                    "maxConnections "
                            + maxConnections
                            + ", maxStreamsPerConnection "
                            + maxStreamsPerConnection
                            + ", maxFileBytes "
                            + maxFileBytes
                            + " (expected: >= 1, >= 1, >= 0)");
        }
    }

    public ReplicationLimits withHandshakeTimeout(Duration timeout) {
        return new ReplicationLimits(
                timeout, idleTimeout, maxConnections, maxStreamsPerConnection, maxFileBytes);
    }

    public ReplicationLimits withIdleTimeout(Duration timeout) {
        return new ReplicationLimits(
                handshakeTimeout, timeout, maxConnections, maxStreamsPerConnection, maxFileBytes);
    }

    public ReplicationLimits withMaxConnections(int connections) {
        return new ReplicationLimits(
                handshakeTimeout, idleTimeout, connections, maxStreamsPerConnection, maxFileBytes);
    }

    public ReplicationLimits withMaxStreamsPerConnection(int streams) {
        return new ReplicationLimits(
                handshakeTimeout, idleTimeout, maxConnections, streams, maxFileBytes);
    }

    public ReplicationLimits withMaxFileBytes(long bytes) {
        return new ReplicationLimits(
                handshakeTimeout, idleTimeout, maxConnections, maxStreamsPerConnection, bytes);
    }
}
