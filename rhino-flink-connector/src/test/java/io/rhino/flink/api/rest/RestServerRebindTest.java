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

import static org.assertj.core.api.Assertions.assertThat;

import io.rhino.flink.config.RhinoRuntimeSettings;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The REST server's port is held by another socket when the first Rhino job starts (a JobManager
 * restarted while the old process's port lingers): the job runs on, and the server comes up on that
 * port once it is free, while a job still holds a lease; without one, nothing keeps trying.
 */
class RestServerRebindTest {

    private static final Duration IDLE = Duration.ofSeconds(5);
    private static final Duration REQUEST = Duration.ofSeconds(2);

    @Test
    @Timeout(60)
    void aTakenPortIsBoundOnceFreedWhileAJobHoldsALease() throws Exception {
        try (TestOperators operators = new TestOperators()) {
            operators.add("job", "op", true, null);
            ServerSocket holder = holdAPort();
            int port = holder.getLocalPort();
            RhinoRestServer.Lease lease = RhinoRestServer.acquire(settings(port), operators, 1.2);
            try {
                assertThat(RhinoRestServer.address())
                        .as("no server while the port is held")
                        .isEmpty();
                Thread.sleep(RhinoRestServer.REBIND_EVERY_MILLIS + 500);
                assertThat(RhinoRestServer.address())
                        .as("still none while the port is held")
                        .isEmpty();

                holder.close();
                InetSocketAddress bound = awaitBound(Duration.ofSeconds(20));
                assertThat(bound.getPort()).isEqualTo(port);
                HttpResponse<String> jobs =
                        HttpClient.newHttpClient()
                                .send(
                                        HttpRequest.newBuilder(
                                                        URI.create(
                                                                "http://127.0.0.1:"
                                                                        + port
                                                                        + "/rhino/v1/jobs"))
                                                .build(),
                                        HttpResponse.BodyHandlers.ofString());
                assertThat(jobs.statusCode()).as(jobs.body()).isEqualTo(200);
                assertThat(jobs.body()).contains("\"job\"");
            } finally {
                lease.close();
            }
            assertThat(RhinoRestServer.address()).as("stopped with the last lease").isEmpty();
            assertThat(rebindThreadAlive()).isFalse();
        }
    }

    @Test
    @Timeout(60)
    void nothingKeepsTryingOnceTheLastLeaseIsReleased() throws Exception {
        try (TestOperators operators = new TestOperators();
                ServerSocket holder = holdAPort()) {
            operators.add("job", "op", true, null);
            RhinoRestServer.Lease lease =
                    RhinoRestServer.acquire(settings(holder.getLocalPort()), operators, 1.2);
            assertThat(rebindThreadAlive()).as("a thread tries the port again").isTrue();
            lease.close();
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (rebindThreadAlive() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(rebindThreadAlive())
                    .as("the retrying thread ended with the lease")
                    .isFalse();
            holder.close();
            Thread.sleep(RhinoRestServer.REBIND_EVERY_MILLIS + 500);
            assertThat(RhinoRestServer.address()).as("no server after the job ended").isEmpty();
        }
    }

    private static RhinoRuntimeSettings.Rest settings(int port) {
        return new RhinoRuntimeSettings.Rest(true, "127.0.0.1", port, null, IDLE, REQUEST, 8, null);
    }

    private static ServerSocket holdAPort() throws Exception {
        return new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"));
    }

    private static InetSocketAddress awaitBound(Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            Optional<InetSocketAddress> address = RhinoRestServer.address();
            if (address.isPresent()) {
                return address.get();
            }
            Thread.sleep(50);
        }
        throw new AssertionError("The REST server did not bind its freed port within " + timeout);
    }

    private static boolean rebindThreadAlive() {
        return Thread.getAllStackTraces().keySet().stream()
                .anyMatch(t -> t.isAlive() && t.getName().equals("rhino-rest-rebind"));
    }
}
