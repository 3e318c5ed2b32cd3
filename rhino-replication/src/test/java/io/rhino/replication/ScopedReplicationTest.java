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

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rhino.replication.protocol.ReplicationMessage;
import io.rhino.replication.testing.ChangingFileTree;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Services that take scoped peers only, as every TaskManager's does: each job operator's replicas
 * live under its scope, reached only by peers proving that scope's secret, and a peer of one scope
 * touches nothing of another's. Real services and raw sockets.
 */
@Timeout(120)
class ScopedReplicationTest {

    private static final String JOB_A = "job-a/counts";
    private static final String JOB_B = "job-b/counts";
    private static final String SECRET_A = "secret-of-job-a";
    private static final String SECRET_B = "secret-of-job-b";

    @TempDir Path temp;

    private final LiveServices live = new LiveServices();

    private ReplicationService service(String name) throws IOException {
        return live.start(
                ReplicationConfig.anyPort(
                                "127.0.0.1", temp.resolve(name), null, Duration.ofSeconds(30))
                        .withScopesOnly());
    }

    private RawPeer peer(ReplicationService service) throws IOException {
        return live.peer(service);
    }

    @AfterEach
    void stop() throws Exception {
        live.close();
    }

    @Test
    void aScopesFilesTravelAlongItsChainAndComeBackByFetch() throws Exception {
        ReplicationService a = service("a");
        ReplicationService b = service("b");
        ReplicationService c = service("c");
        for (ReplicationService service : List.of(a, b, c)) {
            service.registerScope(JOB_A, SECRET_A);
        }
        Path file = file("state.sst", 300_000);

        a.replicate(file, JOB_A + "/vnode-1/i-1/1.sst", List.of(b.address(), c.address()))
                .get(30, TimeUnit.SECONDS);
        assertThat(Files.readAllBytes(c.store().file(JOB_A + "/vnode-1/i-1/1.sst").orElseThrow()))
                .isEqualTo(Files.readAllBytes(file));

        ReplicationService d = service("d");
        d.registerScope(JOB_A, SECRET_A);
        d.fetch(c.address(), JOB_A + "/vnode-1/i-1/1.sst", JOB_A + "/_fetched/x/1.sst")
                .get(30, TimeUnit.SECONDS);
        assertThat(Files.readAllBytes(d.store().file(JOB_A + "/_fetched/x/1.sst").orElseThrow()))
                .isEqualTo(Files.readAllBytes(file));
        assertThat(d.fetch(c.address(), JOB_A + "/vnode-1/i-1/1.sst", "elsewhere/1"))
                .failsWithin(Duration.ofSeconds(5))
                .withThrowableOfType(Exception.class)
                .withMessageContaining("outside the scope 'job-a/counts'");
    }

    @Test
    void aPeerWithoutAScopeOrWithAnUnknownOneIsRefused() throws Exception {
        ReplicationService a = service("a");
        a.registerScope(JOB_A, SECRET_A);

        ReplicationMessage unscoped = peer(a).authenticateIn("", "", "peer:1");
        assertThat(unscoped).isInstanceOf(ReplicationMessage.Fail.class);
        assertThat(((ReplicationMessage.Fail) unscoped).reason()).contains("named no scope");

        ReplicationMessage unknown = peer(a).authenticateIn("job-c/counts", "any", "peer:1");
        assertThat(((ReplicationMessage.Fail) unknown).reason())
                .contains("scope 'job-c/counts', which no job runs here");

        ReplicationMessage wrongSecret = peer(a).authenticateIn(JOB_A, SECRET_B, "peer:1");
        assertThat(((ReplicationMessage.Fail) wrongSecret).reason())
                .contains("does not know that job operator's secret");
        assertThat(a.stats().refusedRequests()).isEqualTo(3);
    }

