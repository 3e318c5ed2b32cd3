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

import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.imageio.ImageIO;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;

/**
 * The paper's Figure 5.6 for a skewed run: p99 latency over time (top) and the keyed operator's
 * load imbalance, max/mean records per second of its active subtasks (bottom), one line per system,
 * with a marker at each rebalance; one PNG.
 */
public final class LoadBalancePlot {

    /** One second's imbalance. */
    public record Sample(double second, double imbalance) {}

    private record Series(String sut, LatencyReport latency, List<Sample> imbalance) {}

    private final String title;
    private final List<Series> series = new ArrayList<>();
    private final List<String> markerLabels = new ArrayList<>();
    private final List<Double> markerSeconds = new ArrayList<>();

    public LoadBalancePlot(String title) {
        this.title = title;
    }

    public LoadBalancePlot addSut(String sut, LatencyReport latency, List<Sample> imbalance) {
        series.add(new Series(sut, latency, List.copyOf(imbalance)));
        return this;
    }

    /** A rebalance of {@code sut} at {@code second}. */
    public LoadBalancePlot addMarker(String label, double second) {
        markerLabels.add(label);
        markerSeconds.add(second);
        return this;
    }

    public void writePng(Path file) throws IOException {
        LatencyPlot latency =
                new LatencyPlot("p99 latency: " + title).size(1000, 420).showP99(true);
        series.forEach(s -> latency.addSut(s.sut(), s.latency()));
        for (int i = 0; i < markerLabels.size(); i++) {
            latency.addMarker(markerLabels.get(i), markerSeconds.get(i));
        }
        XYChart imbalance =
                ChartStyle.newChart(
                        "Load imbalance (max/mean records/s of the active subtasks): " + title,
                        "Time (s)",
                        "max / mean",
                        1000,
                        360);
        double top = 1;
        for (int i = 0; i < series.size(); i++) {
            List<Double> x = new ArrayList<>();
            List<Double> y = new ArrayList<>();
            for (Sample sample : series.get(i).imbalance()) {
                x.add(sample.second());
                y.add(sample.imbalance());
                top = Math.max(top, sample.imbalance());
            }
            if (!x.isEmpty()) {
                ChartStyle.addLine(
                        imbalance, series.get(i).sut(), x, y, ChartStyle.colour(i), false);
            }
        }
        for (int i = 0; i < markerLabels.size(); i++) {
            ChartStyle.addMarker(
                    imbalance,
                    markerLabels.get(i),
                    markerSeconds.get(i),
                    top,
                    ChartStyle.maxX(imbalance));
        }
        BufferedImage upper = BitmapEncoder.getBufferedImage(latency.chart());
        BufferedImage lower = BitmapEncoder.getBufferedImage(imbalance);
        BufferedImage both =
                new BufferedImage(
                        Math.max(upper.getWidth(), lower.getWidth()),
                        upper.getHeight() + lower.getHeight(),
                        BufferedImage.TYPE_INT_RGB);
        Graphics2D g = both.createGraphics();
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, both.getWidth(), both.getHeight());
        g.drawImage(upper, 0, 0, null);
        g.drawImage(lower, 0, upper.getHeight(), null);
        g.dispose();
        Files.createDirectories(file.toAbsolutePath().getParent());
        ImageIO.write(both, "png", file.toFile());
    }
}
