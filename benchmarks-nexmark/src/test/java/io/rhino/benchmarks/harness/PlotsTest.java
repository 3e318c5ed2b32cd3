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

import static org.assertj.core.api.Assertions.assertThat;

import java.awt.image.BufferedImage;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PlotsTest {

    @TempDir Path dir;

    /** Pixels that are neither white background nor near-white. */
    private static long inkPixels(BufferedImage image) {
        long ink = 0;
        for (int y = 0; y < image.getHeight(); y++) {
            for (int x = 0; x < image.getWidth(); x++) {
                int rgb = image.getRGB(x, y);
                int r = (rgb >> 16) & 0xff;
                int g = (rgb >> 8) & 0xff;
                int b = rgb & 0xff;
                if (r + g + b < 600) {
                    ink++;
                }
            }
        }
        return ink;
    }

    /** Pixels of the colour the first system's line is drawn in. */
    private static long pixelsOf(BufferedImage image, int rgb) {
        long n = 0;
        for (int y = 0; y < image.getHeight(); y++) {
            for (int x = 0; x < image.getWidth(); x++) {
                if ((image.getRGB(x, y) & 0xffffff) == rgb) {
                    n++;
                }
            }
        }
        return n;
    }

    @Test
    void latencyPlotIsAPngOfTheRequestedSizeWithLines() throws Exception {
        RunData rhino = SampleRuns.run("rhino", 60, 40, 90, 30);
        RunData flink = SampleRuns.run("flink", 60, 45, 20_000, 30);
        Path png = dir.resolve("plots/latency.png");
        new LatencyPlot("End-to-end latency: NBQ8 scale-out")
                .size(800, 400)
                .showP99(true)
                .addSut("rhino", rhino.latency())
                .addSut("flink", flink.latency())
                .addMarker("scale-out", 30)
                .writePng(png);

        BufferedImage image = ImageIO.read(png.toFile());
        assertThat(image).isNotNull();
        assertThat(image.getWidth()).isEqualTo(800);
        assertThat(image.getHeight()).isEqualTo(400);
        assertThat(inkPixels(image)).isGreaterThan(2000);
        assertThat(pixelsOf(image, ChartStyle.colour(0).getRGB() & 0xffffff)).isGreaterThan(100);
        assertThat(pixelsOf(image, ChartStyle.colour(1).getRGB() & 0xffffff)).isGreaterThan(100);
    }

    @Test
    void latencyPlotCopesWithZeroAndMissingLatencies() throws Exception {
        FakeClock clock = new FakeClock(0);
        LatencyRecorder recorder = new LatencyRecorder(clock, 0);
        recorder.record(0);
        clock.advance(3000);
        recorder.tick(); // seconds 1 and 2 without samples
        recorder.record(3);
        clock.advance(1000);
        recorder.tick();
        Path png = dir.resolve("zero.png");
        new LatencyPlot("zero").size(400, 300).addSut("x", recorder.report()).writePng(png);

        BufferedImage image = ImageIO.read(png.toFile());
        assertThat(image.getWidth()).isEqualTo(400);
        assertThat(inkPixels(image)).isPositive();
    }

    @Test
    void latencyLineBreaksWhereNoResultsCame() throws Exception {
        FakeClock clock = new FakeClock(0);
        LatencyRecorder recorder = new LatencyRecorder(clock, 0);
        for (int second = 0; second < 120; second++) {
            if (second < 10 || second >= 110) {
                recorder.record(100);
            }
            clock.advance(1000);
            recorder.tick();
        }
        Path png = dir.resolve("gap.png");
        new LatencyPlot("gap").size(800, 400).addSut("x", recorder.report()).writePng(png);

        BufferedImage image = ImageIO.read(png.toFile());
        int colour = ChartStyle.colour(0).getRGB() & 0xffffff;
        assertThat(pixelsOf(image, colour)).as("the line's two parts").isGreaterThan(20);
        // the middle of the plot, above the legend: seconds 40 to 80 had no results
        long acrossTheGap = 0;
        for (int y = 0; y < image.getHeight() - 120; y++) {
            for (int x = 350; x < 450; x++) {
                if ((image.getRGB(x, y) & 0xffffff) == colour) {
                    acrossTheGap++;
                }
            }
        }
        assertThat(acrossTheGap).as("pixels of the line across the gap").isZero();
    }

    @Test
    void resourcePlotHasFourPanels() throws Exception {
        Path png = dir.resolve("resources.png");
        new ResourcePlot("NBQ8")
                .panelSize(500, 300)
                .addSut("rhino", SampleRuns.run("rhino", 20, 10, 50, 10).resources())
                .addSut("flink", SampleRuns.run("flink", 20, 10, 50, 10).resources())
                .addMarker("scale-out", 10)
                .writePng(png);

        BufferedImage image = ImageIO.read(png.toFile());
        assertThat(image.getWidth()).isEqualTo(1000);
        assertThat(image.getHeight()).isEqualTo(600);
        // Every panel has ink.
        for (int px = 0; px < 2; px++) {
            for (int py = 0; py < 2; py++) {
                assertThat(inkPixels(image.getSubimage(px * 500, py * 300, 500, 300)))
                        .isGreaterThan(500);
            }
        }
        assertThat(List.of(png.toFile().length())).allMatch(l -> l > 0);
    }
}