    @Test
    void aPeerOfOneScopeTouchesNothingOfAnother() throws Exception {
        ReplicationService a = service("a");
        ReplicationService b = service("b");
        a.registerScope(JOB_A, SECRET_A);
        a.registerScope(JOB_B, SECRET_B);
        b.registerScope(JOB_A, SECRET_A);
        a.replicate(file("a.sst", 1000), JOB_A + "/vnode-1/a.sst", List.of(b.address()))
                .get(30, TimeUnit.SECONDS);

        // a member of job B at b's address, which job A's replicas do not concern
        RawPeer peerOfB = peer(a);
        assertThat(peerOfB.authenticateIn(JOB_B, SECRET_B, b.address().toString()))
                .isInstanceOf(ReplicationMessage.Welcome.class);
        peerOfB.send(new ReplicationMessage.Open(1, JOB_A + "/vnode-1/a.sst", 10, 0, List.of()));
        assertThat(failure(peerOfB)).contains("outside the scope 'job-b/counts'");
        peerOfB.send(new ReplicationMessage.Open(2, "job-a/../job-a/counts/x", 10, 0, List.of()));
        assertThat(failure(peerOfB)).isNotEmpty();
        peerOfB.send(
                new ReplicationMessage.Fetch(
                        3, JOB_A + "/vnode-1/a.sst", JOB_B + "/stolen", b.address().toString()));
        assertThat(failure(peerOfB)).contains("outside the scope 'job-b/counts'");
        peerOfB.send(
                new ReplicationMessage.Fetch(
                        4, JOB_B + "/x", JOB_A + "/vnode-1/a.sst", b.address().toString()));
        assertThat(failure(peerOfB)).contains("outside the scope 'job-b/counts'");

        assertThat(a.store().file(JOB_A + "/vnode-1/a.sst")).isEmpty();
        assertThat(b.store().file(JOB_A + "/vnode-1/a.sst")).isPresent();
        assertThat(b.store().file(JOB_B + "/stolen")).isEmpty();
        assertThat(ChangingFileTree.partialFiles(a.store().root())).isEmpty();
    }

    @Test
    void aForgottenScopeIsRefusedAndItsConnectionsClose() throws Exception {
        ReplicationService a = service("a");
        ReplicationService b = service("b");
        a.registerScope(JOB_A, SECRET_A);
        b.registerScope(JOB_A, SECRET_A);
        Path file = file("a.sst", 1000);
        a.replicate(file, JOB_A + "/vnode-1/1.sst", List.of(b.address())).get(30, TimeUnit.SECONDS);

        b.forgetScope(JOB_A);

        // the open connection closes (a stream on it may fail as "lost"), a new one is refused
        assertThat(a.replicate(file, JOB_A + "/vnode-1/2.sst", List.of(b.address())))
                .failsWithin(Duration.ofSeconds(30));
        // a request may still meet the closing connection and fail as "lost"; the next one on a
        // new connection is refused with the reason
        List<String> failures = new ArrayList<>();
        for (int attempt = 3; attempt <= 5 && !refusedAsForgotten(failures); attempt++) {
            String target = JOB_A + "/vnode-1/" + attempt + ".sst";
            CompletableFuture<?> refused = a.replicate(file, target, List.of(b.address()));
            assertThat(refused).failsWithin(Duration.ofSeconds(30));
            failures.add(failureMessage(refused));
            assertThat(b.store().file(target)).isEmpty();
        }
        assertThat(refusedAsForgotten(failures)).as("failures: %s", failures).isTrue();
        assertThat(b.store().file(JOB_A + "/vnode-1/2.sst")).isEmpty();
    }

    private static boolean refusedAsForgotten(List<String> failures) {
        return failures.stream().anyMatch(f -> f.contains("which no job runs here"));
    }

    private static String failureMessage(CompletableFuture<?> failed) {
        try {
            failed.join();
            return "";
        } catch (CompletionException e) {
            return String.valueOf(
                    e.getCause() != null ? e.getCause().getMessage() : e.getMessage());
        } catch (java.util.concurrent.CancellationException e) {
            return String.valueOf(e.getMessage());
        }
    }

    @Test
    void aScopeNeedsASecretAndAPathPrefix() throws Exception {
        ReplicationService a = service("a");
        assertThatThrownBy(() -> a.registerScope(JOB_A, null)).hasMessageContaining("secret");
        assertThatThrownBy(() -> a.registerScope("", SECRET_A)).hasMessageContaining("prefix");
        assertThatThrownBy(() -> a.registerScope("job/", SECRET_A)).hasMessageContaining("prefix");
        assertThatThrownBy(() -> a.registerScope("../x", SECRET_A))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private static String failure(RawPeer peer) throws IOException {
        for (ReplicationMessage message = peer.read(); message != null; message = peer.read()) {
            if (message instanceof ReplicationMessage.Fail fail) {
                return fail.reason();
            }
        }
        throw new AssertionError("the connection closed without a refusal");
    }

    private Path file(String name, int bytes) throws IOException {
        byte[] content = new byte[bytes];
        new java.util.Random(bytes).nextBytes(content);
        return Files.write(temp.resolve(name), content);
    }
}
