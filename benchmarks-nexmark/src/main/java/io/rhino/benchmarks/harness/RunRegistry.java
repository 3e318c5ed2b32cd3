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
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Supplier;

/**
 * Meters of the runs in this JVM by run id. Flink ships functions to their subtasks as serialized
 * copies, so a probe can only find its meter through a static registry; this only works on an
 * embedded cluster (a MiniCluster in the same JVM as the harness).
 */
final class RunRegistry<T> {

    private final ConcurrentMap<String, T> byRunId = new ConcurrentHashMap<>();
    private final Supplier<T> factory;

    RunRegistry(Supplier<T> factory) {
        this.factory = factory;
    }

    T register(String runId, T meter) {
        Objects.requireNonNull(meter, "meter");
        T previous = byRunId.putIfAbsent(runId, meter);
        if (previous != null) {
            throw new IllegalStateException("Run id '" + runId + "' is already registered");
        }
        return meter;
    }

    T get(String runId) {
        return byRunId.computeIfAbsent(runId, id -> factory.get());
    }

    T remove(String runId) {
        return byRunId.remove(runId);
    }
}
