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

package io.rhino.flink.api.rest;

import io.netty.handler.codec.http.HttpResponseStatus;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Locale;
import java.util.Optional;

/**
 * The bearer token of a request's {@code Authorization} header (RFC 6750; the scheme in any case).
 */
final class BearerToken {

    private static final String SCHEME = "bearer";

    private BearerToken() {}

    /**
     * The token the header carries; empty without the header.
     *
     * @throws RestException 401 naming what is wrong if the header is there but holds no bearer
     *     token
     */
    static Optional<String> of(String authorization) {
        if (authorization == null) {
            return Optional.empty();
        }
        String value = authorization.strip();
        int space = value.indexOf(' ');
        String scheme = space < 0 ? value : value.substring(0, space);
        if (!scheme.toLowerCase(Locale.ROOT).equals(SCHEME)) {
            throw unauthorized(
                    "The Authorization scheme '"
                            + shorten(scheme)
                            + "' is not supported; send 'Authorization: Bearer <token>'");
        }
        String token = space < 0 ? "" : value.substring(space + 1).strip();
        if (token.isEmpty()) {
            throw unauthorized(
                    "The Authorization header names no token; send 'Authorization: Bearer"
                            + " <token>'");
        }
        return Optional.of(token);
    }

    /**
     * Whether {@code given} is {@code expected}, compared in time independent of where they differ.
     */
    static boolean matches(String expected, Optional<String> given) {
        return given.isPresent()
                && MessageDigest.isEqual(
                        expected.getBytes(StandardCharsets.UTF_8),
                        given.get().getBytes(StandardCharsets.UTF_8));
    }

    static RestException unauthorized(String message) {
        return new RestException(HttpResponseStatus.UNAUTHORIZED, message);
    }

    private static String shorten(String text) {
        return text.length() > 20 ? text.substring(0, 20) + "..." : text;
    }
}
