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

package io.rhino.flink.state;

import io.rhino.flink.replication.PeerVnodeReplication;
import io.rhino.flink.replication.VnodeReplicaCollector;
import io.rhino.replication.ReplicationConfig;
import io.rhino.replication.ReplicationService;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/** Replication services and chains as the tests of replicated vnode checkpoints build them. */
final class ReplicationFixtures {

    private static final long TIMEOUT_MILLIS = 30_000;

    private ReplicationFixtures() {}

    /**
     * A service on {@code host} with its store in {@code directory}, as a TaskManager runs it: its
     * store checks every listing it receives.
     */
    static ReplicationService service(String host, Path directory, String secret) throws Exception {
        ReplicationService service =
                ReplicationService.start(
                        ReplicationConfig.anyPort(host, directory, secret, Duration.ofSeconds(30)));
        service.store().listen(new VnodeReplicaCollector(service.store()));
        return service;
    }

    /**
     * A subtask's replication from {@code primary} to {@code member}, capturing under {@code
     * captureRoot}; the bytes its rounds sent are added to {@code sent}.
     */
    static PeerVnodeReplication chain(
            ReplicationService primary,
            ReplicationService member,
            String prefix,
            Path captureRoot,
            AtomicLong sent) {
        return new PeerVnodeReplication(
                primary,
                List.of(member.address()),
                prefix,
                captureRoot,
                TIMEOUT_MILLIS,
                new PeerVnodeReplication.Listener() {
                    @Override
                    public void replicated(long checkpointId, long bytesSent, long roundMillis) {
                        sent.addAndGet(bytesSent);
                    }

                    @Override
                    public void failed(long checkpointId, Throwable cause) {}
                });
    }
}
