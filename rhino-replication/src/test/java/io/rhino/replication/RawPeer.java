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

import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import io.rhino.replication.protocol.ReplicationCodec;
import io.rhino.replication.protocol.ReplicationMessage;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;

/**
 * A peer speaking the replication protocol over a plain socket, byte by byte, as an attacker or a
 * broken member would: it sends whatever frames it is told to, in any order.
 */
final class RawPeer implements AutoCloseable {

    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;

    RawPeer(PeerAddress address) throws IOException {
        socket = new Socket();
        socket.connect(new InetSocketAddress(address.host(), address.port()), 5_000);
        socket.setSoTimeout(10_000);
        in = new DataInputStream(socket.getInputStream());
        out = socket.getOutputStream();
    }

    /** Answers the challenge as {@code memberId} knowing {@code secret}; returns the welcome. */
    ReplicationMessage.Welcome authenticate(String secret, String memberId) throws IOException {
        return (ReplicationMessage.Welcome) authenticateIn("", secret, memberId);
    }

    /**
     * Answers the challenge as {@code memberId} knowing {@code secret} of {@code scope}; returns
     * the answer: a welcome, or the refusal.
     */
    ReplicationMessage authenticateIn(String scope, String secret, String memberId)
            throws IOException {
        ReplicationMessage.Challenge challenge = (ReplicationMessage.Challenge) read();
        Authentication authentication = new Authentication(scope.isEmpty() ? secret : null, false);
        if (!scope.isEmpty()) {
            authentication.register(scope, secret);
        }
        send(
                new ReplicationMessage.Hello(
                        memberId,
                        scope,
                        authentication.prove(scope, challenge.nonce(), memberId),
                        Authentication.nonce()));
        return read();
    }

    void send(ReplicationMessage message) throws IOException {
        sendRaw(encode(message));
    }

    void sendRaw(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    /** The next message, or null once the other side closed the connection. */
    ReplicationMessage read() throws IOException {
        try {
            return readFrame(in);
        } catch (EOFException e) {
            return null;
        }
    }

    /** Reads one frame off {@code in} and decodes it as an authenticated peer would. */
    static ReplicationMessage readFrame(DataInputStream in) throws IOException {
        int length = in.readInt();
        int lengthChecksum = in.readInt();
        byte[] frame = new byte[length];
        in.readFully(frame);
        EmbeddedChannel decoder =
                new EmbeddedChannel(ReplicationCodec.frameDecoder(), new ReplicationCodec());
        ReplicationCodec.markAuthenticated(decoder);
        ByteBuf bytes = decoder.alloc().buffer(8 + length);
        bytes.writeInt(length).writeInt(lengthChecksum).writeBytes(frame);
        decoder.writeInbound(bytes);
        return decoder.readInbound();
    }

    /**
     * Reads until the other side closes the connection, within {@code timeoutMillis}.
     *
     * @return the last message before it closed, or null
     * @throws AssertionError if it stays open
     */
    ReplicationMessage awaitClosed(int timeoutMillis) throws IOException {
        socket.setSoTimeout(timeoutMillis);
        ReplicationMessage last = null;
        try {
            for (ReplicationMessage message = read(); message != null; message = read()) {
                last = message;
            }
        } catch (SocketTimeoutException e) {
            throw new AssertionError("the connection is still open after " + timeoutMillis + " ms");
        } catch (IOException e) {
            // reset by the other side: closed as well
        }
        return last;
    }

    /**
     * Ends this side's output, as a peer that is done, and reads until the other side closes too.
     *
     * @return the messages read before it closed
     * @throws AssertionError if it stays open for {@code timeoutMillis}
     */
    java.util.List<ReplicationMessage> finish(int timeoutMillis) throws IOException {
        java.util.List<ReplicationMessage> replies = new java.util.ArrayList<>();
        try {
            socket.shutdownOutput();
        } catch (IOException e) {
            return replies; // closed already
        }
        socket.setSoTimeout(timeoutMillis);
        try {
            for (ReplicationMessage message = read(); message != null; message = read()) {
                replies.add(message);
            }
        } catch (SocketTimeoutException e) {
            throw new AssertionError("the connection is still open after " + timeoutMillis + " ms");
        } catch (IOException e) {
            // reset by the other side: closed as well
        }
        return replies;
    }

    /** The first message, or null if the other side closed the connection without one. */
    ReplicationMessage awaitClosedOrFirst() throws IOException {
        try {
            return read();
        } catch (IOException e) {
            return null;
        }
    }

    static byte[] encode(ReplicationMessage message) {
        EmbeddedChannel encoder = new EmbeddedChannel(new ReplicationCodec());
        encoder.writeOutbound(message);
        ByteBuf bytes = encoder.readOutbound();
        byte[] array = new byte[bytes.readableBytes()];
        bytes.readBytes(array);
        bytes.release();
        return array;
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
