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

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * One TCP connection to the REST server, written byte by byte as a client (or an attacker) would:
 * requests are raw bytes, answers are read as HTTP/1.1 responses with a Content-Length. No HTTP
 * library in between, so malformed requests reach the server as sent.
 */
public final class RawHttpConnection implements AutoCloseable {

    /** A response: status, lower-cased headers, body text (and its JSON, or null). */
    public record Response(String version, int status, Map<String, String> headers, String body) {
        public JsonNode json() {
            try {
                return body.isEmpty() ? null : new ObjectMapper().readTree(body);
            } catch (IOException e) {
                return null;
            }
        }

        /** Whether the server ends the connection after this (HTTP/1.0: unless kept alive). */
        public boolean closes() {
            String connection = headers.get("connection");
            return "close".equalsIgnoreCase(connection)
                    || (version.equals("HTTP/1.0") && !"keep-alive".equalsIgnoreCase(connection));
        }
    }

    /** What reading an answer found. */
    public enum End {
        ANSWERED,
        CLOSED,
        TIMED_OUT,
        /** Something that is not an HTTP response came back (see {@link #problem()}). */
        GARBLED
    }

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private Response last;
    private boolean headRequest;
    private String problem;

    public RawHttpConnection(InetSocketAddress address, int readTimeoutMillis) throws IOException {
        socket = new Socket();
        socket.connect(address, 5_000);
        socket.setSoTimeout(readTimeoutMillis);
        in = socket.getInputStream();
        out = socket.getOutputStream();
    }

    public void send(String request) throws IOException {
        send(request.getBytes(StandardCharsets.ISO_8859_1));
    }

    public void send(byte[] request) throws IOException {
        out.write(request);
        out.flush();
    }

    /** How long {@link #read()} waits for a byte before it reports {@link End#TIMED_OUT}. */
    public void readTimeout(int millis) throws IOException {
        socket.setSoTimeout(millis);
    }

    /** The next answer is to a HEAD request: it has a Content-Length but no body. */
    public void answersHead(boolean head) {
        this.headRequest = head;
    }

    /** Reads one response, or finds the connection closed, or times out. */
    public End read() throws IOException {
        last = null;
        try {
            String statusLine = line();
            if (statusLine == null) {
                return End.CLOSED;
            }
            String[] parts = statusLine.split(" ", 3);
            if (parts.length < 2 || !parts[0].startsWith("HTTP/")) {
                problem = "not an HTTP status line: '" + statusLine + "'";
                return End.GARBLED;
            }
            int status = Integer.parseInt(parts[1]);
            Map<String, String> headers = new TreeMap<>();
            for (String header = line(); header != null && !header.isEmpty(); header = line()) {
                int colon = header.indexOf(':');
                headers.put(
                        header.substring(0, colon).strip().toLowerCase(Locale.ROOT),
                        header.substring(colon + 1).strip());
            }
            int length = Integer.parseInt(headers.getOrDefault("content-length", "0"));
            String connection = headers.get("connection");
            boolean closing =
                    "close".equalsIgnoreCase(connection)
                            || (parts[0].equals("HTTP/1.0")
                                    && !"keep-alive".equalsIgnoreCase(connection));
            // an answer to HEAD has no body, unless the server could not read the request as HEAD
            // (then it closes the connection, and the body, if any, runs to the end)
            byte[] body =
                    !headRequest
                            ? in.readNBytes(length)
                            : closing ? in.readAllBytes() : new byte[0];
            last =
                    new Response(
                            parts[0], status, headers, new String(body, StandardCharsets.UTF_8));
            if (status == 100) {
                return read(); // the interim answer to Expect: 100-continue; the real one follows
            }
            return End.ANSWERED;
        } catch (SocketTimeoutException e) {
            return End.TIMED_OUT;
        } catch (IOException e) {
            // a reset: the server closed while the request was still being sent
            return End.CLOSED;
        }
    }

    /** Reads one response and fails unless there is one. */
    public Response answer() throws IOException {
        End end = read();
        if (end != End.ANSWERED) {
            throw new AssertionError("expected an answer, the connection " + end);
        }
        return last;
    }

    public String problem() {
        return problem;
    }

    public Response last() {
        return last;
    }

    /** Whether the server closed the connection (EOF within the read timeout). */
    public boolean closedByServer() throws IOException {
        try {
            return in.read() < 0;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException reset) {
            return true;
        }
    }

    private String line() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) >= 0) {
            if (b == '\n') {
                String text = bytes.toString(StandardCharsets.ISO_8859_1);
                return text.endsWith("\r") ? text.substring(0, text.length() - 1) : text;
            }
            bytes.write(b);
        }
        if (bytes.size() == 0) {
            return null;
        }
        throw new IOException("connection closed inside a line: " + bytes);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
