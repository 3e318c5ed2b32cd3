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

import java.util.Objects;
import org.apache.flink.api.common.functions.MapFunction;

/**
 * A pass-through map to put after the last operator of a job: records, for every record, the time
 * from its creation timestamp to now into the run's {@link LatencyRecorder} (found in {@link
 * LatencyRecorders} by run id, so the job must run on an embedded cluster in this JVM).
 *
 * @param <T> the record type
 */
public final class LatencyProbe<T> implements MapFunction<T, T> {

    private static final long serialVersionUID = 1L;

    private final String runId;
    private final SerializableToLongFunction<T> creationMillis;

    // Looked up in the subtask: the field does not survive Flink's serialized copy.
    private transient LatencyRecorder recorder;

    /**
     * @param runId the run whose recorder gets the latencies
     * @param creationMillis the record's creation timestamp in wall-clock milliseconds
     */
    public LatencyProbe(String runId, SerializableToLongFunction<T> creationMillis) {
        this.runId = Objects.requireNonNull(runId, "runId");
        this.creationMillis = Objects.requireNonNull(creationMillis, "creationMillis");
    }

    @Override
    public T map(T value) {
        if (recorder == null) {
            recorder = LatencyRecorders.get(runId);
        }
        recorder.recordSince(creationMillis.applyAsLong(value));
        return value;
    }
}
