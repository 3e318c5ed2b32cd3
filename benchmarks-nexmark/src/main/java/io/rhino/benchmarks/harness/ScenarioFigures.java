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

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The figures of a scenario: per repetition one latency plot and one resource plot with a line per
 * system, each run shown from its {@link MeasuredWindow}, and a marker per reconfiguration.
 */
public final class ScenarioFigures {

    /** The figures' time axis: each run's {@link MeasuredWindow}. */
    static final String MEASURED_TIME_AXIS = "Time since start-up and any state fill ended (s)";

    private ScenarioFigures() {}

    /**
     * Writes {@code latency-rep<N>.png} and {@code resources-rep<N>.png} into {@code dir} for each
     * repetition of {@code runs}, titled after {@code scenario}.
     */
    public static List<Path> write(Path dir, String scenario, List<RunData> runs)
            throws IOException {
        List<Path> files = new ArrayList<>();
        Map<Integer, List<RunData>> byRep = new LinkedHashMap<>();
        runs.forEach(r -> byRep.computeIfAbsent(r.repetition(), k -> new ArrayList<>()).add(r));
        for (Map.Entry<Integer, List<RunData>> rep : byRep.entrySet()) {
            String title =
                    scenario + (byRep.size() > 1 ? " (repetition " + rep.getKey() + ")" : "");
            LatencyPlot latency =
                    new LatencyPlot("End-to-end latency: " + title)
                            .showP99(true)
                            .timeAxisTitle(MEASURED_TIME_AXIS);
            ResourcePlot resources = new ResourcePlot(title).timeAxisTitle(MEASURED_TIME_AXIS);
            for (RunData run : rep.getValue()) {
                MeasuredWindow window = MeasuredWindow.of(run);
                latency.addSut(run.sut(), window.latency(run.latency()));
                resources.addSut(run.sut(), window.resources(run.resources()));
            }
            markers(rep.getValue())
                    .forEach(
                            (label, second) -> {
                                latency.addMarker(label, second);
                                resources.addMarker(label, second);
                            });
            Path latencyPng = dir.resolve("latency-rep" + rep.getKey() + ".png");
            latency.writePng(latencyPng);
            files.add(latencyPng);
            Path resourcesPng = dir.resolve("resources-rep" + rep.getKey() + ".png");
            resources.writePng(resourcesPng);
            files.add(resourcesPng);
        }
        return files;
    }

    /**
     * The reconfiguration markers of the runs in a plot, in seconds of their measured windows: one
     * per label and second, named after the system when the systems reconfigured at different
     * seconds.
     */
    private static Map<String, Double> markers(List<RunData> runs) {
        Map<String, Double> markers = new LinkedHashMap<>();
        for (RunData run : runs) {
            MeasuredWindow window = MeasuredWindow.of(run);
            for (TimeMark mark : run.reconfigurations()) {
                double second = window.second(mark, run.startMillis());
                Double existing = markers.get(mark.label());
                if (existing == null) {
                    markers.put(mark.label(), second);
                } else if (Math.abs(existing - second) >= 1) {
                    markers.put(mark.label() + " (" + run.sut() + ")", second);
                }
            }
        }
        return markers;
    }
}
