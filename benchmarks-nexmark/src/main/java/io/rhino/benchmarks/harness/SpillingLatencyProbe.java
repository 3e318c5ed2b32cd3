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

import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import java.util.UUID;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;

/**
 * A pass-through map like {@link LatencyProbe} for jobs on a cluster of other processes: each
 * subtask appends its records' latencies (ms, as 4-byte integers) to a file of its own under a
 * directory the driver reads with {@link LatencySpillReader}. A subtask flushes its file with the
 * first record {@link #FLUSH_MILLIS} after its previous flush: with a steady output (the queries'
 * results arrive every few milliseconds) a sample reaches the driver's recorder that much late.
 *
 * @param <T> the record type
 */
public final class SpillingLatencyProbe<T> extends RichMapFunction<T, T> {

    private static final long serialVersionUID = 1L;

    /** The longest a latency waits in the subtask's buffer. */
    static final long FLUSH_MILLIS = 20;

    static final String SUFFIX = ".latencies";

    private final String directory;
    private final SerializableToLongFunction<T> creationMillis;

    private transient DataOutputStream out;
    private transient long flushedAt;

    /**
     * @param directory where the subtasks write, on a file system the driver reads too
     * @param creationMillis the record's creation timestamp in wall-clock milliseconds
     */
    public SpillingLatencyProbe(Path directory, SerializableToLongFunction<T> creationMillis) {
        this.directory = directory.toString();
        this.creationMillis = Objects.requireNonNull(creationMillis, "creationMillis");
    }

    @Override
    public void open(OpenContext context) throws IOException {
        // one file per attempt: a restarted subtask never appends to a file its killed attempt
        // left with a torn last sample
        Path file =
                Path.of(directory)
                        .resolve(
                                getRuntimeContext().getTaskInfo().getIndexOfThisSubtask()
                                        + "-"
                                        + getRuntimeContext().getTaskInfo().getAttemptNumber()
                                        + "-"
                                        + UUID.randomUUID()
                                        + SUFFIX);
        Files.createDirectories(file.getParent());
        out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(file), 1 << 16));
        flushedAt = System.currentTimeMillis();
    }

    @Override
    public T map(T value) throws IOException {
        long now = System.currentTimeMillis();
        long latency = now - creationMillis.applyAsLong(value);
        out.writeInt((int) Math.max(0, Math.min(Integer.MAX_VALUE, latency)));
        if (now - flushedAt >= FLUSH_MILLIS) {
            out.flush();
            flushedAt = now;
        }
        return value;
    }

    @Override
    public void close() throws IOException {
        if (out != null) {
            out.close();
        }
    }
}
