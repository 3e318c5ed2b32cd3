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

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.rhino.replication.protocol.ReplicationCodec;
import io.rhino.replication.protocol.ReplicationMessage;
import io.rhino.replication.store.ReplicaStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The receiving handler and the codec on an {@link EmbeddedChannel}, byte by byte. */
class ReceivingHandlersTest {

    private static final String SECRET = "s";

    @TempDir Path temp;

    private ReplicaStore store;
    private final ReplicationStats stats = new ReplicationStats();

    private EmbeddedChannel receiver() throws Exception {
        store = new ReplicaStore(temp.resolve("store"));
        Forwarder noForwarding =
                (downstream, path, size, crc, credit) -> {
                    throw new AssertionError("no chain here");
                };
        return new EmbeddedChannel(
                ReplicationPipeline.serverHandlers(
                        new ServerHandshake(
                                new Authentication(SECRET, false),
                                "self:1",
                                stats,
                                ReplicationLimits.DEFAULTS.handshakeTimeout()),
                        ReplicationPipeline.Receiving.of(
                                store,
                                noForwarding,
                                (file, target, to) ->
                                        java.util.concurrent.CompletableFuture.failedFuture(
                                                new UnsupportedOperationException(
                                                        "no pushing here")),
                                () -> PeerPolicy.ANY,
                                new ReceivingConnection(
                                        "self:1",
                                        stats,
                                        ReplicationLimits.DEFAULTS,
                                        new Authentication(SECRET, false)))));
    }

    /** Answers the challenge as a peer that knows the secret. */
    private void authenticate(EmbeddedChannel channel) {
        ReplicationMessage.Challenge challenge = (ReplicationMessage.Challenge) read(channel);
        byte[] nonce = Authentication.nonce();
        write(
                channel,
                new ReplicationMessage.Hello(
                        "peer:2",
                        "",
                        new Authentication(SECRET, false).prove("", challenge.nonce(), "peer:2"),
                        nonce));
        ReplicationMessage welcome = read(channel);
        assertThat(welcome).isInstanceOf(ReplicationMessage.Welcome.class);
        assertThat(
                        new Authentication(SECRET, false)
                                .acceptsReceiver(
                                        "",
                                        nonce,
                                        "peer:2",
                                        ((ReplicationMessage.Welcome) welcome).proof()))
                .as("the receiver proves it knows the secret too")
                .isTrue();
    }

    @Test
    void aCorruptedByteInFlightFailsTheStreamAndLeavesNoFile() throws Exception {
        EmbeddedChannel channel = receiver();
        authenticate(channel);
        byte[] data = new byte[100_000];
        new java.util.Random(1).nextBytes(data);
        CRC32C crc = new CRC32C();
        crc.update(data);
        write(
                channel,
                new ReplicationMessage.Open(
                        7, "j/o/v/1.sst", data.length, (int) crc.getValue(), List.of()));
        assertThat(read(channel))
                .isEqualTo(new ReplicationMessage.Credit(7, StreamReceiver.CREDIT_WINDOW));

        data[54_321] ^= 0x40; // flipped on the way
        write(channel, new ReplicationMessage.Chunk(7, Unpooled.wrappedBuffer(data, 0, 65_536)));
        write(
                channel,
                new ReplicationMessage.Chunk(
                        7, Unpooled.wrappedBuffer(data, 65_536, data.length - 65_536)));

        List<ReplicationMessage> replies = drain(channel);
        assertThat(replies).last().isInstanceOf(ReplicationMessage.Fail.class);
        assertThat(((ReplicationMessage.Fail) replies.get(replies.size() - 1)).reason())
                .contains("checksum mismatch")
                .contains("self:1");
        assertThat(store.file("j/o/v/1.sst")).isEmpty();
        assertThat(filesIn(store.root())).isEmpty();
        assertThat(stats.bytesReceived()).isEqualTo(data.length);
        assertThat(stats.filesStored()).isZero();
        assertThat(stats.refusedRequests()).isEqualTo(1);
    }

    @Test
    void anOversizeFrameClosesTheConnection() throws Exception {
        EmbeddedChannel channel = receiver();
        authenticate(channel);
        ByteBuf frame = Unpooled.buffer();
        frame.writeInt(ReplicationCodec.MAX_FRAME_BYTES + 1);
        frame.writeInt(ReplicationCodec.lengthChecksum(ReplicationCodec.MAX_FRAME_BYTES + 1));
        frame.writeZero(ReplicationCodec.MAX_FRAME_BYTES + 1);
        channel.writeInbound(frame);
        assertThat(channel.isOpen()).isFalse();
    }

