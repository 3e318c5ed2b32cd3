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
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.BitmapEncoder.BitmapFormat;
import org.knowm.xchart.XYChart;

/**
 * Resource use over time in the style of the paper's Figure 5.7: four panels (CPU, memory, disk,
 * network) in one PNG, one colour per system under test, reads/receives solid and writes/transmits
 * dashed, a vertical black line at each reconfiguration. Samples whose figure is unknown are left
 * out.
 */
public final class ResourcePlot {

    private record Sut(String name, List<ResourceSample> samples) {}

    private record Marker(String label, double second) {}

    private static final double MB = 1_000_000.0;

    private final String title;
    private int panelWidth = 600;
    private int panelHeight = 320;
    private final List<Sut> suts = new ArrayList<>();
    private final List<Marker> markers = new ArrayList<>();
    private String timeAxisTitle = "Time (s)";

    public ResourcePlot(String title) {
        this.title = title;
    }

    /** Size of each of the four panels (default 600 x 320; the image is twice as wide and high). */
    public ResourcePlot panelSize(int widthPixels, int heightPixels) {
        this.panelWidth = widthPixels;
        this.panelHeight = heightPixels;
        return this;
    }

    public ResourcePlot addSut(String sut, List<ResourceSample> samples) {
        suts.add(new Sut(sut, List.copyOf(samples)));
        return this;
    }

    /** The x axis's title (default "Time (s)"), e.g. to say where second 0 is. */
    public ResourcePlot timeAxisTitle(String axisTitle) {
        this.timeAxisTitle = axisTitle;
        return this;
    }

    /** Adds a vertical marker at {@code second} seconds since the start. */
    public ResourcePlot addMarker(String label, double second) {
        markers.add(new Marker(label, second));
        return this;
    }

    /** The four panels: CPU, memory, disk, network. */
    public List<XYChart> charts() {
        XYChart cpu = panel("CPU", "CPU (% of one core)");
        XYChart memory = panel("Memory", "RSS (MB)");
        XYChart disk = panel("Disk (solid read, dashed write)", "MB/s");
        XYChart network = panel("Network (solid rx, dashed tx)", "MB/s");
        for (int i = 0; i < suts.size(); i++) {
            Sut sut = suts.get(i);
            add(cpu, sut, i, "", false, ResourceSample::cpuPercent);
            add(memory, sut, i, "", false, s -> mb(s.rssBytes()));
            add(disk, sut, i, " read", false, s -> mb(s.diskReadBytesPerSecond()));
            add(disk, sut, i, " write", true, s -> mb(s.diskWriteBytesPerSecond()));
            add(network, sut, i, " rx", false, s -> mb(s.netRxBytesPerSecond()));
            add(network, sut, i, " tx", true, s -> mb(s.netTxBytesPerSecond()));
        }
        List<XYChart> charts = List.of(cpu, memory, disk, network);
        for (XYChart chart : charts) {
            ChartStyle.roundTimeTicks(chart);
            double top =
                    chart.getSeriesCollection().stream()
                            .flatMapToDouble(s -> Arrays.stream(s.getYData()))
                            .max()
                            .orElse(1);
            for (Marker marker : markers) {
                ChartStyle.addMarker(
                        chart, marker.label(), marker.second(), top, ChartStyle.maxX(chart));
            }
        }
        return charts;
    }

    /** Writes the four panels, two by two, as a PNG, replacing {@code file}. */
    public void writePng(Path file) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        try (OutputStream out = Files.newOutputStream(file)) {
            BitmapEncoder.saveBitmap(charts(), 2, 2, out, BitmapFormat.PNG);
        }
    }

    private XYChart panel(String name, String yTitle) {
        XYChart chart =
                ChartStyle.newChart(
                        title + ": " + name, timeAxisTitle, yTitle, panelWidth, panelHeight);
        // Utilisation from zero, as in the paper, so that small wiggles do not look large.
        chart.getStyler().setYAxisMin(0.0);
        return chart;
    }

    private static void add(
            XYChart chart,
            Sut sut,
            int index,
            String suffix,
            boolean dashed,
            Function<ResourceSample, Number> figure) {
        List<Double> x = new ArrayList<>();
        List<Double> y = new ArrayList<>();
        for (ResourceSample sample : sut.samples()) {
            Number value = figure.apply(sample);
            if (value != null) {
                x.add((double) sample.second());
                y.add(value.doubleValue());
            }
        }
        ChartStyle.addLine(chart, sut.name() + suffix, x, y, ChartStyle.colour(index), dashed);
    }

    private static Double mb(Number bytes) {
        return bytes == null ? null : bytes.doubleValue() / MB;
    }
}
