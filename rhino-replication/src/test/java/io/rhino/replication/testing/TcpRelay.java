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

import io.rhino.replication.PeerAddress;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;

/**
 * A TCP relay in front of a replication member, the tests' view of the network: it can keep a copy
 * of what senders write to the member, or hold it back until released (a slow or congested hop).
 * Replies from the member pass at once. Blocking I/O, two threads per connection; for tests only.
 */
public final class TcpRelay implements AutoCloseable {

    private final ServerSocket server;
    private final PeerAddress target;
    private final boolean records;
    private final CountDownLatch released;
    // bytes of each connection passed to the member before holding back; 0: its first read
    private final long passFirst;
    private final ByteArrayOutputStream recorded = new ByteArrayOutputStream();
    // the byte of each connection's stream that is flipped on its way, -1: none
    private long corruptAt = -1;
    private int corruptMask;
    private boolean corruptToMember;
    private final java.util.concurrent.atomic.AtomicInteger corrupted =
            new java.util.concurrent.atomic.AtomicInteger();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();

    private TcpRelay(
            String host, PeerAddress target, boolean records, boolean stalls, long passFirst)
            throws IOException {
        this.server = new ServerSocket(0, 50, InetAddress.getByName(host));
        this.target = target;
        this.records = records;
        this.released = new CountDownLatch(stalls ? 1 : 0);
        this.passFirst = passFirst;
        daemon(this::accept, "tcp-relay-accept").start();
    }

    /** Relays on 127.0.0.1 and keeps a copy of what senders write ({@link #bytes}). */
    public static TcpRelay recording(PeerAddress target) throws IOException {
        return new TcpRelay("127.0.0.1", target, true, false, 0);
    }

    /**
     * Relays on {@code host}, but after each connection's first bytes from the sender (its answer
     * to the member's challenge) reads nothing more from it until {@link #release}.
     */
    public static TcpRelay stalled(String host, PeerAddress target) throws IOException {
        return new TcpRelay(host, target, false, true, 0);
    }

    /**
     * Relays on {@code host}, but holds back what each connection's sender writes after its first
     * {@code bytes} bytes until {@link #release} (a link that stops part-way through a transfer).
     */
    public static TcpRelay stalledAfter(String host, PeerAddress target, long bytes)
            throws IOException {
        if (bytes < 1) {
            throw new IllegalArgumentException("bytes must be positive: " + bytes);
        }
        return new TcpRelay(host, target, false, true, bytes);
    }

    /**
     * Relays on 127.0.0.1, XOR-ing the byte at {@code offset} of each connection's stream with
     * {@code mask}: the one senders write to the member if {@code toMember}, else the member's
     * replies.
     */
    public static TcpRelay corrupting(PeerAddress target, long offset, int mask, boolean toMember)
            throws IOException {
        if (offset < 0 || mask == 0 || (mask & ~0xff) != 0) {
            throw new IllegalArgumentException(
                    "offset " + offset + ", mask " + mask + " (expected: >= 0, one byte, not 0)");
        }
        TcpRelay relay = new TcpRelay("127.0.0.1", target, false, false, 0);
        relay.corruptAt = offset;
        relay.corruptMask = mask;
        relay.corruptToMember = toMember;
        return relay;
    }

    /** How many bytes were flipped so far (a stream shorter than the offset has none). */
    public int corrupted() {
        return corrupted.get();
    }

    /** The address senders connect to. */
    public PeerAddress address() {
        return new PeerAddress(server.getInetAddress().getHostAddress(), server.getLocalPort());
    }

    /** What senders wrote so far, all connections together. */
    public byte[] bytes() {
        synchronized (recorded) {
            return recorded.toByteArray();
        }
    }

    /** Lets the held-back bytes through, and everything after them. */
    public void release() {
        released.countDown();
    }

    private void accept() {
        try {
            while (!server.isClosed()) {
                Socket sender = server.accept();
                Socket member = new Socket(target.host(), target.port());
                sockets.add(sender);
                sockets.add(member);
                daemon(() -> relay(sender, member, true), "tcp-relay-to-member").start();
                daemon(() -> relay(member, sender, false), "tcp-relay-to-sender").start();
            }
        } catch (IOException e) {
            // closed
        }
    }

    private void relay(Socket from, Socket to, boolean toMember) {
        byte[] buffer = new byte[64 * 1024];
        try (InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream()) {
            boolean holding = toMember;
            long passed = 0;
            for (int read; (read = in.read(buffer)) >= 0; ) {
                if (toMember && records) {
                    synchronized (recorded) {
                        recorded.write(buffer, 0, read);
                    }
                }
                long at = corruptAt - passed;
                if (toMember == corruptToMember && at >= 0 && at < read) {
                    buffer[(int) at] ^= (byte) corruptMask;
                    corrupted.incrementAndGet();
                }
                int now =
                        holding && passFirst > 0 ? (int) Math.min(read, passFirst - passed) : read;
                out.write(buffer, 0, now);
                out.flush();
                passed += now;
                if (holding && (passFirst == 0 || passed >= passFirst)) {
                    holding = false;
                    released.await();
                    out.write(buffer, now, read - now);
                    out.flush();
                }
            }
        } catch (IOException e) {
            // a side closed
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    @Override
    public void close() throws IOException {
        released.countDown();
        server.close();
        sockets.forEach(TcpRelay::closeQuietly);
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // closing anyway
        }
    }

    private static Thread daemon(Runnable task, String name) {
        Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        return thread;
    }
}
