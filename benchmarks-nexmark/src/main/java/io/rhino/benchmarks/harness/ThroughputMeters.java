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

/**
 * The {@link ThroughputMeter}s of this JVM by run id, for {@link ThroughputProbe}s running in the
 * subtasks of an embedded cluster.
 */
public final class ThroughputMeters {

    private static final RunRegistry<ThroughputMeter> REGISTRY =
            new RunRegistry<>(ThroughputMeter::startingNow);

    private ThroughputMeters() {}

    /**
     * Registers the meter of a run before its job starts.
     *
     * @throws IllegalStateException when the run id is taken
     */
    public static ThroughputMeter register(String runId, ThroughputMeter meter) {
        return REGISTRY.register(runId, meter);
    }

    /** The meter of {@code runId}; one on the wall clock starting now if none was registered. */
    public static ThroughputMeter get(String runId) {
        return REGISTRY.get(runId);
    }

    /** Forgets the run (call when it is over), returning its meter or null. */
    public static ThroughputMeter remove(String runId) {
        return REGISTRY.remove(runId);
    }
}
