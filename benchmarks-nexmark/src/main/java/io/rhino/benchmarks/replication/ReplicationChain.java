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

package io.rhino.benchmarks.replication;

import io.rhino.benchmarks.cluster.EmbeddedCluster;
import io.rhino.replication.PeerAddress;
import io.rhino.replication.ReplicationConfig;
import io.rhino.replication.ReplicationService;
import io.rhino.replication.ReplicationTls;
import io.rhino.replication.WindowedRound;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * {@code factor} replication services in this JVM, member i on 127.0.0.(i+1) with its own store
 * under one directory, as TaskManagers on {@code factor} hosts. Member 0 is the primary: it holds
 * the originals and replicates them along the chain of the others, so every file ends up on {@code
 * factor} members. Closing stops the services and deletes their stores.
 */
public final class ReplicationChain implements AutoCloseable {

    private final List<ReplicationService> members;
    private final Path dir;
    private final Duration timeout;
    private final int filesAtOnce;

    private ReplicationChain(
            List<ReplicationService> members, Path dir, Duration timeout, int filesAtOnce) {
        this.members = members;
        this.dir = dir;
        this.timeout = timeout;
        this.filesAtOnce = filesAtOnce;
    }

    /**
     * Starts the members; {@code timeout} bounds each replication; {@code tls} (null: none) secures
     * every hop; the primary sends {@code streamsPerPeer} files at once down the chain; a round
     * keeps {@code filesAtOnce} of its files in flight, as a vnode's checkpoint round does ({@link
     * WindowedRound}), or all of them with 0.
     */
    public static ReplicationChain start(
            Path dir,
            int factor,
            Duration timeout,
            ReplicationTls tls,
            int streamsPerPeer,
            int filesAtOnce)
            throws IOException {
        String secret = UUID.randomUUID().toString();
        List<ReplicationService> members = new ArrayList<>();
        try {
            for (int i = 0; i < factor; i++) {
                members.add(
                        ReplicationService.start(
                                ReplicationConfig.anyPort(
                                                "127.0.0." + (i + 1),
                                                dir.resolve("member-" + i),
                                                secret,
                                                timeout)
                                        .withTls(tls)
                                        .withStreamsPerPeer(streamsPerPeer)));
            }
        } catch (IOException | RuntimeException e) {
            members.forEach(ReplicationService::close);
            throw e;
        }
        return new ReplicationChain(members, dir, timeout, filesAtOnce);
    }

    /** The members after the primary, nearest first: what {@code replicate} takes as chain. */
    public List<PeerAddress> chain() {
        return members.subList(1, members.size()).stream()
                .map(ReplicationService::address)
                .toList();
    }

    /** Replicates {@code files} (by replica path) from the primary; returns once all are stored. */
    public void replicate(Map<String, Path> files) throws Exception {
        if (filesAtOnce > 0) {
            WindowedRound.replicate(
                    members.get(0), files, chain(), filesAtOnce, timeout.toMillis(), path -> {});
        } else {
            members.get(0)
                    .replicateAll(files, chain())
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /** Deletes {@code replicaPaths} from every member's store. */
    public void delete(Iterable<String> replicaPaths) throws IOException {
        for (ReplicationService member : members) {
            for (String path : replicaPaths) {
                member.store().delete(path);
            }
        }
    }

    /**
     * Checks that every member after the primary holds a complete copy of each file, of the
     * original's size (the receivers already verified the checksums before acknowledging).
     *
     * @throws IllegalStateException naming the first copy that is missing or of another size
     */
    public void verifySizes(Map<String, Path> files) throws IOException {
        for (ReplicationService member : members.subList(1, members.size())) {
            for (Map.Entry<String, Path> file : files.entrySet()) {
                long expected = Files.size(file.getValue());
                Path copy =
                        member.store()
                                .file(file.getKey())
                                .orElseThrow(
                                        () ->
                                                new IllegalStateException(
                                                        "no copy of "
                                                                + file.getKey()
                                                                + " on "
                                                                + member.address()));
                long actual = Files.size(copy);
                if (actual != expected) {
                    throw new IllegalStateException(
                            "the copy of "
                                    + file.getKey()
                                    + " on "
                                    + member.address()
                                    + " has "
                                    + actual
                                    + " bytes, the original "
                                    + expected);
                }
            }
        }
    }

    @Override
    public void close() throws IOException {
        members.forEach(ReplicationService::close);
        EmbeddedCluster.deleteRecursively(dir);
    }
}
