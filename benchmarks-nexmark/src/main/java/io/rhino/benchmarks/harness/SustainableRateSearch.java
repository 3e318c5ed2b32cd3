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
import java.util.OptionalDouble;
import java.util.OptionalLong;

/**
 * Searches the highest input rate a system sustains: doubles the rate until a step fails, then
 * bisects between the highest sustained and the lowest failed rate until they are within {@code
 * precision} of each other (or the step budget is spent). Whether a step was sustained is the
 * caller's verdict ({@link #sustained(List, long)}); this class only chooses the next rate.
 */
public final class SustainableRateSearch {

    /** One probed rate and its verdict. */
    public record Step(double rate, boolean sustained) {}

    private final double precision;
    private final int maxSteps;
    private final List<Step> steps = new ArrayList<>();
    private double highestSustained;
    private double lowestFailed = Double.POSITIVE_INFINITY;
    private double next;

    /**
     * @param startRate first rate to probe (any unit; the caller's)
     * @param precision stop once the lowest failed rate is within this fraction above the highest
     *     sustained one, e.g. 0.1
     * @param maxSteps stop after this many steps in any case
     */
    public SustainableRateSearch(double startRate, double precision, int maxSteps) {
        if (startRate <= 0 || precision <= 0 || maxSteps < 1) {
            throw new IllegalArgumentException(
                    "need a positive start rate and precision and at least one step");
        }
        this.precision = precision;
        this.maxSteps = maxSteps;
        this.next = startRate;
    }

    /** The rate to probe next; empty once the search is done. */
    public OptionalDouble nextRate() {
        return done() ? OptionalDouble.empty() : OptionalDouble.of(next);
    }

    /** Records the verdict of the step at {@link #nextRate()}. */
    public void record(boolean sustained) {
        if (done()) {
            throw new IllegalStateException("the search is done");
        }
        steps.add(new Step(next, sustained));
        if (sustained) {
            highestSustained = Math.max(highestSustained, next);
        } else {
            lowestFailed = Math.min(lowestFailed, next);
        }
        if (lowestFailed == Double.POSITIVE_INFINITY) {
            next = highestSustained * 2;
        } else if (highestSustained == 0) {
            next = lowestFailed / 2;
        } else {
            next = (highestSustained + lowestFailed) / 2;
        }
    }

    public boolean done() {
        return steps.size() >= maxSteps
                || (highestSustained > 0 && lowestFailed <= highestSustained * (1 + precision));
    }

    /** The highest rate sustained so far; empty if none was. */
    public OptionalDouble highestSustained() {
        return highestSustained > 0 ? OptionalDouble.of(highestSustained) : OptionalDouble.empty();
    }

    public List<Step> steps() {
        return List.copyOf(steps);
    }

    /**
     * The verdict on one step: sustained if the median of its per-second p99 latencies is at most
     * {@code boundMillis}. A system that falls behind builds a backlog, and its latency then grows
     * second after second, so the median exceeds any bound once the step is long enough; the
     * median, unlike the maximum, lets a single checkpoint's spike pass.
     *
     * @param p99PerSecond the p99 latency of each second judged, seconds without results left out
     */
    public static boolean sustained(List<Long> p99PerSecond, long boundMillis) {
        OptionalLong median = median(p99PerSecond);
        return median.isPresent() && median.getAsLong() <= boundMillis;
    }

    /** The median (the lower of the middle two) of per-second latencies; empty without any. */
    public static OptionalLong median(List<Long> millisPerSecond) {
        if (millisPerSecond.isEmpty()) {
            return OptionalLong.empty();
        }
        List<Long> sorted = millisPerSecond.stream().sorted().toList();
        return OptionalLong.of(sorted.get((sorted.size() - 1) / 2));
    }
}
