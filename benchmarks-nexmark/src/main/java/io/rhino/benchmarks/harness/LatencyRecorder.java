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

import io.rhino.benchmarks.harness.LatencyReport.SecondLatency;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Records end-to-end latencies in milliseconds from any number of threads and keeps a per-second
 * series, a whole-run summary and one summary per phase.
 *
 * <p>Writers ({@link #record}, {@link #recordSince}) only touch an HdrHistogram {@link Recorder},
 * which never blocks them. A single heartbeat calls {@link #tick()} about once a second (more often
 * is fine): each tick takes the samples recorded since the previous tick as one interval and files
 * it under the second in which the interval began, under the current phase and under the whole run.
 * A sample therefore belongs to the second (and phase) in which it <em>arrived</em>, which is what
 * the paper's latency-over-time figures show. {@link #markPhase} also cuts an interval, so phases
 * split exactly at the moment they are marked.
 */
public final class LatencyRecorder {

    /** Phase of the samples recorded before the first {@link #markPhase}. */
    public static final String INITIAL_PHASE = "unmarked";

    private static final int SIGNIFICANT_DIGITS = 3;

    private final LongSupplier clock;
    private final long startMillis;
    private final Recorder recorder = new Recorder(SIGNIFICANT_DIGITS);
    private final LongAdder results = new LongAdder();

    // Reader side below: guarded by this.
    private Histogram interval;
    private long intervalStart;
    private String phase = INITIAL_PHASE;
    private final Histogram total = new Histogram(SIGNIFICANT_DIGITS);
    private final Map<String, Histogram> phases = new LinkedHashMap<>();
    private final List<TimeMark> phaseMarks = new ArrayList<>();
    private final List<SecondLatency> closedSeconds = new ArrayList<>();
    private long openSecond = -1;
    private final Histogram openSecondHistogram = new Histogram(SIGNIFICANT_DIGITS);

    /** A recorder whose run starts now on {@code clockMillis}. */
    public LatencyRecorder(LongSupplier clockMillis) {
        this(clockMillis, clockMillis.getAsLong());
    }

    /** A recorder whose run (second 0) starts at {@code startMillis} on {@code clockMillis}. */
    public LatencyRecorder(LongSupplier clockMillis, long startMillis) {
        this.clock = clockMillis;
        this.startMillis = startMillis;
        this.intervalStart = startMillis;
    }

    /** A recorder on the wall clock, starting now. */
    public static LatencyRecorder startingNow() {
        return new LatencyRecorder(System::currentTimeMillis);
    }

    public long startMillis() {
        return startMillis;
    }

    /** The recorder's clock, in milliseconds. */
    public long nowMillis() {
        return clock.getAsLong();
    }

    /**
     * Records one latency. Negative values (creation timestamps from a clock ahead of this one) are
     * recorded as 0.
     */
    public void record(long latencyMillis) {
        recorder.recordValue(Math.max(0L, latencyMillis));
        results.increment();
    }

    /**
     * Results recorded so far, including the current interval: lets a caller see when results
     * arrive again (e.g. after a restart) without waiting for the heartbeat.
     */
    public long resultsSoFar() {
        return results.sum();
    }

    /** Records the latency of a record created at {@code creationMillis}, arriving now. */
    public void recordSince(long creationMillis) {
        record(clock.getAsLong() - creationMillis);
    }

    /** Closes the current interval (the heartbeat calls this about once a second). */
    public synchronized void tick() {
        cut(clock.getAsLong());
    }

    /** Starts phase {@code name} now. */
    public void markPhase(String name) {
        markPhase(name, clock.getAsLong());
    }

    /**
     * Starts phase {@code name}: samples recorded from this call on belong to it. The samples are
     * split when this is called; {@code atMillis} is the moment reported for the phase's start (the
     * scenario's own timestamp of the event, which should be about now).
     */
    public synchronized void markPhase(String name, long atMillis) {
        cut(clock.getAsLong());
        phase = name;
        phaseMarks.add(new TimeMark(name, atMillis));
        phases.computeIfAbsent(name, n -> new Histogram(SIGNIFICANT_DIGITS));
    }

    /** The current phase. */
    public synchronized String phase() {
        return phase;
    }

    /**
     * What was recorded up to the last {@link #tick()} or {@link #markPhase}; the last second may
     * still grow.
     */
    public synchronized LatencyReport report() {
        List<SecondLatency> seconds = new ArrayList<>(closedSeconds);
        if (openSecond >= 0) {
            seconds.add(new SecondLatency(openSecond, LatencyStats.of(openSecondHistogram)));
        }
        Map<String, LatencyStats> phaseStats = new LinkedHashMap<>();
        phases.forEach(
                (name, histogram) -> {
                    // The implicit first phase only counts when something was recorded in it.
                    if (!name.equals(INITIAL_PHASE)
                            || histogram.getTotalCount() > 0
                            || marked(name)) {
                        phaseStats.put(name, LatencyStats.of(histogram));
                    }
                });
        return new LatencyReport(
                startMillis, seconds, LatencyStats.of(total), phaseStats, phaseMarks);
    }

    /** The latest second with samples (for progress lines). */
    public synchronized Optional<LatencyStats> latestSecond() {
        if (openSecond >= 0 && openSecondHistogram.getTotalCount() > 0) {
            return Optional.of(LatencyStats.of(openSecondHistogram));
        }
        for (int i = closedSeconds.size() - 1; i >= 0; i--) {
            if (!closedSeconds.get(i).stats().isEmpty()) {
                return Optional.of(closedSeconds.get(i).stats());
            }
        }
        return Optional.empty();
    }

    private boolean marked(String name) {
        return phaseMarks.stream().anyMatch(m -> m.label().equals(name));
    }

    private void cut(long now) {
        interval = recorder.getIntervalHistogram(interval);
        long second = Seconds.index(startMillis, intervalStart);
        total.add(interval);
        phases.computeIfAbsent(phase, n -> new Histogram(SIGNIFICANT_DIGITS)).add(interval);
        if (second != openSecond) {
            if (openSecond >= 0) {
                closedSeconds.add(
                        new SecondLatency(openSecond, LatencyStats.of(openSecondHistogram)));
            }
            // A late heartbeat leaves seconds without an interval: show them as empty.
            for (long gap = openSecond + 1; gap < second; gap++) {
                closedSeconds.add(new SecondLatency(gap, LatencyStats.EMPTY));
            }
            openSecond = second;
            openSecondHistogram.reset();
        }
        openSecondHistogram.add(interval);
        intervalStart = Math.max(intervalStart, now);
    }
}
