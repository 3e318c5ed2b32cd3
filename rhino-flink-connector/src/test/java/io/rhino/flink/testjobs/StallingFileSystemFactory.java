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

package io.rhino.flink.testjobs;

import java.io.IOException;
import java.net.URI;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.FileSystemFactory;
import org.apache.flink.core.fs.Path;
import org.apache.flink.core.fs.local.LocalFileSystem;

/**
 * The {@code stalling://} file system: local files that Flink treats as remote storage, where
 * reading one chosen file stalls, as a download from a checkpoint storage that stopped answering
 * does, until its stream is closed. Flink's cancellation closes a restore's streams through its
 * cancel registry; a test can show what the restore does then. Creating files whose names start
 * with a chosen prefix can stall too, as a write to a storage that hangs, until released.
 */
public final class StallingFileSystemFactory implements FileSystemFactory {

    public static final String SCHEME = "stalling";

    private static volatile Stall armed;

    /** From now on, reads of files named {@code fileName} stall until their stream is closed. */
    public static Stall stallReadsOf(String fileName) {
        Stall stall = new Stall(fileName);
        armed = stall;
        return stall;
    }

    private static volatile WriteStall armedWrites;

    /** Reads no longer stall. */
    public static void disarm() {
        armed = null;
    }

    /**
     * From now on, creating a file whose name starts with {@code namePrefix} stalls until the
     * returned stall is released (which also disarms it).
     */
    public static WriteStall stallCreatesOf(String namePrefix) {
        WriteStall stall = new WriteStall(namePrefix);
        armedWrites = stall;
        return stall;
    }

    /** Creates of files a {@link #stallCreatesOf} prefix names; releasing lets them go on. */
    public static final class WriteStall {
        private final String namePrefix;
        private final CountDownLatch released = new CountDownLatch(1);
        private final CountDownLatch creating = new CountDownLatch(1);

        private WriteStall(String namePrefix) {
            this.namePrefix = namePrefix;
        }

        /** Waits until a create stalls; false if none did within the timeout. */
        public boolean awaitStalledCreate(long timeout, TimeUnit unit) throws InterruptedException {
            return creating.await(timeout, unit);
        }

        /** Lets stalled and later creates go on. */
        public void release() {
            if (armedWrites == this) {
                armedWrites = null;
            }
            released.countDown();
        }

        private void stallIfNamed(Path f) throws IOException {
            if (!f.getName().startsWith(namePrefix)) {
                return;
            }
            creating.countDown();
            try {
                released.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while creating " + f, e);
            }
        }
    }

    @Override
    public String getScheme() {
        return SCHEME;
    }

    @Override
    public FileSystem create(URI fsUri) {
        return new StallingFileSystem();
    }

    /** A stalled file: tells when a read of it has started stalling. */
    public static final class Stall {
        private final String fileName;
        private final CountDownLatch reading = new CountDownLatch(1);

        private Stall(String fileName) {
            this.fileName = fileName;
        }

        /** Waits until a read of the file stalls; false if none did within the timeout. */
        public boolean awaitStalledRead(long timeout, TimeUnit unit) throws InterruptedException {
            return reading.await(timeout, unit);
        }
    }

    private static final class StallingFileSystem extends LocalFileSystem {
        @Override
        public URI getUri() {
            return URI.create(SCHEME + ":///");
        }

        @Override
        public FSDataOutputStream create(Path f, WriteMode overwrite) throws IOException {
            WriteStall stall = armedWrites;
            if (stall != null) {
                stall.stallIfNamed(f);
            }
            return super.create(f, overwrite);
        }

        @Override
        public FSDataInputStream open(Path f, int bufferSize) throws IOException {
            return open(f);
        }

        @Override
        public FSDataInputStream open(Path f) throws IOException {
            FSDataInputStream in = super.open(f);
            Stall stall = armed;
            return stall != null && f.getName().equals(stall.fileName)
                    ? new StalledStream(in, stall)
                    : in;
        }
    }

    /** Reads block until the stream is closed, then fail, as a socket closed under them does. */
    private static final class StalledStream extends FSDataInputStream {
        private final FSDataInputStream file;
        private final Stall stall;
        private final CountDownLatch closed = new CountDownLatch(1);

        StalledStream(FSDataInputStream file, Stall stall) {
            this.file = file;
            this.stall = stall;
        }

        @Override
        public int read() throws IOException {
            stallUntilClosed();
            throw new AssertionError("unreachable");
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            stallUntilClosed();
            throw new AssertionError("unreachable");
        }

        private void stallUntilClosed() throws IOException {
            stall.reading.countDown();
            try {
                closed.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while reading " + stall.fileName, e);
            }
            throw new IOException("stream of " + stall.fileName + " closed while reading");
        }

        @Override
        public void seek(long desired) throws IOException {
            file.seek(desired);
        }

        @Override
        public long getPos() throws IOException {
            return file.getPos();
        }

        @Override
        public void close() throws IOException {
            closed.countDown();
            file.close();
        }
    }
}
