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

import java.util.concurrent.CompletableFuture;

/**
 * A stream this member opened to the next member of a chain to pass on what it receives. Created
 * before the connection is ready; chunks wait in its {@link ForwardChunkSource} until then. Event
 * loop only.
 */
final class Forward {

    final CompletableFuture<Void> result = new CompletableFuture<>();
    private final ForwardChunkSource source;
    private SenderConnection connection;
    private long stream = -1;
    private boolean cancelled;

    Forward(ForwardChunkSource source) {
        this.source = source;
    }

    ForwardChunkSource source() {
        return source;
    }

    boolean cancelled() {
        return cancelled;
    }

    void opened(SenderConnection connection, long stream) {
        this.connection = connection;
        this.stream = stream;
    }

    /** Sends what waits, as far as credit allows. */
    void pump() {
        if (connection != null) {
            connection.pump(stream);
        }
    }

    /** Abandons the stream downstream (the upstream one failed). */
    void cancel(String reason) {
        if (cancelled) {
            return;
        }
        cancelled = true;
        if (connection != null) {
            connection.cancel(stream, reason);
        } else {
            source.close();
        }
    }
}
