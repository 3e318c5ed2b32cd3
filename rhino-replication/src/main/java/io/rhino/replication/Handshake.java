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

/** The events a connection's handshake handler passes on to the handler that carries streams. */
final class Handshake {

    /** The scope an accepted connection authenticated in, once it did. */
    static final io.netty.util.AttributeKey<String> SCOPE =
            io.netty.util.AttributeKey.valueOf("rhino-replication-scope");

    private Handshake() {}

    /**
     * Both sides proved they know the secret of {@code scope}; {@code peer} names the other side.
     */
    record Authenticated(String peer, String scope) {}

    /** The handshake failed, saying why; the connection closes. */
    record Failed(ReplicationException cause) {}
}
