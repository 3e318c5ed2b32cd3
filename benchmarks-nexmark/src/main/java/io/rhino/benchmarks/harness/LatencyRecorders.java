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
 * The {@link LatencyRecorder}s of this JVM by run id, for {@link LatencyProbe}s running in the
 * subtasks of an embedded cluster.
 */
public final class LatencyRecorders {

    private static final RunRegistry<LatencyRecorder> REGISTRY =
            new RunRegistry<>(LatencyRecorder::startingNow);

    private LatencyRecorders() {}

    /**
     * Registers the recorder of a run before its job starts.
     *
     * @throws IllegalStateException when the run id is taken
     */
    public static LatencyRecorder register(String runId, LatencyRecorder recorder) {
        return REGISTRY.register(runId, recorder);
    }

    /** The recorder of {@code runId}; one on the wall clock starting now if none was registered. */
    public static LatencyRecorder get(String runId) {
        return REGISTRY.get(runId);
    }

    /** Forgets the run (call when it is over), returning its recorder or null. */
    public static LatencyRecorder remove(String runId) {
        return REGISTRY.remove(runId);
    }
}
