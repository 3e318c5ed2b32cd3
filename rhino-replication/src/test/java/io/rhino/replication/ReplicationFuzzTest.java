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

import io.netty.buffer.Unpooled;
import io.rhino.replication.protocol.ReplicationCodec;
import io.rhino.replication.protocol.ReplicationMessage;
import io.rhino.replication.testing.ChangingFileTree;
import java.io.IOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seeded random frames against a real replication service over sockets, half before and half after
 * authentication: well-formed messages with hostile fields, frames with a byte flipped, truncated
 * frames, random length fields, random bytes. The service must close every connection that ends (no
 * hang), keep serving a real member throughout, store nothing before authentication, leave no
 * partial file, and hold no more memory or file descriptors afterwards than before. A smoke of
 * {@value #SMOKE_FRAMES} frames by default; {@code -Drhino.replication-fuzz.frames=N} and {@code
 * -Drhino.replication-campaign.seed=S} for a campaign (see docs/reliability.md).
 */
@Timeout(3600)
class ReplicationFuzzTest {

    static final int SMOKE_FRAMES = 1000;
    private static final String SECRET = "fuzz-test-secret";
    private static final int LIVENESS_EVERY = 250;
    private static final int LIVENESS_BYTES = 150_000;

    private final int frames = Integer.getInteger("rhino.replication-fuzz.frames", SMOKE_FRAMES);
    private final long seed = Long.getLong("rhino.replication-campaign.seed", 38);

    @TempDir Path temp;

    private ReplicationService target;
    private ReplicationService member;
    private List<String> paths;
    private List<String> addresses;

    @BeforeEach
    void start() throws IOException {
        ReplicationLimits limits =
                ReplicationLimits.DEFAULTS
                        .withHandshakeTimeout(Duration.ofSeconds(2))
                        .withIdleTimeout(Duration.ofSeconds(5));
        target =
                ReplicationService.start(
                        ReplicationConfig.anyPort(
                                        "127.0.0.1",
                                        temp.resolve("target"),
                                        SECRET,
                                        Duration.ofSeconds(10))
                                .withLimits(limits));
        member =
                ReplicationService.start(
                        ReplicationConfig.anyPort(
                                "127.0.0.2",
                                temp.resolve("member"),
                                SECRET,
                                Duration.ofSeconds(10)));
        paths =
                List.of(
                        "job/op/vnode-1/000001.sst",
                        "job/op/vnode-1/chk-3/_files",
                        "../escape.sst",
                        "/etc/passwd",
                        "a/../../b",
                        "job/op/vnode-1/x.sst.crc32c",
                        "job/op/vnode-1/x.sst.part-3",
                        "",
                        "j/\u00e4/v",
                        "a/b/c/d/e/f/g/h/i/j",
                        "x".repeat(3000));
        addresses =
                List.of(
                        target.address().toString(),
                        member.address().toString(),
                        "127.0.0.1:1",
                        "127.0.0.1:99999",
                        "no-port",
                        ":",
                        "");
    }

    @AfterEach
    void stop() {
        target.close();
        member.close();
    }

