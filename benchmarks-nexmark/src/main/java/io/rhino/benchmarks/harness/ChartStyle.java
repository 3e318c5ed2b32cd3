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

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import org.knowm.xchart.AnnotationLine;
import org.knowm.xchart.AnnotationText;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler.LegendPosition;
import org.knowm.xchart.style.lines.SeriesLines;
import org.knowm.xchart.style.markers.SeriesMarkers;

/** The look the harness' charts share: the paper's plain line charts with black markers. */
final class ChartStyle {

    /** One colour per system under test, in the order they are added. */
    private static final List<Color> PALETTE =
            List.of(
                    new Color(0x1f77b4),
                    new Color(0xd62728),
                    new Color(0x2ca02c),
                    new Color(0xff7f0e),
                    new Color(0x9467bd),
                    new Color(0x8c564b));

    static {
        // Charts are drawn off-screen, also on machines without a display.
        if (System.getProperty("java.awt.headless") == null) {
            System.setProperty("java.awt.headless", "true");
        }
    }

    private ChartStyle() {}

    static XYChart newChart(String title, String xTitle, String yTitle, int width, int height) {
        XYChart chart =
                new XYChartBuilder()
                        .width(width)
                        .height(height)
                        .title(title)
                        .xAxisTitle(xTitle)
                        .yAxisTitle(yTitle)
                        .build();
        chart.getStyler()
                .setChartBackgroundColor(Color.WHITE)
                .setPlotBackgroundColor(Color.WHITE)
                .setPlotBorderColor(Color.DARK_GRAY)
                .setLegendPosition(LegendPosition.InsideNW)
                .setLegendBorderColor(Color.GRAY)
                .setChartTitleFont(new Font(Font.SANS_SERIF, Font.BOLD, 14))
                .setAnnotationLineColor(Color.BLACK)
                .setAnnotationLineStroke(new BasicStroke(2f))
                .setAnnotationTextFontColor(Color.BLACK)
                .setAnnotationTextFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11))
                .setAntiAlias(true);
        chart.getStyler().setPlotGridLinesColor(new Color(0xdddddd));
        chart.getStyler().setXAxisDecimalPattern("#0");
        return chart;
    }

    static Color colour(int index) {
        return PALETTE.get(index % PALETTE.size());
    }

    /** Adds a line; {@code dashed} for secondary figures (p99, writes, transmits). */
    static void addLine(
            XYChart chart,
            String name,
            List<Double> x,
            List<Double> y,
            Color colour,
            boolean dashed) {
        if (x.isEmpty()) {
            return;
        }
        XYSeries series = chart.addSeries(name, x, y);
        series.setMarker(SeriesMarkers.NONE);
        series.setLineColor(colour);
        series.setLineStyle(dashed ? SeriesLines.DASH_DASH : SeriesLines.SOLID);
    }

    // positions of the marker labels drawn on each chart, so close markers share one label
    private static final Map<XYChart, List<Double>> LABELLED = new WeakHashMap<>();

    /**
     * A vertical black line at {@code x} with {@code label} to the right of its top at {@code
     * labelY}; {@code xRange} is the span of the x axis, to place the label off the line. A marker
     * within a thirtieth of the axis of an earlier labelled one gets no label of its own (several
     * operators rebalanced at once would write their labels over each other).
     */
    static void addMarker(XYChart chart, String label, double x, double labelY, double xRange) {
        chart.addAnnotation(new AnnotationLine(x, true, false));
        synchronized (LABELLED) {
            List<Double> labelled = LABELLED.computeIfAbsent(chart, c -> new ArrayList<>());
            double gap = Math.max(1, xRange) / 30;
            if (labelled.stream().anyMatch(at -> Math.abs(at - x) < gap)) {
                return;
            }
            labelled.add(x);
        }
        // The text is centred on its position: shift it by half its (estimated) width.
        double plotWidthPixels = Math.max(100, chart.getWidth() - 120);
        double halfTextPixels = label.length() * 3.5 + 6;
        double shift = halfTextPixels / plotWidthPixels * Math.max(1, xRange);
        chart.addAnnotation(new AnnotationText(label, x + shift, labelY, false));
    }

    /** The largest x of the chart's series (0 without series). */
    static double maxX(XYChart chart) {
        return chart.getSeriesCollection().stream()
                .flatMapToDouble(s -> Arrays.stream(s.getXData()))
                .max()
                .orElse(0);
    }
}