    @Test
    void anUnknownMessageTypeClosesTheConnection() throws Exception {
        EmbeddedChannel channel = receiver();
        authenticate(channel);
        ByteBuf frame = Unpooled.buffer();
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(99);
        frame.writeInt(5); // a type and its checksum
        frame.writeInt(ReplicationCodec.lengthChecksum(5));
        frame.writeByte(99);
        frame.writeInt((int) crc.getValue());
        channel.writeInbound(frame);
        assertThat(channel.isOpen()).isFalse();
    }

    @Test
    void streamsBeforeAuthenticationAreRefused() throws Exception {
        EmbeddedChannel channel = receiver();
        read(channel); // the challenge, unanswered
        write(channel, new ReplicationMessage.Open(1, "j/o/v/1.sst", 10, 0, List.of()));
        ReplicationMessage reply = read(channel);
        assertThat(reply).isInstanceOf(ReplicationMessage.Fail.class);
        assertThat(((ReplicationMessage.Fail) reply).reason()).contains("before authenticating");
        assertThat(channel.isOpen()).isFalse();
        assertThat(filesIn(store.root())).isEmpty();
    }

    @Test
    void moreBytesThanAnnouncedFailTheStream() throws Exception {
        EmbeddedChannel channel = receiver();
        authenticate(channel);
        write(channel, new ReplicationMessage.Open(3, "j/o/v/2.sst", 10, 0, List.of()));
        read(channel); // credit
        write(channel, new ReplicationMessage.Chunk(3, Unpooled.wrappedBuffer(new byte[11])));
        ReplicationMessage reply = read(channel);
        assertThat(((ReplicationMessage.Fail) reply).reason())
                .contains("more than the announced 10 bytes");
        assertThat(filesIn(store.root())).isEmpty();
    }

    @Test
    void aReceiverRefusesPathsOutsideItsStoreWhateverTheSenderChecked() throws Exception {
        EmbeddedChannel channel = receiver();
        authenticate(channel);
        long stream = 10;
        for (String bad : List.of("../x.sst", "/abs/x.sst", "a/../../x", "v/x.sst.crc32c")) {
            write(channel, new ReplicationMessage.Open(stream++, bad, 1, 0, List.of()));
            ReplicationMessage reply = read(channel);
            assertThat(reply).as(bad).isInstanceOf(ReplicationMessage.Fail.class);
            assertThat(((ReplicationMessage.Fail) reply).reason()).contains("replica path");
        }
        assertThat(channel.isOpen()).as("a refused path fails its stream only").isTrue();
        assertThat(filesIn(temp)).isEmpty();
        assertThat(stats.refusedRequests()).isEqualTo(4);
    }

    @Test
    void partialFilesOfAnEarlierRunAreRemovedWhenTheStoreOpens() throws Exception {
        Path root = temp.resolve("store");
        Files.createDirectories(root.resolve("j/o/v"));
        Files.writeString(root.resolve("j/o/v/1.sst.part-4"), "half");
        Files.writeString(root.resolve("j/o/v/2.sst"), "whole");
        new ReplicaStore(root);
        assertThat(filesIn(root)).containsExactly(root.toRealPath().resolve("j/o/v/2.sst"));
    }

    // The channel's outbound side holds encoded frames: decode them as a peer would.
    private static ReplicationMessage read(EmbeddedChannel channel) {
        ByteBuf encoded = channel.readOutbound();
        assertThat(encoded).as("a reply").isNotNull();
        EmbeddedChannel decoder =
                new EmbeddedChannel(ReplicationCodec.frameDecoder(), new ReplicationCodec());
        ReplicationCodec.markAuthenticated(decoder); // as the peer, which authenticated
        decoder.writeInbound(encoded);
        return decoder.readInbound();
    }

    private static List<ReplicationMessage> drain(EmbeddedChannel channel) {
        List<ReplicationMessage> all = new ArrayList<>();
        while (!channel.outboundMessages().isEmpty()) {
            all.add(read(channel));
        }
        return all;
    }

    private static void write(EmbeddedChannel channel, ReplicationMessage message) {
        EmbeddedChannel encoder = new EmbeddedChannel(new ReplicationCodec());
        encoder.writeOutbound(message);
        ByteBuf bytes = encoder.readOutbound();
        channel.writeInbound(bytes);
    }

    private static List<Path> filesIn(Path root) throws Exception {
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(Files::isRegularFile).toList();
        }
    }
}
