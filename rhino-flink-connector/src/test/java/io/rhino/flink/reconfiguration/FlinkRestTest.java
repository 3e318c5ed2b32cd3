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

package io.rhino.flink.reconfiguration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The client of Flink's REST API over a real HTTP server answering as Flink's does. */
class FlinkRestTest {

    private HttpServer server;
    private final AtomicReference<String> lastPut = new AtomicReference<>();

    @BeforeEach
    void start() throws Exception {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext(
                "/jobs/default/resource-requirements",
                exchange ->
                        answer(
                                exchange,
                                500,
                                "{\"errors\":[\"Internal server error.\",\"<Exception on server"
                                        + " side:\\njava.util.concurrent.CompletionException:"
                                        + " java.lang.UnsupportedOperationException: The"
                                        + " DefaultScheduler does not support changing the"
                                        + " parallelism without a job restart.\\n\\tat"
                                        + " org.apache.flink.Foo.bar(Foo.java:1)\\n\\nEnd of"
                                        + " exception on server side>\"]}"));
        server.createContext(
                "/jobs/adaptive/resource-requirements",
                exchange -> {
                    if (exchange.getRequestMethod().equals("PUT")) {
                        lastPut.set(
                                new String(
                                        exchange.getRequestBody().readAllBytes(),
                                        StandardCharsets.UTF_8));
                        answer(exchange, 200, "{}");
                    } else {
                        answer(
                                exchange,
                                200,
                                "{\"v\":{\"parallelism\":{\"lowerBound\":1,\"upperBound\":4}}}");
                    }
                });
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private FlinkRest flink() {
        return new FlinkRest(URI.create("http://127.0.0.1:" + server.getAddress().getPort()));
    }

    private static void answer(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
        exchange.close();
    }

    @Test
    void readsAndSetsRequirements() throws Exception {
        FlinkRest flink = flink();
        assertThat(
                        flink.get("/jobs/adaptive/resource-requirements")
                                .at("/v/parallelism/upperBound")
                                .asInt())
                .isEqualTo(4);
        flink.put(
                "/jobs/adaptive/resource-requirements",
                new ObjectMapper().readTree("{\"v\":{\"parallelism\":{\"upperBound\":6}}}"));
        assertThat(lastPut.get()).contains("\"upperBound\":6");
    }

    @Test
    void flinksErrorIsReducedToItsReason() {
        assertThatThrownBy(() -> flink().get("/jobs/default/resource-requirements"))
                .isInstanceOfSatisfying(
                        FlinkRest.FlinkRestException.class,
                        e -> assertThat(e.status()).isEqualTo(500))
                .hasMessageContaining(
                        "Internal server error.; The DefaultScheduler does not support changing"
                                + " the parallelism without a job restart.")
                .hasMessageNotContaining("Foo.java");
    }

    @Test
    void anUnknownPathKeepsItsStatus() {
        assertThatThrownBy(() -> flink().get("/jobs/unknown"))
                .isInstanceOfSatisfying(
                        FlinkRest.FlinkRestException.class,
                        e -> assertThat(e.status()).isEqualTo(404));
    }

    @Test
    void anEndpointThatIsNotThereIsNamed() throws Exception {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        FlinkRest nowhere = new FlinkRest(URI.create("http://127.0.0.1:" + port));
        assertThatThrownBy(() -> nowhere.get("/jobs/x"))
                .isInstanceOfSatisfying(
                        FlinkRest.FlinkRestException.class, e -> assertThat(e.status()).isZero())
                .hasMessageContaining("did not answer")
                .hasMessageContaining("127.0.0.1:" + port);
    }
}