    @Test
    void randomFramesBeforeAndAfterAuthenticationBreakNothing() throws Exception {
        Random random = new Random(seed);
        Sample before = Sample.now();
        long started = System.nanoTime();
        Counts pre = campaign(random, frames / 2, false);
        // only the real member's replications reached the store
        assertThat(target.stats().filesStored())
                .as("stored before authentication")
                .isEqualTo(pre.liveness);
        assertThat(target.stats().bytesReceived())
                .as("received before authentication")
                .isEqualTo(pre.liveness * LIVENESS_BYTES);
        assertThat(storedFiles()).as("files before authentication").isEmpty();
        Counts post = campaign(random, frames - frames / 2, true);
        liveness(-1);
        Sample after = settle(before);
        System.out.printf(
                "Replication fuzz, seed %d: %d frames before authentication on %d connections"
                        + " (%d closed by the service mid-stream), %d after on %d (%d); %d"
                        + " liveness replications; refused %d; hangs %d; Netty in use %d -> %d"
                        + " bytes, reserved %d -> %d, JVM direct %d -> %d, file descriptors %d ->"
                        + " %d; %d s%n",
                seed,
                pre.frames,
                pre.connections,
                pre.closedMidStream,
                post.frames,
                post.connections,
                post.closedMidStream,
                pre.liveness + post.liveness + 1,
                target.stats().refusedRequests(),
                pre.hangs.size() + post.hangs.size(),
                before.inUse,
                after.inUse,
                before.reserved,
                after.reserved,
                before.direct,
                after.direct,
                before.fds,
                after.fds,
                Duration.ofNanos(System.nanoTime() - started).toSeconds());
        assertThat(pre.hangs).as("connections never closed").isEmpty();
        assertThat(post.hangs).as("connections never closed").isEmpty();
        assertThat(ChangingFileTree.partialFiles(target.store().root())).isEmpty();
        assertThat(after.inUse - before.inUse).as("buffers held").isLessThan(1L << 20);
        assertThat(after.fds - before.fds).as("file descriptors held").isLessThan(20);
    }

    private static final class Counts {
        int frames;
        int connections;
        int closedMidStream;
        int liveness;
        final List<String> hangs = new ArrayList<>();
    }

