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

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Real services and raw peers a test starts, closed together after it: peers first, so that no
 * service waits on a socket of the test.
 */
final class LiveServices implements AutoCloseable {

    private final List<ReplicationService> services = new ArrayList<>();
    private final List<RawPeer> peers = new ArrayList<>();

    ReplicationService start(ReplicationConfig config) throws IOException {
        ReplicationService service = ReplicationService.start(config);
        services.add(service);
        return service;
    }

    /** A raw socket to {@code service}, which has sent its challenge or will. */
    RawPeer peer(ReplicationService service) throws IOException {
        RawPeer peer = new RawPeer(service.address());
        peers.add(peer);
        return peer;
    }

    @Override
    public void close() throws Exception {
        for (RawPeer peer : peers) {
            peer.close();
        }
        services.forEach(ReplicationService::close);
    }
}
