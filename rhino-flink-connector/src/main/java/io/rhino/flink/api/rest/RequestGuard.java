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

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.util.NetUtil;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.Locale;

/**
 * Keeps web pages in a local browser from driving the API: a page can send simple cross-origin
 * POSTs (form or text bodies, no custom headers) and, by DNS rebinding, even same-origin requests
 * to a loopback server under its own host name. So every POST must say {@code Content-Type:
 * application/json} (which no page can send cross-origin without a CORS preflight this server never
 * grants), and a server bound to loopback answers only requests addressed to localhost or a
 * loopback address ({@code Host}, and {@code Origin} if sent).
 */
final class RequestGuard {

    private final boolean loopback;

    RequestGuard(InetAddress bound) {
        this.loopback = bound.isLoopbackAddress();
    }

    /**
     * @throws RestException 403 or 415 saying what is refused and why
     */
    void check(HttpRequest request) {
        if (loopback) {
            String host = request.headers().get(HttpHeaderNames.HOST);
            if (host != null && !isLoopbackName(hostOf(host))) {
                throw forbidden(
                        "Host '"
                                + shorten(host)
                                + "' does not name this server: it listens on loopback only and"
                                + " answers requests to localhost or a loopback address");
            }
            String origin = request.headers().get(HttpHeaderNames.ORIGIN);
            if (origin != null && !isLoopbackName(originHost(origin))) {
                throw forbidden(
                        "Origin '"
                                + shorten(origin)
                                + "' is not local: requests from web pages of other hosts are"
                                + " refused");
            }
        }
        if (request.method().equals(HttpMethod.POST)) {
            CharSequence type = HttpUtil.getMimeType(request);
            if (type == null
                    || !type.toString()
                            .strip()
                            .toLowerCase(Locale.ROOT)
                            .equals("application/json")) {
                throw new RestException(
                        HttpResponseStatus.UNSUPPORTED_MEDIA_TYPE,
                        "A POST needs 'Content-Type: application/json', got "
                                + (type == null ? "none" : "'" + shorten(type.toString()) + "'"));
            }
        }
    }

    /** The host of a Host header: a name, an IPv4 address or a bracketed IPv6 one, port dropped. */
    private static String hostOf(String header) {
        String value = header.strip();
        if (value.startsWith("[")) {
            int end = value.indexOf(']');
            return end < 0 ? value : value.substring(1, end);
        }
        int colon = value.indexOf(':');
        return colon < 0 ? value : value.substring(0, colon);
    }

    private static String originHost(String origin) {
        try {
            String host = URI.create(origin.strip()).getHost();
            if (host == null) {
                return ""; // "null" (a sandboxed page or a file) or no host at all
            }
            return host.startsWith("[") ? host.substring(1, host.length() - 1) : host;
        } catch (IllegalArgumentException e) {
            return "";
        }
    }

    private static boolean isLoopbackName(String host) {
        if (host.equalsIgnoreCase("localhost")) {
            return true;
        }
        byte[] literal = NetUtil.createByteArrayFromIpAddressString(host);
        if (literal == null) {
            return false; // a name other than localhost: looking it up is what rebinding exploits
        }
        try {
            return InetAddress.getByAddress(literal).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }

    private static RestException forbidden(String message) {
        return new RestException(HttpResponseStatus.FORBIDDEN, message);
    }

    private static String shorten(String text) {
        return text.length() > 60 ? text.substring(0, 60) + "..." : text;
    }
}
