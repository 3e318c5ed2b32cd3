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
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import org.knowm.xchart.AnnotationLine;
import org.knowm.xchart.AnnotationText;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler.LegendLayout;
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
                .setLegendPosition(LegendPosition.OutsideS)
                .setLegendLayout(LegendLayout.Horizontal)
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

    // where each chart's marker labels went, so that close markers' labels do not overlap
    private static final Map<XYChart, MarkerLabelLayout> LABELS = new WeakHashMap<>();

    // title, axis titles and ticks, and the legend below the plot
    private static final int CHART_FRAME_PIXELS = 130;
    private static final double TEXT_LINE_PIXELS = 15;

    /**
     * A vertical black line at {@code x} with {@code label} to the right of its top at {@code
     * labelY}, or a row lower where an earlier label is in the way (see {@link MarkerLabelLayout});
     * {@code xRange} is the span of the x axis.
     */
    static void addMarker(XYChart chart, String label, double x, double labelY, double xRange) {
        chart.addAnnotation(new AnnotationLine(x, true, false));
        double plotWidthPixels = Math.max(100, chart.getWidth() - 120);
        int row;
        synchronized (LABELS) {
            row =
                    LABELS.computeIfAbsent(
                                    chart, c -> new MarkerLabelLayout(xRange, plotWidthPixels))
                            .place(label, x);
        }
        if (row < 0) {
            return;
        }
        // The text is centred on its position: shift it by half its (estimated) width.
        double shift =
                MarkerLabelLayout.textPixels(label) / 2 / plotWidthPixels * Math.max(1, xRange);
        chart.addAnnotation(new AnnotationText(label, x + shift, rowY(chart, labelY, row), false));
    }

    /** {@code labelY} moved down by {@code row} lines of text, on a linear or log axis. */
    private static double rowY(XYChart chart, double labelY, int row) {
        if (row == 0) {
            return labelY;
        }
        double lines =
                row * TEXT_LINE_PIXELS / Math.max(50, chart.getHeight() - CHART_FRAME_PIXELS);
        double bottom = minY(chart);
        if (chart.getStyler().isYAxisLogarithmic()) {
            // a flat series spans no range of its own: step as if the axis spanned a decade
            double low = bottom > 0 && bottom < labelY ? bottom : labelY / 10;
            return labelY / Math.pow(labelY / low, lines);
        }
        // a linear axis here starts at zero or below
        return labelY - (labelY - Math.min(Math.min(bottom, 0), labelY)) * lines;
    }

    /** The smallest y of the chart's series (0 without series); NaN marks a break in a line. */
    private static double minY(XYChart chart) {
        return chart.getSeriesCollection().stream()
                .flatMapToDouble(s -> Arrays.stream(s.getYData()))
                .filter(y -> !Double.isNaN(y))
                .min()
                .orElse(0);
    }

    /**
     * Lets XChart choose round time ticks (every 5, 10, 20 s) about 74 px apart. Given x values one
     * second apart, XChart instead labels every n-th second with labels barely their own width
     * apart; an axis that starts half a second before the first value is not evenly spaced, so it
     * takes the round steps. Call after the series are added.
     */
    static void roundTimeTicks(XYChart chart) {
        chart.getSeriesCollection().stream()
                .flatMapToDouble(s -> Arrays.stream(s.getXData()))
                .min()
                .ifPresent(first -> chart.getStyler().setXAxisMin(first - 0.5));
    }

    /** The largest x of the chart's series (0 without series). */
    static double maxX(XYChart chart) {
        return chart.getSeriesCollection().stream()
                .flatMapToDouble(s -> Arrays.stream(s.getXData()))
                .max()
                .orElse(0);
    }
}
