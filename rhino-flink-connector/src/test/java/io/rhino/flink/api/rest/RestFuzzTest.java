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

import io.netty.buffer.PooledByteBufAllocator;
import io.rhino.core.routing.RoutingTable;
import io.rhino.flink.config.RhinoRuntimeSettings;
import io.rhino.handover.HandoverManager;
import io.rhino.handover.operation.Reconfiguration;
import java.io.File;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The REST fuzz campaign: seeded malformed requests (and a few valid ones) against the real server
 * over a directory of operators with real handover managers. A smoke of {@value #SMOKE_REQUESTS}
 * requests runs with every build; {@code -Drhino.fuzz.requests=10000} runs the campaign, {@code
 * -Drhino.fuzz.seed=S} replays one ({@code random} for a new one; every build uses 38). Checks: no
 * 5xx, every request answered or its connection closed within the bound, every error in the API's
 * shape, a kept-alive connection answers after an error, idle connections closed, no file
 * descriptors or direct memory lost, the routing table unchanged and only the valid moves accepted.
 */
class RestFuzzTest {

    private static final Logger LOG = LoggerFactory.getLogger(RestFuzzTest.class);

    static final int SMOKE_REQUESTS = 400;
    private static final String TOKEN = "fuzz-token";
    private static final Duration IDLE = Duration.ofSeconds(1);
    private static final Duration REQUEST = Duration.ofMillis(500);
    private static final Duration ANSWER_BOUND = REQUEST.plusSeconds(4);
    private static final int IDLE_CONNECTIONS = 40;

    @Test
    void malformedRequestsNeverFailTheServerHangLeakOrChangeTheTable() throws Exception {
        int count = Integer.getInteger("rhino.fuzz.requests", SMOKE_REQUESTS);
        String seedProperty = System.getProperty("rhino.fuzz.seed", "38");
        long seed =
                seedProperty.equals("random") ? System.nanoTime() : Long.parseLong(seedProperty);
        try (TestOperators operators = new TestOperators()) {
            HandoverManager manager = operators.add("fuzz-job", "fuzzed", true, TOKEN);
            operators.add("other-job", "other", true, "other-token");
            RhinoRestServer.Lease lease =
                    RhinoRestServer.acquire(
                            new RhinoRuntimeSettings.Rest(
                                    true, "127.0.0.1", 0, null, IDLE, REQUEST, 64, null),
                            operators,
                            1.2);
            try {
                InetSocketAddress address = RhinoRestServer.address().orElseThrow();
                RestFuzzCampaign campaign = new RestFuzzCampaign(address, ANSWER_BOUND);
                java.util.function.IntUnaryOperator owner = manager.routingTable()::ownerOf;
                // warms the server's buffers and classes up before the baseline is taken
                campaign.run(seed + 1, 200, "fuzz-job", "fuzzed", TOKEN, owner, id -> end(manager));
                Thread.sleep(IDLE.toMillis() + 500);
                Resources before = Resources.sample();
                RoutingTable tableBefore = manager.routingTable();

                long start = System.nanoTime();
                RestFuzzCampaign.Outcome outcome =
                        campaign.run(
                                seed,
                                count,
                                "fuzz-job",
                                "fuzzed",
                                TOKEN,
                                owner,
                                id -> end(manager));
                Duration took = Duration.ofNanos(System.nanoTime() - start);

                List<String> idleViolations = idleConnectionsAreClosed(address);
                Thread.sleep(IDLE.toMillis() + 500);
                Resources after = Resources.sample();

                LOG.info(
                        "REST fuzz: seed {}, {} requests in {} s; statuses {}; closed without an"
                                + " answer {}; kept alive after an error and answered again {};"
                                + " valid moves {} of which accepted {}; {} idle connections;"
                                + " before {}; after {}; violations {}",
                        seed,
                        outcome.requests(),
                        took.toSeconds(),
                        outcome.statusCounts(),
                        outcome.closedWithoutAnswer(),
                        outcome.keptAliveAfterError(),
                        outcome.validMoves(),
                        outcome.acceptedMoves().size(),
                        IDLE_CONNECTIONS,
                        before,
                        after,
                        outcome.violations().size() + idleViolations.size());
                assertThat(outcome.violations()).as("seed %s", seed).isEmpty();
                assertThat(idleViolations).as("seed %s", seed).isEmpty();
                assertThat(manager.routingTable())
                        .as(
                                "no request changed the routing table (every accepted move was ended"
                                        + " before it switched)")
                        .isEqualTo(tableBefore);
                List<String> started = new ArrayList<>();
                for (Reconfiguration r :
                        operators.reconfigurations().recent("fuzz-job", "fuzzed")) {
                    started.add(r.requestId());
                }
                assertThat(started)
                        .as("reconfigurations started, seed %s", seed)
                        .allMatch(id -> id.startsWith("fuzz-move-"));
                assertThat(operators.reconfigurations().recent("other-job", "other"))
                        .as("the other job's token was never sent")
                        .isEmpty();
                assertThat(after.fileDescriptors())
                        .as("file descriptors, seed %s", seed)
                        .isLessThanOrEqualTo(before.fileDescriptors() + 5);
                assertThat(after.nettyDirectBytes())
                        .as("Netty's direct memory, seed %s", seed)
                        .isLessThanOrEqualTo(before.nettyDirectBytes() + 4L * 1024 * 1024);
            } finally {
                lease.close();
            }
        }
    }

    /** Ends an accepted move's handover before it switched, so that the table stays. */
    private static void end(HandoverManager manager) {
        manager.onJobFailure(new IllegalStateException("the fuzz campaign ends this handover"));
    }

    /** Opens connections, some after one answered request, and checks the server closes all. */
    private static List<String> idleConnectionsAreClosed(InetSocketAddress address)
            throws Exception {
        List<RawHttpConnection> connections = new ArrayList<>();
        List<String> violations = new ArrayList<>();
        try {
            for (int i = 0; i < IDLE_CONNECTIONS; i++) {
                RawHttpConnection c =
                        new RawHttpConnection(address, (int) IDLE.plusSeconds(3).toMillis());
                if (i % 2 == 0) {
                    c.send("GET /rhino/v1/openapi.json HTTP/1.1\r\nHost: localhost\r\n\r\n");
                    c.answer();
                }
                connections.add(c);
            }
            for (int i = 0; i < connections.size(); i++) {
                if (connections.get(i).read() != RawHttpConnection.End.CLOSED) {
                    violations.add("idle connection " + i + " still open after " + IDLE);
                }
            }
        } finally {
            for (RawHttpConnection c : connections) {
                c.close();
            }
        }
        return violations;
    }

    /** The process's open file descriptors and direct memory. */
    record Resources(long fileDescriptors, long nettyDirectBytes, long jvmDirectBytes) {
        static Resources sample() {
            System.gc();
            String[] fds = new File("/proc/self/fd").list();
            long jvmDirect = 0;
            for (BufferPoolMXBean pool :
                    ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
                if (pool.getName().equals("direct")) {
                    jvmDirect = pool.getMemoryUsed();
                }
            }
            return new Resources(
                    fds == null ? -1 : fds.length,
                    PooledByteBufAllocator.DEFAULT.metric().usedDirectMemory(),
                    jvmDirect);
        }
    }
}
