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

package io.rhino.benchmarks.nexmark.generator;

import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Zipf-distributed ranks by inversion: a table of the cumulative weights {@code sum_{i<=r} 1 / (i +
 * 1)^s}, searched by bisection. Sampling among only the first {@code m} ranks (when fewer keys
 * exist yet) scales the uniform draw by the weight of the first {@code m} ranks, which is exactly
 * Zipf truncated to {@code m}. The table is immutable and shared between threads.
 */
public final class ZipfSampler implements KeySampler {

    private static final Map<String, ZipfSampler> SHARED = new ConcurrentHashMap<>();

    private final double[] cumulative;
    private final double exponent;

    public ZipfSampler(int keys, double exponent) {
        if (keys < 1 || exponent < 0) {
            throw new IllegalArgumentException("keys >= 1 and exponent >= 0 needed");
        }
        this.exponent = exponent;
        this.cumulative = new double[keys];
        double sum = 0;
        for (int rank = 0; rank < keys; rank++) {
            sum += Math.pow(rank + 1, -exponent);
            cumulative[rank] = sum;
        }
    }

    /** One table per (keys, exponent) in the JVM: producer threads share it. */
    static ZipfSampler shared(int keys, double exponent) {
        return SHARED.computeIfAbsent(keys + "/" + exponent, k -> new ZipfSampler(keys, exponent));
    }

    public int keys() {
        return cumulative.length;
    }

    public double exponent() {
        return exponent;
    }

    /** The probability of {@code rank} when all {@link #keys()} ranks are candidates. */
    public double probability(int rank) {
        double below = rank == 0 ? 0 : cumulative[rank - 1];
        return (cumulative[rank] - below) / cumulative[cumulative.length - 1];
    }

    @Override
    public long sample(EventRandom random, long count) {
        int candidates = (int) Math.min(count, cumulative.length);
        double u = random.nextDouble() * cumulative[candidates - 1];
        // the first rank whose cumulative weight exceeds u
        int found = Arrays.binarySearch(cumulative, 0, candidates, u);
        int rank = found >= 0 ? found + 1 : -found - 1;
        return Math.min(rank, candidates - 1);
    }
}
