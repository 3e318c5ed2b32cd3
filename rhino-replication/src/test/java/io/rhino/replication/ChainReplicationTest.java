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

import io.rhino.replication.testing.ChangingFileTree;
import io.rhino.replication.testing.TcpRelay;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Chain replication between real services on loopback, each on its own address (127.0.0.1, .2, .3)
 * with its own store, as TaskManagers on three hosts.
 */
@Timeout(120)
class ChainReplicationTest {

    private static final String SECRET = "replication-test-secret";

    @TempDir Path temp;

    private final List<ReplicationService> services = new ArrayList<>();

    private ReplicationService service(String host, String name, String secret) throws IOException {
        return service(
                ReplicationConfig.anyPort(
                        host, temp.resolve(name), secret, Duration.ofSeconds(60)));
    }

    private ReplicationService service(ReplicationConfig config) throws IOException {
        ReplicationService service = ReplicationService.start(config);
        services.add(service);
        return service;
    }

    @AfterEach
    void stop() {
        services.forEach(ReplicationService::close);
    }

    @Test
    void threeMembersHoldByteIdenticalVerifiedCopiesOfEveryFile() throws Exception {
        ReplicationService primary = service("127.0.0.1", "a", SECRET);
        ReplicationService second = service("127.0.0.2", "b", SECRET);
        ReplicationService third = service("127.0.0.3", "c", SECRET);
        Map<String, Path> files = new LinkedHashMap<>();
        files.put("job/op/vnode-3/000012.sst", randomFile("sst", 3 * 1024 * 1024 + 17));
        files.put("job/op/vnode-3/MANIFEST-000005", randomFile("manifest", 4_321));
        files.put("job/op/vnode-3/OPTIONS-000007", randomFile("options", 0));

        primary.replicateAll(files, List.of(second.address(), third.address()))
                .get(60, TimeUnit.SECONDS);

        for (ReplicationService member : List.of(second, third)) {
            for (Map.Entry<String, Path> file : files.entrySet()) {
                Path copy = member.store().file(file.getKey()).orElseThrow();
                assertThat(Files.mismatch(copy, file.getValue()))
                        .as("%s on %s", file.getKey(), member.address())
                        .isEqualTo(-1L);
                assertThat(member.store().verify(file.getKey())).isTrue();
            }
            assertThat(partialFiles(member)).isEmpty();
            assertThat(member.stats().filesStored()).isEqualTo(files.size());
            assertThat(member.stats().bytesReceived()).isEqualTo(3 * 1024 * 1024 + 17 + 4_321);
            assertThat(member.stats().refusedRequests()).isZero();
        }
        assertThat(primary.store().usedBytes()).as("the primary keeps its original only").isZero();
    }

