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

import java.util.Collection;
import java.util.Locale;

/**
 * Mean and sample standard deviation (n - 1 in the denominator; 0 for a single value) of repeated
 * measurements.
 */
public record MeanStd(double mean, double stddev, int n) {

    /** The mean and standard deviation of {@code values}; n = 0 when there are none. */
    public static MeanStd of(Collection<Double> values) {
        int n = values.size();
        if (n == 0) {
            return new MeanStd(Double.NaN, Double.NaN, 0);
        }
        double mean = values.stream().mapToDouble(Double::doubleValue).sum() / n;
        if (n == 1) {
            return new MeanStd(mean, 0, 1);
        }
        double squares = values.stream().mapToDouble(v -> (v - mean) * (v - mean)).sum();
        return new MeanStd(mean, Math.sqrt(squares / (n - 1)), n);
    }

    /** "2.2 ± 0.1" with {@code decimals} decimals; "–" without values. */
    public String format(int decimals) {
        if (n == 0) {
            return "–";
        }
        String pattern = "%." + decimals + "f ± %." + decimals + "f";
        return String.format(Locale.ROOT, pattern, mean, stddev);
    }
}
