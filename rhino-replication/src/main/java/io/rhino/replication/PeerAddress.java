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

import java.util.Objects;

/** A replication service's address, written {@code host:port}. */
public record PeerAddress(String host, int port) {

    public PeerAddress {
        Objects.requireNonNull(host, "host");
        if (port < 1 || port > 65_535) {
            throw new IllegalArgumentException("port: " + port + " (expected: 1..65535)");
        }
    }

    /** Parses {@code host:port}. */
    public static PeerAddress parse(String text) {
        int colon = text == null ? -1 : text.lastIndexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException("peer address '" + text + "' (expected: host:port)");
        }
        try {
            return new PeerAddress(
                    text.substring(0, colon), Integer.parseInt(text.substring(colon + 1)));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    "peer address '" + text + "' (expected: host:port)", e);
        }
    }

    @Override
    public String toString() {
        return host + ":" + port;
    }
}
