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

package io.rhino.benchmarks.harness;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Feeds a {@link LatencyRecorder} from the files {@link SpillingLatencyProbe}s write: a thread
 * reads what every file gained since its last look, every {@link #POLL_MILLIS}, records each
 * latency as arriving at that moment and ticks the recorder (so it is also the recorder's
 * heartbeat). A torn last sample (a killed subtask's) is never read.
 */
public final class LatencySpillReader implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(LatencySpillReader.class);

    static final long POLL_MILLIS = 50;

    private final Path directory;
    private final LatencyRecorder recorder;
    private final Map<Path, Long> readUpTo = new HashMap<>();
    private final ByteBuffer buffer = ByteBuffer.allocate(1 << 16);
    private final Thread thread;
    private volatile boolean running = true;

    private LatencySpillReader(Path directory, LatencyRecorder recorder) {
        this.directory = directory;
        this.recorder = recorder;
        this.thread = new Thread(this::run, "latency-spill-reader");
        this.thread.setDaemon(true);
    }

    /** Starts reading {@code directory} (created) into {@code recorder}. */
    public static LatencySpillReader start(Path directory, LatencyRecorder recorder)
            throws IOException {
        Files.createDirectories(directory);
        LatencySpillReader reader = new LatencySpillReader(directory, recorder);
        reader.thread.start();
        return reader;
    }

    private void run() {
        while (running) {
            try {
                readNewSamples();
            } catch (IOException | UncheckedIOException e) {
                LOG.warn("Reading the latencies under {}: {}", directory, e.toString());
            }
            recorder.tick();
            try {
                Thread.sleep(POLL_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** Reads what every file gained since the last call; returns the samples recorded. */
    synchronized long readNewSamples() throws IOException {
        long samples = 0;
        try (DirectoryStream<Path> files =
                Files.newDirectoryStream(directory, "*" + SpillingLatencyProbe.SUFFIX)) {
            for (Path file : files) {
                samples += readFrom(file);
            }
        }
        return samples;
    }

    private long readFrom(Path file) throws IOException {
        long position = readUpTo.getOrDefault(file, 0L);
        long samples = 0;
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = channel.size();
            while (size - position >= Integer.BYTES) {
                buffer.clear();
                int whole = (int) Math.min(buffer.capacity(), (size - position) / 4 * 4);
                buffer.limit(whole);
                int read = channel.read(buffer, position);
                if (read <= 0) {
                    break;
                }
                buffer.flip();
                int usable = read / Integer.BYTES;
                for (int i = 0; i < usable; i++) {
                    recorder.record(buffer.getInt());
                }
                samples += usable;
                position += (long) usable * Integer.BYTES;
            }
        }
        readUpTo.put(file, position);
        return samples;
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        thread.interrupt();
        thread.join(5_000);
    }
}
