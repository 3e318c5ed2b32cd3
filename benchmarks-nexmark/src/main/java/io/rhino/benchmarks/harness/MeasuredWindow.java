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

import java.util.List;

/**
 * The part of a run its figures show: from the first mark of the {@value ScenarioContext#STEADY}
 * phase, which a scenario sets once its system runs and any state fill has ended, to the end of the
 * run. Figures count seconds from there, so the lines of systems whose start-up and fill took
 * different times line up, and a fill of many minutes does not squeeze the measured minute into a
 * corner. A run without that mark is shown whole. The CSVs keep every second since the start.
 *
 * @param fromSecond the run's second (since its start) that becomes second 0 of the figures
 */
public record MeasuredWindow(long fromSecond) {

    public MeasuredWindow {
        if (fromSecond < 0) {
            throw new IllegalArgumentException("fromSecond must not be negative: " + fromSecond);
        }
    }

    /** The window of {@code run}: from the whole second in which its steady phase began. */
    public static MeasuredWindow of(RunData run) {
        return run.latency().phaseMarks().stream()
                .filter(mark -> mark.label().equals(ScenarioContext.STEADY))
                .findFirst()
                .map(
                        mark ->
                                new MeasuredWindow(
                                        Math.max(0, (long) mark.secondsSince(run.startMillis()))))
                .orElse(new MeasuredWindow(0));
    }

    /** The seconds of {@code report} within the window, counted from its start. */
    public LatencyReport latency(LatencyReport report) {
        return new LatencyReport(
                report.startMillis() + fromSecond * 1000,
                report.perSecond().stream()
                        .filter(s -> s.second() >= fromSecond)
                        .map(
                                s ->
                                        new LatencyReport.SecondLatency(
                                                s.second() - fromSecond, s.stats()))
                        .toList(),
                report.total(),
                report.phases(),
                report.phaseMarks());
    }

    /** The samples within the window, their seconds counted from its start. */
    public List<ResourceSample> resources(List<ResourceSample> samples) {
        return samples.stream()
                .filter(s -> s.second() >= fromSecond)
                .map(
                        s ->
                                new ResourceSample(
                                        s.second() - fromSecond,
                                        s.atMillis(),
                                        s.cpuMillis(),
                                        s.cpuPercent(),
                                        s.rssBytes(),
                                        s.diskReadBytes(),
                                        s.diskWriteBytes(),
                                        s.diskReadBytesPerSecond(),
                                        s.diskWriteBytesPerSecond(),
                                        s.netRxBytes(),
                                        s.netTxBytes(),
                                        s.netRxBytesPerSecond(),
                                        s.netTxBytesPerSecond()))
                .toList();
    }

    /** A moment of the run, in seconds since the window began (negative before it). */
    public double second(TimeMark mark, long runStartMillis) {
        return mark.secondsSince(runStartMillis) - fromSecond;
    }
}
