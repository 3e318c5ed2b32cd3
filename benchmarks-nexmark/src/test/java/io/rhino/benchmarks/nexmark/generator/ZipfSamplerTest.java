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

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The Zipf sampler draws ranks with the Zipf probabilities, also when truncated. */
class ZipfSamplerTest {

    private static final int DRAWS = 400_000;

    @Test
    void probabilitiesAreZipfs() {
        ZipfSampler sampler = new ZipfSampler(1_000, 1.0);
        double harmonic = 0;
        for (int i = 1; i <= 1_000; i++) {
            harmonic += 1.0 / i;
        }
        assertThat(sampler.probability(0)).isCloseTo(1 / harmonic, within(1e-12));
        assertThat(sampler.probability(9)).isCloseTo(1 / (10 * harmonic), within(1e-12));
    }

    @Test
    void drawnFrequenciesMatchTheProbabilities() {
        for (double exponent : new double[] {0.0, 0.7, 1.0, 1.5}) {
            ZipfSampler sampler = new ZipfSampler(1_000, exponent);
            long[] counts = draw(sampler, 1_000);
            for (int rank : new int[] {0, 1, 2, 5, 10, 100, 999}) {
                assertFrequency(
                        counts[rank], sampler.probability(rank), "rank " + rank + " s=" + exponent);
            }
        }
    }

    @Test
    void truncationToFewerCandidatesIsZipfOverThem() {
        ZipfSampler sampler = new ZipfSampler(1_000, 1.0);
        long[] counts = draw(sampler, 4);
        double weight = 1 + 1 / 2.0 + 1 / 3.0 + 1 / 4.0;
        for (int rank = 0; rank < 4; rank++) {
            assertFrequency(counts[rank], 1 / ((rank + 1) * weight), "truncated rank " + rank);
        }
        for (int rank = 4; rank < counts.length; rank++) {
            assertThat(counts[rank]).as("rank %s beyond the candidates", rank).isZero();
        }
        // more candidates than keys: only the keys are drawn
        long[] capped = draw(new ZipfSampler(10, 1.0), 1_000_000);
        for (int rank = 10; rank < capped.length; rank++) {
            assertThat(capped[rank]).isZero();
        }
    }

    @Test
    void uniformSamplerCoversTheRange() {
        KeySampler uniform = KeySampler.of(KeyDistribution.UNIFORM);
        EventRandom random = new EventRandom();
        long[] counts = new long[10];
        for (int i = 0; i < DRAWS; i++) {
            random.reset(1, i);
            counts[(int) uniform.sample(random, 10)]++;
        }
        for (long count : counts) {
            assertFrequency(count, 0.1, "uniform");
        }
    }

    private static long[] draw(KeySampler sampler, long candidates) {
        EventRandom random = new EventRandom();
        long[] counts = new long[1_000];
        for (int i = 0; i < DRAWS; i++) {
            random.reset(99, i);
            long rank = sampler.sample(random, candidates);
            assertThat(rank).isBetween(0L, candidates - 1);
            counts[(int) rank]++;
        }
        return counts;
    }

    /** Within 5 standard deviations of the binomial count. */
    private static void assertFrequency(long count, double p, String what) {
        double expected = p * DRAWS;
        double sigma = Math.sqrt(DRAWS * p * (1 - p));
        assertThat((double) count).as(what).isCloseTo(expected, within(5 * sigma + 1));
    }

    private static org.assertj.core.data.Offset<Double> within(double offset) {
        return org.assertj.core.data.Offset.offset(offset);
    }
}
