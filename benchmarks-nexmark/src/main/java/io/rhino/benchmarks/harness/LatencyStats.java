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

import org.HdrHistogram.Histogram;

/**
 * Summary of a set of latencies in milliseconds. With {@code count == 0} the other fields are
 * meaningless (zero); writers print them as empty cells.
 *
 * <p>Percentiles and the maximum come from an HdrHistogram with three significant digits: exact
 * below 2048 ms, within 0.1% above.
 */
public record LatencyStats(
        long count, double meanMs, long minMs, long p50Ms, long p99Ms, long p999Ms, long maxMs) {

    /** No samples. */
    public static final LatencyStats EMPTY = new LatencyStats(0, 0, 0, 0, 0, 0, 0);

    /** The summary of {@code histogram} (values in ms). */
    public static LatencyStats of(Histogram histogram) {
        if (histogram.getTotalCount() == 0) {
            return EMPTY;
        }
        return new LatencyStats(
                histogram.getTotalCount(),
                histogram.getMean(),
                histogram.getMinValue(),
                histogram.getValueAtPercentile(50),
                histogram.getValueAtPercentile(99),
                histogram.getValueAtPercentile(99.9),
                histogram.getMaxValue());
    }

    public boolean isEmpty() {
        return count == 0;
    }
}