    @Test
    void aMemberKilledMidTransferFailsTheRoundNamingItAndARepairedChainSucceeds() throws Exception {
        ReplicationService primary = service("127.0.0.1", "a", SECRET);
        ReplicationService second = service("127.0.0.2", "b", SECRET);
        ReplicationService third = service("127.0.0.3", "c", SECRET);
        Path big = randomFile("big", 256L * 1024 * 1024);

        CompletableFuture<Void> round =
                primary.replicate(
                        big, "job/op/vnode-1/big.sst", List.of(second.address(), third.address()));
        awaitPartialFile(third);
        third.close();

        assertThatThrownBy(() -> round.get(60, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .hasMessageContaining(third.address().toString());
        assertThat(second.store().file("job/op/vnode-1/big.sst")).isEmpty();
        assertThat(partialFiles(second)).isEmpty();

        primary.replicate(big, "job/op/vnode-1/big.sst", List.of(second.address()))
                .get(60, TimeUnit.SECONDS);
        assertThat(Files.mismatch(second.store().file("job/op/vnode-1/big.sst").orElseThrow(), big))
                .isEqualTo(-1L);
        // the chunks are file regions of one open file: the failed and the completed stream
        // both closed it
        awaitNotOpen(big);
    }

    /** Waits until this process holds no descriptor of {@code file} (Linux; skipped elsewhere). */
    private static void awaitNotOpen(Path file) throws Exception {
        Path descriptors = Path.of("/proc/self/fd");
        if (!Files.isDirectory(descriptors)) {
            return;
        }
        Path real = file.toRealPath();
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (true) {
            long open = 0;
            try (Stream<Path> fds = Files.list(descriptors)) {
                for (Path fd : fds.toList()) {
                    try {
                        open += Files.readSymbolicLink(fd).equals(real) ? 1 : 0;
                    } catch (IOException closedMeanwhile) {
                        // gone
                    }
                }
            }
            if (open == 0) {
                return;
            }
            assertThat(System.nanoTime())
                    .as("%d descriptors of %s still open", open, file)
                    .isLessThan(deadline);
            Thread.sleep(50);
        }
    }

    @Test
    void aByteFlippedOnDiskIsFoundByVerification() throws Exception {
        ReplicationService primary = service("127.0.0.1", "a", SECRET);
        ReplicationService second = service("127.0.0.2", "b", SECRET);
        Path file = randomFile("data", 100_000);
        primary.replicate(file, "j/o/v/1.sst", List.of(second.address())).get(30, TimeUnit.SECONDS);
        assertThat(second.store().verify("j/o/v/1.sst")).isTrue();

        Path copy = second.store().file("j/o/v/1.sst").orElseThrow();
        try (RandomAccessFile raw = new RandomAccessFile(copy.toFile(), "rw")) {
            raw.seek(50_000);
            int b = raw.read();
            raw.seek(50_000);
            raw.write(b ^ 0x01);
        }
        assertThat(second.store().verify("j/o/v/1.sst")).isFalse();
    }

    @Test
    void aMemberFetchesAHoldersVerifiedCopyAndIsRefusedWhatIsMissingDamagedOrOutside()
            throws Exception {
        ReplicationService primary = service("127.0.0.1", "a", SECRET);
        ReplicationService holder = service("127.0.0.2", "b", SECRET);
        ReplicationService fetcher = service("127.0.0.3", "c", SECRET);
        Path file = randomFile("fetched", 5 * 1024 * 1024 + 3);
        primary.replicate(file, "j/o/vnode-2/i-1/7.sst", List.of(holder.address()))
                .get(30, TimeUnit.SECONDS);

        fetcher.fetch(holder.address(), "j/o/vnode-2/i-1/7.sst", "_fetched/r1/7.sst")
                .get(30, TimeUnit.SECONDS);
        Path copy = fetcher.store().file("_fetched/r1/7.sst").orElseThrow();
        assertThat(Files.mismatch(copy, file)).isEqualTo(-1L);
        assertThat(fetcher.store().verify("_fetched/r1/7.sst")).isTrue();

        assertThatThrownBy(
                        () ->
                                fetcher.fetch(holder.address(), "j/o/vnode-2/none.sst", "_f/x")
                                        .get(30, TimeUnit.SECONDS))
                .hasMessageContaining("no replica of j/o/vnode-2/none.sst")
                .hasMessageContaining(holder.address().toString());
        assertThatThrownBy(
                        () ->
                                fetcher.fetch(holder.address(), "../a/secret", "_f/y")
                                        .get(30, TimeUnit.SECONDS))
                .hasMessageContaining(holder.address().toString());
        assertThatThrownBy(
                        () ->
                                fetcher.fetch(holder.address(), "j/o/vnode-2/i-1/7.sst", "../out")
                                        .get(30, TimeUnit.SECONDS))
                .hasCauseInstanceOf(IllegalArgumentException.class);

        Path stored = holder.store().file("j/o/vnode-2/i-1/7.sst").orElseThrow();
        try (RandomAccessFile raw = new RandomAccessFile(stored.toFile(), "rw")) {
            raw.seek(1_000_000);
            int b = raw.read();
            raw.seek(1_000_000);
            raw.write(b ^ 0x01);
        }
        assertThatThrownBy(
                        () ->
                                fetcher.fetch(
                                                holder.address(),
                                                "j/o/vnode-2/i-1/7.sst",
                                                "_fetched/r2/7.sst")
                                        .get(30, TimeUnit.SECONDS))
                .hasMessageContaining("damaged");
        assertThat(fetcher.store().file("_fetched/r2/7.sst")).isEmpty();
        assertThat(partialFiles(fetcher)).isEmpty();
    }

    @Test
    void aFetchFromAPeerWithoutTheSecretFails() throws Exception {
        ReplicationService holder = service("127.0.0.2", "b", SECRET);
        ReplicationService stranger = service("127.0.0.3", "c", "another-secret");
        assertThatThrownBy(
                        () ->
                                stranger.fetch(holder.address(), "j/o/v/1.sst", "_f/1.sst")
                                        .get(30, TimeUnit.SECONDS))
                .hasMessageContaining("authentication failed");
    }

    @Test
    void pathsOutsideTheStoreAreRefusedAndNothingIsWritten() throws Exception {
        ReplicationService primary = service("127.0.0.1", "a", SECRET);
        ReplicationService second = service("127.0.0.2", "b", SECRET);
        Path file = randomFile("data", 1_000);
        for (String bad :
                List.of("../escape.sst", "job/../../escape", "/etc/passwd", "a//b", "x/.hidden")) {
            assertThatThrownBy(
                            () ->
                                    primary.replicate(file, bad, List.of(second.address()))
                                            .get(30, TimeUnit.SECONDS))
                    .as(bad)
                    .hasMessageContaining("replica path");
        }
        try (Stream<Path> all = Files.walk(temp)) {
            assertThat(all.filter(p -> p.getFileName().toString().startsWith("escape"))).isEmpty();
        }
        assertThat(second.store().usedBytes()).isZero();
    }

    @Test
    void aPeerWithoutTheSecretIsRefused() throws Exception {
        ReplicationService intruder = service("127.0.0.1", "x", "wrong-secret");
        ReplicationService guarded = service("127.0.0.2", "b", SECRET);
        Path file = randomFile("data", 1_000);

        assertThatThrownBy(
                        () ->
                                intruder.replicate(file, "j/o/v/1.sst", List.of(guarded.address()))
                                        .get(30, TimeUnit.SECONDS))
                .hasMessageContaining("authentication failed")
                .hasMessageContaining("rhino.replication.secret");
        assertThat(guarded.store().usedBytes()).isZero();
    }

    @Test
    void memoryStaysBoundedReplicatingAFileFarLargerThanTheWindow() throws Exception {
        ReplicationService primary = service("127.0.0.1", "a", SECRET);
        ReplicationService second = service("127.0.0.2", "b", SECRET);
        ReplicationService third = service("127.0.0.3", "c", SECRET);
        Path big = randomFile("big", 512L * 1024 * 1024);
        AtomicLong peak = new AtomicLong();
        CompletableFuture<Void> round =
                primary.replicate(big, "j/o/v/big.sst", List.of(second.address(), third.address()));
        while (!round.isDone()) {
            peak.accumulateAndGet(usedNettyMemory(), Math::max);
            Thread.sleep(5);
        }
        round.get();

        assertThat(Files.mismatch(third.store().file("j/o/v/big.sst").orElseThrow(), big))
                .isEqualTo(-1L);
        // Each of the two receiving hops holds at most its credit window (16 x 64 KiB), the
        // next hop's write buffer up to its high-water mark (1 MiB), one read loop's socket
        // buffers (about 1 MiB) and the frame decoder's buffer (up to 2 MiB): 10 MiB. Counted as
        // the bytes of buffers in use, not the pool's 4 MiB chunks, which vary with how
        // allocations spread over arenas. Runs peak at 4-6.5 MiB; when chunks were slices of the
        // decoder's buffer they pinned it, and peaks reached 13-29 MiB. Without flow control the
        // reader would buffer most of the 512 MB.
        assertThat(peak.get()).as("the transfer went through Netty's pool").isPositive();
        assertThat(peak.get())
                .as("Netty memory in use at its peak while replicating 512 MB")
                .isLessThan(12L * 1024 * 1024);
    }

    @Test
    void memoryStaysBoundedWhileManyFilesWaitForAStalledMember() throws Exception {
        ReplicationService primary = service("127.0.0.1", "a", SECRET);
        ReplicationService second = service("127.0.0.2", "b", SECRET);
        ReplicationService third = service("127.0.0.3", "c", SECRET);
        Map<String, Path> files = new LinkedHashMap<>();
        for (int i = 0; i < 48; i++) {
            files.put("j/o/v/" + i + ".sst", randomFile("many-" + i, 2L * 1024 * 1024));
        }
        AtomicLong peak = new AtomicLong();
        try (TcpRelay stalled = TcpRelay.stalled("127.0.0.4", third.address())) {
            CompletableFuture<Void> round =
                    primary.replicateAll(files, List.of(second.address(), stalled.address()));
            // while the third member reads nothing, the second fills what it may hold
            long steadySince = System.nanoTime();
            while (System.nanoTime() - steadySince < Duration.ofSeconds(2).toNanos()) {
                long now = ReplicationMemory.inUseBytes();
                if (now > peak.get() + 64 * 1024) {
                    steadySince = System.nanoTime();
                }
                peak.accumulateAndGet(now, Math::max);
                Thread.sleep(5);
            }
            stalled.release();
            while (!round.isDone()) {
                peak.accumulateAndGet(ReplicationMemory.inUseBytes(), Math::max);
                Thread.sleep(5);
            }
            round.get();
        }

        for (Map.Entry<String, Path> file : files.entrySet()) {
            assertThat(
                            Files.mismatch(
                                    third.store().file(file.getKey()).orElseThrow(),
                                    file.getValue()))
                    .isEqualTo(-1L);
        }
        // The primary keeps at most rhino.replication.streams-per-peer (4) of its files open on
        // the connection to the second, which holds each one's credit window (1 MiB) waiting for
        // the third, plus its write buffer to the third (1 MiB) and its read buffers (about 3
        // MiB): 8 MiB. Were every file open at once, the second would hold 48 windows: 48 MiB.
        assertThat(peak.get())
                .as("Netty memory in use at its peak while 48 files wait for a stalled member")
                .isLessThan(12L * 1024 * 1024);
    }

    @Test
    void filesQueuedBehindAStalledMemberTimeOutCleanlyAndTheChainWorksOnceItRecovers()
            throws Exception {
        ReplicationService primary = primaryWithOneStreamPerPeer(Duration.ofSeconds(3));
        ReplicationService second = service("127.0.0.2", "b", SECRET);
        ReplicationService third = service("127.0.0.3", "c", SECRET);
        Map<String, Path> files = threeFilesOfEightMegabytes("queued");
        try (TcpRelay stalled = TcpRelay.stalled("127.0.0.4", third.address())) {
            List<PeerAddress> chain = List.of(second.address(), stalled.address());
            List<CompletableFuture<Void>> rounds = new ArrayList<>();
            files.forEach((path, file) -> rounds.add(primary.replicate(file, path, chain)));
            awaitPartialFile(second);
            Thread.sleep(500);
            assertThat(partialFiles(second))
                    .as("files open at once with one stream per peer")
                    .hasSize(1);

            for (CompletableFuture<Void> round : rounds) {
                // the first was open and stuck, the two others never left the queue
                assertThatThrownBy(() -> round.get(30, TimeUnit.SECONDS))
                        .isInstanceOf(ExecutionException.class)
                        .hasMessageContaining("timed out after PT3S");
            }
            stalled.release();
            // The stream to the second member still carries what was sent before the timeouts
            // (the stuck file's chunks, a queued file opened as the first was cancelled, then its
            // cancel); the next round travels behind it, so once the round is stored, every
            // timed-out stream has been dropped wherever it reached.
            primary.replicateAll(files, chain).get(30, TimeUnit.SECONDS);
            awaitNoPartialFiles(second);
            awaitNoPartialFiles(third);
        }
        long sent = 0;
        for (Path file : files.values()) {
            sent += Files.size(file);
        }
        for (ReplicationService member : List.of(second, third)) {
            assertThat(member.store().usedBytes())
                    .as("%s holds the files once, no leftover of the timed-out rounds", member)
                    .isEqualTo(sent);
        }
        for (Map.Entry<String, Path> file : files.entrySet()) {
            for (ReplicationService member : List.of(second, third)) {
                assertThat(
                                Files.mismatch(
                                        member.store().file(file.getKey()).orElseThrow(),
                                        file.getValue()))
                        .isEqualTo(-1L);
            }
        }
    }

    @Test
    void aRoundWhoseCallerStopsWaitingIsAbandonedAndHoldsUpNoLaterRound() throws Exception {
        ReplicationService primary = primaryWithOneStreamPerPeer(Duration.ofSeconds(60));
        ReplicationService second = service("127.0.0.2", "b", SECRET);
        ReplicationService third = service("127.0.0.3", "c", SECRET);
        Map<String, Path> abandoned = threeFilesOfEightMegabytes("old");
        Path fresh = randomFile("fresh", 1024 * 1024);
        try (TcpRelay stalled = TcpRelay.stalled("127.0.0.4", third.address())) {
            List<PeerAddress> chain = List.of(second.address(), stalled.address());
            CompletableFuture<Void> round = primary.replicateAll(abandoned, chain);
            awaitPartialFile(second);

            // a task's thread interrupted while it waits (Flink cancelled the task)
            Thread.currentThread().interrupt();
            assertThatThrownBy(() -> RoundWait.await(round, 60_000))
                    .isInstanceOf(InterruptedException.class);
            assertThat(round).isCancelled();
            awaitNoPartialFiles(second);

            // the next round goes alone: none of the abandoned files leaves after it
            nextRoundGoesAlone(primary, fresh, chain, stalled);
        }
        noneArrived(abandoned.keySet(), second, third);
    }

    /**
     * A round sent a file at a time that its timeout cuts short keeps the files the chain stored,
     * and names them to the caller, which then sends only the rest.
     */
    @Test
    void aWindowedRoundCutShortKeepsWhatTheChainStoredAndSaysWhich() throws Exception {
        ReplicationService primary = service("127.0.0.1", "a", SECRET);
        ReplicationService second = service("127.0.0.2", "b", SECRET);
        Map<String, Path> files = new LinkedHashMap<>();
        for (int i = 0; i < 3; i++) {
            files.put("j/o/v/first-" + i + ".sst", randomFile("first-" + i, 1024 * 1024));
        }
        files.put("j/o/v/last.sst", randomFile("last", 8L * 1024 * 1024));
        Set<String> stored = ConcurrentHashMap.newKeySet();
        // the link stops half a MiB into the last file
        try (TcpRelay link =
                TcpRelay.stalledAfter("127.0.0.4", second.address(), 7L * 512 * 1024)) {
            assertThatThrownBy(
                            () ->
                                    WindowedRound.replicate(
                                            primary,
                                            files,
                                            List.of(link.address()),
                                            1,
                                            3_000,
                                            stored::add))
                    .isInstanceOf(TimeoutException.class)
                    .hasMessageContaining("0 not started, 1 in flight");
            assertThat(stored)
                    .containsExactlyInAnyOrder(
                            "j/o/v/first-0.sst", "j/o/v/first-1.sst", "j/o/v/first-2.sst");
            link.release();
        }
        awaitNoPartialFiles(second);
        for (String path : stored) {
            assertThat(second.store().file(path))
                    .as(path)
                    .hasValueSatisfying(
                            copy -> assertThat(copy).hasSameBinaryContentAs(files.get(path)));
        }
        assertThat(second.store().file("j/o/v/last.sst")).isEmpty();
    }

    /**
     * The path a checkpoint's round takes in a job: Flink interrupts the waiting thread (cancel,
     * failover, aborted checkpoint), the file in flight is abandoned along the chain and the files
     * not started never leave.
     */
    @Test
    void anInterruptedWindowedRoundAbandonsItsFileInFlightAndStartsNoOther() throws Exception {
        ReplicationService primary = service("127.0.0.1", "a", SECRET);
        ReplicationService second = service("127.0.0.2", "b", SECRET);
        ReplicationService third = service("127.0.0.3", "c", SECRET);
        Map<String, Path> abandoned = threeFilesOfEightMegabytes("old");
        Path fresh = randomFile("fresh", 1024 * 1024);
        try (TcpRelay stalled = TcpRelay.stalled("127.0.0.4", third.address())) {
            List<PeerAddress> chain = List.of(second.address(), stalled.address());
            CompletableFuture<Throwable> outcome = new CompletableFuture<>();
            Thread task =
                    new Thread(
                            () -> {
                                try {
                                    WindowedRound.replicate(
                                            primary, abandoned, chain, 1, 60_000, path -> {});
                                    outcome.complete(null);
                                } catch (Exception e) {
                                    outcome.complete(e);
                                }
                            },
                            "snapshot-thread");
            task.start();
            awaitPartialFile(second);
            task.interrupt();
            assertThat(outcome.get(30, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
            awaitNoPartialFiles(second);

            nextRoundGoesAlone(primary, fresh, chain, stalled);
        }
        noneArrived(abandoned.keySet(), second, third);
    }

    /** Replicates {@code fresh} down the stalled chain, releases it and waits for the round. */
    private static void nextRoundGoesAlone(
            ReplicationService primary, Path fresh, List<PeerAddress> chain, TcpRelay stalled)
            throws Exception {
        CompletableFuture<Void> next = primary.replicate(fresh, "j/o/v/fresh.sst", chain);
        stalled.release();
        next.get(30, TimeUnit.SECONDS);
    }

    /** No copy, whole or partial, of any of {@code paths} on {@code second} and {@code third}. */
    private static void noneArrived(
            Iterable<String> paths, ReplicationService second, ReplicationService third)
            throws Exception {
        awaitNoPartialFiles(third);
        for (ReplicationService member : List.of(second, third)) {
            for (String path : paths) {
                assertThat(member.store().file(path))
                        .as("%s on %s", path, member.address())
                        .isEmpty();
            }
        }
    }

    /** A primary on 127.0.0.1 that sends one of its files at a time down a chain. */
    private ReplicationService primaryWithOneStreamPerPeer(Duration timeout) throws IOException {
        return service(
                ReplicationConfig.anyPort("127.0.0.1", temp.resolve("a"), SECRET, timeout)
                        .withStreamsPerPeer(1));
    }

    /** Three files of 8 MiB (and a few bytes), each far more than a credit window. */
    private Map<String, Path> threeFilesOfEightMegabytes(String prefix) throws IOException {
        Map<String, Path> files = new LinkedHashMap<>();
        for (int i = 0; i < 3; i++) {
            files.put(
                    "j/o/v/" + prefix + "-" + i + ".sst",
                    randomFile(prefix + "-" + i, 8L * 1024 * 1024 + i));
        }
        return files;
    }

    private static void awaitNoPartialFiles(ReplicationService service) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!partialFiles(service).isEmpty()) {
            assertThat(System.nanoTime())
                    .as("partial files stay on %s", service.address())
                    .isLessThan(deadline);
            Thread.sleep(10);
        }
    }

    /** Bytes in Netty's pooled buffers now in use, without what the pool keeps in reserve. */
    private static long usedNettyMemory() {
        return ReplicationMemory.inUseBytes();
    }

    private Path randomFile(String name, long size) throws IOException {
        Path file = temp.resolve("source-" + name);
        Random random = new Random(size);
        byte[] block = new byte[1 << 20];
        try (var out = Files.newOutputStream(file)) {
            long left = size;
            while (left > 0) {
                random.nextBytes(block);
                int n = (int) Math.min(block.length, left);
                out.write(block, 0, n);
                left -= n;
            }
        }
        return file;
    }

    private static List<Path> partialFiles(ReplicationService service) throws IOException {
        return ChangingFileTree.partialFiles(service.store().root());
    }

    private static void awaitPartialFile(ReplicationService service) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (partialFiles(service).isEmpty()) {
            assertThat(System.nanoTime())
                    .as("no transfer reached %s", service.address())
                    .isLessThan(deadline);
            Thread.sleep(1);
        }
    }
}
