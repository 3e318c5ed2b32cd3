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

import java.util.concurrent.atomic.LongAdder;

/**
 * What one replication service did since it started, as a member of chains: bytes and files it
 * stored, requests it refused (authentication, paths, checksums, full disk, protocol), fetches it
 * served. Updated by the service's event loops, read by metrics from any thread.
 */
public final class ReplicationStats {

    private final LongAdder bytesReceived = new LongAdder();
    private final LongAdder filesStored = new LongAdder();
    private final LongAdder refusedRequests = new LongAdder();
    private final LongAdder fetchesServed = new LongAdder();

    void received(long bytes) {
        bytesReceived.add(bytes);
    }

    void stored() {
        filesStored.increment();
    }

    void refused() {
        refusedRequests.increment();
    }

    void fetchServed() {
        fetchesServed.increment();
    }

    /** Bytes of replica (and fetched) files written to the store. */
    public long bytesReceived() {
        return bytesReceived.sum();
    }

    /** Files stored and verified. */
    public long filesStored() {
        return filesStored.sum();
    }

    /**
     * Connections and files refused: wrong secret, invalid path, checksum mismatch, full disk,
     * protocol violation, missing or damaged file asked for.
     */
    public long refusedRequests() {
        return refusedRequests.sum();
    }

    /** Stored copies sent to a member that fetched them. */
    public long fetchesServed() {
        return fetchesServed.sum();
    }
}
