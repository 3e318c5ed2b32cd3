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

import java.time.Duration;

/** A target send rate in bytes per second as a function of the time since sending started. */
public interface RateSchedule {

    /** The rate {@code elapsedNanos} after the start; infinite means no limit. */
    double bytesPerSecond(long elapsedNanos);

    /** No limit: as fast as the producer can. */
    static RateSchedule max() {
        return elapsed -> Double.POSITIVE_INFINITY;
    }

    /** A constant rate. */
    static RateSchedule fixed(double bytesPerSecond) {
        if (!(bytesPerSecond > 0)) {
            throw new IllegalArgumentException("rate must be positive: " + bytesPerSecond);
        }
        return elapsed -> bytesPerSecond;
    }

    /**
     * The paper's varying rate, per producer thread: 1 MB/s, up by 0.5 MB/s every 10 s to 8 MB/s,
     * then down the same way to 1 MB/s, and again (a period of 280 s). 1 MB is 10^6 bytes.
     */
    static RateSchedule paperVarying() {
        return new VaryingRate(1e6, 0.5e6, 8e6, Duration.ofSeconds(10));
    }

    /**
     * A triangle of steps: {@code start}, {@code start + step}, ... up to {@code max}, then down to
     * {@code start + step}, and from {@code start} again; each level lasts {@code stepTime}.
     */
    record VaryingRate(double start, double step, double max, Duration stepTime)
            implements RateSchedule {

        public VaryingRate {
            if (!(start > 0)
                    || !(step > 0)
                    || max < start
                    || stepTime.isNegative()
                    || stepTime.isZero()) {
                throw new IllegalArgumentException(
                        "need 0 < start <= max, step > 0 and a positive step time");
            }
        }

        /** Steps from {@code start} up to {@code max}. */
        int stepsUp() {
            return (int) Math.round((max - start) / step);
        }

        @Override
        public double bytesPerSecond(long elapsedNanos) {
            int up = stepsUp();
            if (up == 0) {
                return start;
            }
            long level = Math.max(0, elapsedNanos) / stepTime.toNanos() % (2L * up);
            return start + step * (level <= up ? level : 2L * up - level);
        }
    }
}
