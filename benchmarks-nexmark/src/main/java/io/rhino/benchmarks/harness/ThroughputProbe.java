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
 * A pass-through map that counts records and their bytes into the run's {@link ThroughputMeter}
 * (found in {@link ThroughputMeters} by run id; embedded cluster only).
 *
 * @param <T> the record type
 */
public final class ThroughputProbe<T> implements MapFunction<T, T> {

    private static final long serialVersionUID = 1L;

    private final String runId;
    private final SerializableToLongFunction<T> sizeBytes;

    private transient ThroughputMeter meter;

    /**
     * @param runId the run whose meter counts the records
     * @param sizeBytes a record's size in bytes (e.g. its serialized size in the paper's terms)
     */
    public ThroughputProbe(String runId, SerializableToLongFunction<T> sizeBytes) {
        this.runId = Objects.requireNonNull(runId, "runId");
        this.sizeBytes = Objects.requireNonNull(sizeBytes, "sizeBytes");
    }

    @Override
    public T map(T value) {
        if (meter == null) {
            meter = ThroughputMeters.get(runId);
        }
        meter.record(1, sizeBytes.applyAsLong(value));
        return value;
    }
}
