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

package io.rhino.benchmarks.scenarios;

import io.rhino.benchmarks.harness.LatencyPlot;
import io.rhino.benchmarks.harness.LatencyReport;
import io.rhino.benchmarks.harness.LatencyReport.SecondLatency;
import io.rhino.benchmarks.harness.LatencyStats;
import io.rhino.flink.BedCluster;
import io.rhino.flink.cluster.LinkCounters;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The latency of the bed's runs around their measured event (a kill, a rescale): a per-second CSV
 * and a figure, every run's seconds counted from its event, from {@link #SECONDS_BEFORE} before it.
 */
final class BedFigures {

    static final int SECONDS_BEFORE = 20;

    /** One system's latency and the second of its event. */
    record Series(String system, LatencyReport latency, long eventSecond) {}

    private BedFigures() {}

    /** Each of {@code names}' duration in ms, empty where the run has no such phase. */
    static List<String> millisCells(Map<String, Duration> phases, List<String> names) {
        List<String> cells = new ArrayList<>();
        for (String name : names) {
            Duration d = phases.get(name);
            cells.add(d == null ? "" : String.valueOf(d.toMillis()));
        }
        return cells;
    }

    /** The bytes every TaskManager's link received, together. */
    static long receivedByTaskManagers(Map<String, LinkCounters> crossed) {
        long received = 0;
        for (int index = 0; index < BedCluster.TASK_MANAGERS; index++) {
            LinkCounters link = crossed.get(BedCluster.taskManager(index));
            received += link == null ? 0 : link.received();
        }
        return received;
    }

    /** Writes {@code <name>-latency.csv} and {@code <name>.png} under {@code out}. */
    static void write(Path out, String name, String title, String event, List<Series> runs)
            throws IOException {
        List<String> lines = new ArrayList<>();
        lines.add("system,second_since_" + event + ",results,mean_ms,p50_ms,p99_ms,max_ms");
        LatencyPlot plot =
                new LatencyPlot(title)
                        // several systems' legend entries side by side
                        .size(1400, 600)
                        .timeAxisTitle("Seconds since the " + event)
                        .showP99(true)
                        .addMarker(event, 0);
        for (Series run : runs) {
            LatencyReport aligned = aligned(run);
            plot.addSut(run.system(), aligned);
            for (SecondLatency second : aligned.perSecond()) {
                LatencyStats s = second.stats();
                lines.add(
                        String.join(
                                ",",
                                run.system(),
                                String.valueOf(second.second()),
                                String.valueOf(s.count()),
                                s.isEmpty() ? "" : String.format(Locale.ROOT, "%.1f", s.meanMs()),
                                s.isEmpty() ? "" : String.valueOf(s.p50Ms()),
                                s.isEmpty() ? "" : String.valueOf(s.p99Ms()),
                                s.isEmpty() ? "" : String.valueOf(s.maxMs())));
            }
        }
        Files.write(out.resolve(name + "-latency.csv"), lines);
        plot.writePng(out.resolve(name + ".png"));
    }

    private static LatencyReport aligned(Series run) {
        LatencyReport report = run.latency();
        List<SecondLatency> seconds = new ArrayList<>();
        for (SecondLatency second : report.perSecond()) {
            long since = second.second() - run.eventSecond();
            if (since >= -SECONDS_BEFORE) {
                seconds.add(new SecondLatency(since, second.stats()));
            }
        }
        return new LatencyReport(
                report.startMillis(),
                seconds,
                report.total(),
                report.phases(),
                report.phaseMarks());
    }
}
