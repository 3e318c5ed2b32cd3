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

package io.rhino.handover.policy;

/**
 * When the auto-balancer rebalances an operator: once its load imbalance has stayed above the
 * threshold, with its busiest subtask busy enough for the imbalance to cost throughput, for a
 * sustained period, and not within a cooldown after the last rebalance. A pure state machine over
 * the observations it is fed; not thread-safe.
 */
public final class AutoBalanceTrigger {

    private final double maxImbalance;
    private final long sustainMillis;
    private final long cooldownMillis;
    private final double minBusyMsPerSecond;
    private long aboveSinceMillis = -1;
    private long coolUntilMillis = Long.MIN_VALUE;

    /**
     * @param maxImbalance the max/mean ratio above which the operator is imbalanced, {@code >= 1}
     * @param sustainMillis how long it must stay above before a rebalance
     * @param cooldownMillis how long after a rebalance nothing is decided
     */
    public AutoBalanceTrigger(double maxImbalance, long sustainMillis, long cooldownMillis) {
        this(maxImbalance, sustainMillis, cooldownMillis, 0);
    }

    /**
     * @param minBusyMsPerSecond the busy time (Flink's busyTimeMsPerSecond, 0..1000) the busiest
     *     subtask must reach for an imbalance to count; 0 counts it whatever the busy time
     */
    public AutoBalanceTrigger(
            double maxImbalance,
            long sustainMillis,
            long cooldownMillis,
            double minBusyMsPerSecond) {
        if (!(minBusyMsPerSecond >= 0 && minBusyMsPerSecond <= 1000)) {
            throw new IllegalArgumentException(
                    "minBusyMsPerSecond " + minBusyMsPerSecond + " (expected 0..1000)");
        }
        this.minBusyMsPerSecond = minBusyMsPerSecond;
        if (!(maxImbalance >= 1.0) || sustainMillis < 0 || cooldownMillis < 0) {
            throw new IllegalArgumentException(
                    "maxImbalance "
                            + maxImbalance
                            + " (expected >= 1), sustainMillis "
                            + sustainMillis
                            + ", cooldownMillis "
                            + cooldownMillis
                            + " (expected >= 0)");
        }
        this.maxImbalance = maxImbalance;
        this.sustainMillis = sustainMillis;
        this.cooldownMillis = cooldownMillis;
    }

    /** Whether to rebalance now, given the imbalance measured at {@code nowMillis}. */
    public boolean observe(double imbalance, long nowMillis) {
        return observe(imbalance, Double.NaN, nowMillis);
    }

    /**
     * Whether to rebalance now, given the imbalance and the busiest active subtask's busy time
     * (NaN: not reported) measured at {@code nowMillis}. Below the minimum busy time the subtasks
     * have time to spare and evening their load gains nothing; an unreported busy time counts as
     * below a positive minimum.
     */
    public boolean observe(double imbalance, double busiestMsPerSecond, long nowMillis) {
        boolean busyEnough = minBusyMsPerSecond <= 0 || busiestMsPerSecond >= minBusyMsPerSecond;
        if (nowMillis < coolUntilMillis || imbalance <= maxImbalance || !busyEnough) {
            aboveSinceMillis = -1;
            return false;
        }
        if (aboveSinceMillis < 0) {
            aboveSinceMillis = nowMillis;
        }
        return nowMillis - aboveSinceMillis >= sustainMillis;
    }

    /** A rebalance started at {@code nowMillis} (the balancer's or anyone's): cool down. */
    public void rebalanced(long nowMillis) {
        aboveSinceMillis = -1;
        coolUntilMillis = nowMillis + cooldownMillis;
    }

    public double maxImbalance() {
        return maxImbalance;
    }
}
