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
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.BitmapEncoder.BitmapFormat;
import org.knowm.xchart.XYChart;

/**
 * End-to-end latency over time in the style of the paper's Figures 5.4 to 5.8: seconds since the
 * start on x, latency in ms on a logarithmic y axis, one line per system under test (the mean of
 * each second, optionally its p99 dashed) and a vertical black line at each reconfiguration.
 *
 * <p>A log axis cannot show 0: seconds whose mean is below {@value #FLOOR_MS} ms are drawn at
 * {@value #FLOOR_MS} ms; at seconds without samples the line breaks.
 */
public final class LatencyPlot {

    /** Lowest latency drawn. */
    public static final double FLOOR_MS = 0.1;

    private record Line(String sut, LatencyReport report) {}

    private record Marker(String label, double second) {}

    private final String title;
    private int width = 1000;
    private int height = 500;
    private boolean showP99;
    private final List<Line> lines = new ArrayList<>();
    private final List<Marker> markers = new ArrayList<>();
    private String timeAxisTitle = "Time (s)";

    public LatencyPlot(String title) {
        this.title = title;
    }

    /** Image size in pixels (default 1000 x 500). */
    public LatencyPlot size(int widthPixels, int heightPixels) {
        this.width = widthPixels;
        this.height = heightPixels;
        return this;
    }

    /** Also draws each second's p99 as a dashed line. */
    public LatencyPlot showP99(boolean show) {
        this.showP99 = show;
        return this;
    }

    /** Adds the line of a system under test. */
    public LatencyPlot addSut(String sut, LatencyReport report) {
        lines.add(new Line(sut, report));
        return this;
    }

    /** The x axis's title (default "Time (s)"), e.g. to say where second 0 is. */
    public LatencyPlot timeAxisTitle(String axisTitle) {
        this.timeAxisTitle = axisTitle;
        return this;
    }

    /** Adds a vertical marker at {@code second} seconds since the start. */
    public LatencyPlot addMarker(String label, double second) {
        markers.add(new Marker(label, second));
        return this;
    }

    /** The chart, for callers that lay out several. */
    public XYChart chart() {
        XYChart chart =
                ChartStyle.newChart(title, timeAxisTitle, "Latency (ms, log scale)", width, height);
        chart.getStyler().setYAxisLogarithmic(true);
        // Plain numbers (100, 1,000, 100,000) rather than 1E5.
        chart.getStyler().setYAxisDecimalPattern("#,##0.###");
        double top = FLOOR_MS;
        double bottom = Double.MAX_VALUE;
        for (int i = 0; i < lines.size(); i++) {
            Line line = lines.get(i);
            List<Double> x = new ArrayList<>();
            List<Double> mean = new ArrayList<>();
            List<Double> p99 = new ArrayList<>();
            for (SecondLatency s : line.report().perSecond()) {
                x.add((double) s.second());
                if (s.stats().isEmpty()) {
                    // the line breaks: a line across seconds without results would draw latencies
                    // nobody measured (e.g. through a restart's minutes)
                    mean.add(Double.NaN);
                    p99.add(Double.NaN);
                    continue;
                }
                mean.add(Math.max(FLOOR_MS, s.stats().meanMs()));
                p99.add(Math.max(FLOOR_MS, (double) s.stats().p99Ms()));
            }
            // seconds after the last result would only stretch the time axis
            while (!mean.isEmpty() && Double.isNaN(mean.get(mean.size() - 1))) {
                x.remove(x.size() - 1);
                mean.remove(mean.size() - 1);
                p99.remove(p99.size() - 1);
            }
            String suffix = showP99 ? " (mean)" : "";
            ChartStyle.addLine(chart, line.sut() + suffix, x, mean, ChartStyle.colour(i), false);
            if (showP99) {
                ChartStyle.addLine(
                        chart, line.sut() + " (p99)", x, p99, ChartStyle.colour(i), true);
            }
            for (double v : showP99 ? p99 : mean) {
                top = Double.isNaN(v) ? top : Math.max(top, v);
            }
            for (double v : mean) {
                bottom = Double.isNaN(v) ? bottom : Math.min(bottom, v);
            }
        }
        // Within about a decade, label 200, 500... too; over several, their labels would overlap
        // near the top of each decade, so only the powers of ten are labelled.
        chart.getStyler().setYAxisLogarithmicDecadeOnly(top / Math.min(bottom, top) > 20);
        ChartStyle.roundTimeTicks(chart);
        for (Marker marker : markers) {
            ChartStyle.addMarker(
                    chart, marker.label(), marker.second(), top, ChartStyle.maxX(chart));
        }
        return chart;
    }

    /** Writes the chart as a PNG, replacing {@code file}. */
    public void writePng(Path file) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        try (OutputStream out = Files.newOutputStream(file)) {
            BitmapEncoder.saveBitmap(chart(), out, BitmapFormat.PNG);
        }
    }
}
