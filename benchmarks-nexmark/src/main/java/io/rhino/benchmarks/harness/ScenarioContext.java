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

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * What one run of a scenario on a system under test measures with: its run id (under which the
 * probes find the recorders), its recorders, its output directory and its clock.
 */
public final class ScenarioContext {

    /** Phase names {@link #reconfigure} marks, after the paper's before / during / after. */
    public static final String STEADY = "steady";

    public static final String DURING_RECONFIGURATION = "during-reconfiguration";
    public static final String AFTER_RECONFIGURATION = "after";

    private final String runId;
    private final String scenario;
    private final String sut;
    private final int repetition;
    private final Path outputDir;
    private final LongSupplier clock;
    private final long startMillis;
    private final Duration expectedDuration;
    private final LatencyRecorder latency;
    private final ThroughputMeter throughput;
    private final ProcessResourceSampler resources;
    private final List<TimeMark> reconfigurations = new ArrayList<>();
    private volatile double reportedProgress = -1;

    ScenarioContext(
            String runId,
            String scenario,
            String sut,
            int repetition,
            Path outputDir,
            LongSupplier clock,
            long startMillis,
            Duration expectedDuration,
            LatencyRecorder latency,
            ThroughputMeter throughput,
            ProcessResourceSampler resources) {
        this.runId = runId;
        this.scenario = scenario;
        this.sut = sut;
        this.repetition = repetition;
        this.outputDir = outputDir;
        this.clock = clock;
        this.startMillis = startMillis;
        this.expectedDuration = expectedDuration;
        this.latency = latency;
        this.throughput = throughput;
        this.resources = resources;
    }

    /** Key of this run's recorders in {@link LatencyRecorders} and {@link ThroughputMeters}. */
    public String runId() {
        return runId;
    }

    public String scenarioName() {
        return scenario;
    }

    public String sutName() {
        return sut;
    }

    /** 1-based repetition of the scenario on this system. */
    public int repetition() {
        return repetition;
    }

    /** Directory of the scenario's outputs, for files a scenario writes itself. */
    public Path outputDir() {
        return outputDir;
    }

    public LongSupplier clock() {
        return clock;
    }

    public long nowMillis() {
        return clock.getAsLong();
    }

    /** Start of the run on {@link #clock()}: second 0 of every series. */
    public long startMillis() {
        return startMillis;
    }

    public LatencyRecorder latency() {
        return latency;
    }

    public ThroughputMeter throughput() {
        return throughput;
    }

    public ProcessResourceSampler resources() {
        return resources;
    }

    /** Starts latency phase {@code name} now. */
    public void markPhase(String name) {
        latency.markPhase(name, nowMillis());
    }

    /** Notes that a reconfiguration is triggered now: the plots draw a vertical line here. */
    public synchronized TimeMark markReconfiguration(String label) {
        TimeMark mark = new TimeMark(label, nowMillis());
        reconfigurations.add(mark);
        return mark;
    }

    /** The reconfigurations marked so far. */
    public synchronized List<TimeMark> reconfigurations() {
        return List.copyOf(reconfigurations);
    }

    /**
     * Reconfigures {@code sut} the way the paper measures it: marks the reconfiguration and the
     * phase {@value #DURING_RECONFIGURATION}, reconfigures, then marks phase {@value
     * #AFTER_RECONFIGURATION}.
     */
    public PhaseTimings reconfigure(SystemUnderTest sut, Reconfiguration reconfiguration)
            throws Exception {
        markReconfiguration(reconfiguration.kind());
        markPhase(DURING_RECONFIGURATION);
        PhaseTimings timings = sut.reconfigure(reconfiguration, this);
        markPhase(AFTER_RECONFIGURATION);
        return timings;
    }

    /** Tells the progress line how much of the run is done (0 to 1). */
    public void reportProgress(double fractionDone) {
        reportedProgress = fractionDone;
    }

    /**
     * How much of the run is done: what the scenario last reported, else the elapsed part of the
     * scenario's expected duration (at most 99%), else 0.
     */
    public double progress() {
        double reported = reportedProgress;
        if (reported >= 0) {
            return reported;
        }
        long expected = expectedDuration.toMillis();
        if (expected <= 0) {
            return 0;
        }
        return Math.min(0.99, (nowMillis() - startMillis) / (double) expected);
    }
}
