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

/**
 * A small pseudo-random generator (SplitMix64) that is reset for every event from the seed and the
 * event's index. An event's content therefore depends only on (seed, index), not on which producer
 * thread makes it or in what order; and resetting allocates nothing.
 */
public final class EventRandom {

    private static final long GOLDEN_GAMMA = 0x9E3779B97F4A7C15L;

    private long state;

    /** Positions the generator at event {@code index} of the stream seeded with {@code seed}. */
    public void reset(long seed, long index) {
        state = mix(seed ^ mix(index * GOLDEN_GAMMA + 0x632BE59BD9B4E019L));
    }

    public long nextLong() {
        state += GOLDEN_GAMMA;
        return mix(state);
    }

    /** Uniform in [0, bound); {@code bound} must be positive. */
    public long nextLong(long bound) {
        if (bound <= 0) {
            throw new IllegalArgumentException("bound must be positive: " + bound);
        }
        return unbiased(bound);
    }

    /** Uniform in [0, 1). */
    public double nextDouble() {
        return (nextLong() >>> 11) * 0x1.0p-53;
    }

    /** Fills {@code bytes} with random bytes. */
    public void nextBytes(byte[] bytes) {
        int i = 0;
        while (i < bytes.length) {
            long word = nextLong();
            for (int j = 0; j < Long.BYTES && i < bytes.length; j++, i++) {
                bytes[i] = (byte) word;
                word >>>= 8;
            }
        }
    }

    private long unbiased(long bound) {
        long mask = bound - 1;
        if ((bound & mask) == 0) {
            return nextLong() & mask;
        }
        // Rejection on the top bits: exact uniformity.
        long limit = Long.MAX_VALUE - (Long.MAX_VALUE % bound);
        while (true) {
            long candidate = nextLong() >>> 1;
            if (candidate < limit) {
                return candidate % bound;
            }
        }
    }

    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
