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

import java.util.ArrayList;
import java.util.List;

/**
 * Where the labels of a chart's vertical markers go. A label starts at its marker and runs to the
 * right, in the top row if nothing is written there yet, else in the first row below where it fits,
 * so that labels of close markers ("rebalance (rhino)" a few seconds before "rebalance (flink)")
 * never overlap. A marker repeating the label of one nearby (several operators rebalanced at once)
 * gets no label of its own.
 */
final class MarkerLabelLayout {

    static final int MAX_ROWS = 3;
    private static final double CHAR_PIXELS = 7; // the 11-point sans-serif of the annotations
    private static final double PADDING_PIXELS = 10;

    private record Placed(String label, double x) {}

    private final double pixelsPerUnit;
    private final double repeatGap;
    private final List<List<double[]>> rows = new ArrayList<>();
    private final List<Placed> placed = new ArrayList<>();

    /** For an x axis spanning {@code xRange} units over {@code plotWidthPixels}. */
    MarkerLabelLayout(double xRange, double plotWidthPixels) {
        double range = Math.max(1, xRange);
        this.pixelsPerUnit = plotWidthPixels / range;
        this.repeatGap = range / 30;
        for (int row = 0; row < MAX_ROWS; row++) {
            rows.add(new ArrayList<>());
        }
    }

    /** The estimated width of a label, in pixels. */
    static double textPixels(String label) {
        return label.length() * CHAR_PIXELS + PADDING_PIXELS;
    }

    /** The row (0 at the top) of the label of a marker at {@code x}, or -1 for no label. */
    int place(String label, double x) {
        for (Placed earlier : placed) {
            if (earlier.label().equals(label) && Math.abs(earlier.x() - x) < repeatGap) {
                return -1;
            }
        }
        double from = x * pixelsPerUnit;
        double to = from + textPixels(label);
        for (int row = 0; row < MAX_ROWS; row++) {
            List<double[]> taken = rows.get(row);
            if (taken.stream().noneMatch(span -> from < span[1] && span[0] < to)) {
                taken.add(new double[] {from, to});
                placed.add(new Placed(label, x));
                return row;
            }
        }
        return -1;
    }
}