    private Counts campaign(Random random, int frameCount, boolean authenticate) throws Exception {
        Counts counts = new Counts();
        int nextLiveness = LIVENESS_EVERY;
        while (counts.frames < frameCount) {
            int connection = counts.connections++;
            try (RawPeer peer = new RawPeer(target.address())) {
                if (authenticate) {
                    peer.authenticate(SECRET, "fuzzer:" + connection);
                }
                int n = Math.min(1 + random.nextInt(20), frameCount - counts.frames);
                // drawn before sending, so that a seed gives the same frames however soon the
                // service closes a connection
                List<byte[]> drawn = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    drawn.add(frame(random));
                }
                counts.frames += n;
                try {
                    for (byte[] frame : drawn) {
                        peer.sendRaw(frame);
                    }
                } catch (IOException closedByService) {
                    counts.closedMidStream++; // the rest of its frames go unsent
                }
                try {
                    peer.finish(15_000);
                } catch (AssertionError hang) {
                    counts.hangs.add("connection " + connection + ": " + hang.getMessage());
                }
            }
            if (counts.frames >= nextLiveness) {
                nextLiveness += LIVENESS_EVERY;
                liveness(counts.liveness++);
            }
        }
        return counts;
    }

    /** A real member still replicates to the target, verified. */
    private void liveness(int round) throws Exception {
        byte[] data = new byte[LIVENESS_BYTES];
        new Random(round).nextBytes(data);
        Path file = Files.write(temp.resolve("live-" + round), data);
        String path = "job/live/vnode-0/" + (round + 1) + ".sst";
        member.replicate(file, path, List.of(target.address())).get(30, TimeUnit.SECONDS);
        assertThat(Files.mismatch(target.store().file(path).orElseThrow(), file)).isEqualTo(-1L);
    }

    private byte[] frame(Random random) {
        int kind = random.nextInt(100);
        if (kind < 60) {
            return RawPeer.encode(message(random));
        }
        if (kind < 80) {
            byte[] frame = RawPeer.encode(message(random));
            frame[random.nextInt(frame.length)] ^= (byte) (1 << random.nextInt(8));
            return frame;
        }
        if (kind < 90) {
            byte[] frame = RawPeer.encode(message(random));
            return Arrays.copyOf(frame, random.nextInt(frame.length));
        }
        if (kind < 95) {
            int[] lengths = {
                0,
                1,
                5,
                ReplicationCodec.HANDSHAKE_FRAME_BYTES,
                ReplicationCodec.HANDSHAKE_FRAME_BYTES + 1,
                ReplicationCodec.MAX_FRAME_BYTES - 4,
                ReplicationCodec.MAX_FRAME_BYTES,
                Integer.MAX_VALUE,
                -1,
                random.nextInt()
            };
            int length = lengths[random.nextInt(lengths.length)];
            byte[] body = new byte[Math.max(0, Math.min(length, random.nextInt(1000)))];
            random.nextBytes(body);
            return ByteBuffer.allocate(4 + body.length).putInt(length).put(body).array();
        }
        byte[] bytes = new byte[1 + random.nextInt(200)];
        random.nextBytes(bytes);
        return bytes;
    }

    private ReplicationMessage message(Random random) {
        long stream = random.nextInt(8) - 1;
        return switch (random.nextInt(9)) {
            case 0 -> new ReplicationMessage.Challenge(bytes(random, random.nextInt(64)));
            case 1 ->
                    new ReplicationMessage.Hello(
                            pick(random, addresses),
                            random.nextBoolean() ? "" : pick(random, paths),
                            bytes(random, random.nextInt(40)),
                            bytes(random, random.nextInt(40)));
            case 2 -> new ReplicationMessage.Welcome(bytes(random, random.nextInt(40)));
            case 3 -> {
                long[] sizes = {0, 1, 10, 65_536, 1 << 20, Long.MAX_VALUE, -1, (64L << 30) + 1};
                List<String> downstream = new ArrayList<>();
                for (int i = random.nextInt(4); i > 0; i--) {
                    downstream.add(pick(random, addresses));
                }
                yield new ReplicationMessage.Open(
                        stream,
                        pick(random, paths),
                        sizes[random.nextInt(sizes.length)],
                        random.nextBoolean() ? 0 : random.nextInt(),
                        downstream);
            }
            case 4 -> {
                int[] sizes = {0, 1, 10, 100, ReplicationCodec.CHUNK_BYTES, random.nextInt(65_536)};
                yield new ReplicationMessage.Chunk(
                        stream,
                        Unpooled.wrappedBuffer(bytes(random, sizes[random.nextInt(sizes.length)])));
            }
            case 5 -> new ReplicationMessage.Credit(stream, random.nextInt());
            case 6 -> new ReplicationMessage.Ack(stream);
            case 7 -> new ReplicationMessage.Fail(stream, "fuzz " + random.nextLong());
            default ->
                    new ReplicationMessage.Fetch(
                            stream,
                            pick(random, paths),
                            pick(random, paths),
                            pick(random, addresses));
        };
    }

    private static byte[] bytes(Random random, int length) {
        byte[] bytes = new byte[length];
        random.nextBytes(bytes);
        return bytes;
    }

    private static <T> T pick(Random random, List<T> values) {
        return values.get(random.nextInt(values.size()));
    }

    private List<Path> storedFiles() throws IOException {
        try (Stream<Path> files = Files.walk(target.store().root())) {
            return files.filter(Files::isRegularFile)
                    .filter(file -> !file.getFileName().toString().equals(".lock"))
                    .filter(file -> !file.startsWith(target.store().root().resolve("job/live")))
                    .toList();
        }
    }

    /** Waits for what closed connections held to be released, then samples. */
    private static Sample settle(Sample before) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        Sample now = Sample.now();
        while ((now.inUse - before.inUse >= 1L << 20 || now.fds - before.fds >= 20)
                && System.nanoTime() < deadline) {
            Thread.sleep(50);
            now = Sample.now();
        }
        return now;
    }

    /** Replication's Netty memory, the JVM's direct buffers and open file descriptors. */
    record Sample(long inUse, long reserved, long direct, long fds) {
        static Sample now() throws IOException {
            long direct =
                    ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
                            .filter(pool -> pool.getName().equals("direct"))
                            .mapToLong(BufferPoolMXBean::getMemoryUsed)
                            .sum();
            long fds;
            try (Stream<Path> open = Files.list(Path.of("/proc/self/fd"))) {
                fds = open.count();
            }
            return new Sample(
                    ReplicationMemory.inUseBytes(), ReplicationMemory.reservedBytes(), direct, fds);
        }
    }
}
