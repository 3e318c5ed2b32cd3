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

package io.rhino.benchmarks.handover;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * What the subtasks of one benchmark run report to the benchmark's main thread, which shares their
 * JVM (embedded cluster): fill progress, probe latencies per phase, and when each subtask first
 * processed a probe. Runs are found by id, so a job's functions need only the id.
 */
public final class RunProbe {

    private static final Map<String, RunProbe> RUNS = new ConcurrentHashMap<>();

    /** The records whose latency a phase histogram holds. */
    public enum Group {
        /** Probes of vnodes that stay where they are. */
        STAYING,
        /** Probes of vnodes that move. */
        MOVING
    }

    private final LongAdder filledRecords = new LongAdder();
    private final LongAdder filledBytes = new LongAdder();
    private final Map<String, Recorder> latencyByPhaseAndGroup = new ConcurrentHashMap<>();
    private final Map<Integer, Long> firstProbeMillisBySubtask = new ConcurrentHashMap<>();
    private volatile String phase = "warm-up";

    private RunProbe() {}

    /** The probe of run {@code runId}, created on first use. */
    public static RunProbe of(String runId) {
        return RUNS.computeIfAbsent(runId, id -> new RunProbe());
    }

    /** Forgets run {@code runId}. */
    public static void remove(String runId) {
        RUNS.remove(runId);
    }

    void recordFill(int bytes) {
        filledRecords.increment();
        filledBytes.add(bytes);
    }

    void recordProbe(int subtask, Group group, long latencyMillis) {
        firstProbeMillisBySubtask.putIfAbsent(subtask, System.currentTimeMillis());
        latencyByPhaseAndGroup
                .computeIfAbsent(phase + "/" + group, k -> new Recorder(3))
                .recordValue(Math.max(0, latencyMillis));
    }

    /** Probes recorded from now on count towards {@code phase}. */
    public void enterPhase(String phase) {
        this.phase = phase;
    }

    /** Fill records processed so far. */
    public long filledRecords() {
        return filledRecords.sum();
    }

    /** Payload bytes of the fill records processed so far. */
    public long filledBytes() {
        return filledBytes.sum();
    }

    /** The latencies (ms) of {@code group}'s probes in {@code phase} since the last call. */
    public Histogram takeLatencies(String phase, Group group) {
        Recorder recorder = latencyByPhaseAndGroup.get(phase + "/" + group);
        return recorder == null ? new Histogram(3) : recorder.getIntervalHistogram();
    }

    /** When each subtask first processed a probe (epoch ms), by subtask index. */
    public Map<Integer, Long> firstProbeMillisBySubtask() {
        return Map.copyOf(firstProbeMillisBySubtask);
    }
}
