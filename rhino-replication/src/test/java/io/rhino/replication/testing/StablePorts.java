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

package io.rhino.replication.testing;

import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Ports for servers that another process binds later, perhaps again after a restart (a JobManager's
 * REST and RPC ports, Rhino's REST port, a TaskManager's replication port), chosen below the
 * kernel's ephemeral range. A port from that range, free when chosen, can meanwhile be the local
 * port of any outgoing connection on the machine (a TaskManager reconnecting, a client polling),
 * and the restarted process then cannot bind it for as long as that connection lives.
 */
public final class StablePorts {

    private static final Path EPHEMERAL_RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
    private static final int LOWEST = 10_000;
    // Linux's default lower bound of the ephemeral range
    private static final int DEFAULT_EPHEMERAL_LOW = 32_768;

    // never handed out twice in this JVM, so two servers of one test never share one
    private static final Set<Integer> HANDED_OUT = new HashSet<>();

    private StablePorts() {}

    /** A port free on the loopback address now, below the ephemeral range. */
    public static synchronized int next() throws IOException {
        int below = ephemeralLow();
        for (int attempt = 0; attempt < 1_000; attempt++) {
            int port = ThreadLocalRandom.current().nextInt(LOWEST, below);
            if (HANDED_OUT.contains(port)) {
                continue;
            }
            try (ServerSocket socket = new ServerSocket()) {
                socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1);
            } catch (BindException taken) {
                continue;
            }
            HANDED_OUT.add(port);
            return port;
        }
        throw new IOException("No free port between " + LOWEST + " and " + below);
    }

    /** The lowest ephemeral port, e.g. 32768; ports below it are only bound explicitly. */
    private static int ephemeralLow() {
        try {
            String[] range = Files.readString(EPHEMERAL_RANGE).trim().split("\\s+");
            int low = Integer.parseInt(range[0]);
            return low > LOWEST + 1_000 ? low : DEFAULT_EPHEMERAL_LOW;
        } catch (IOException | RuntimeException e) {
            return DEFAULT_EPHEMERAL_LOW;
        }
    }
}
