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
 * threshold for a sustained period, and not within a cooldown after the last rebalance. A pure
 * state machine over the observations it is fed; not thread-safe.
 */
public final class AutoBalanceTrigger {

    private final double maxImbalance;
    private final long sustainMillis;
    private final long cooldownMillis;
    private long aboveSinceMillis = -1;
    private long coolUntilMillis = Long.MIN_VALUE;

    /**
     * @param maxImbalance the max/mean ratio above which the operator is imbalanced, {@code >= 1}
     * @param sustainMillis how long it must stay above before a rebalance
     * @param cooldownMillis how long after a rebalance nothing is decided
     */
    public AutoBalanceTrigger(double maxImbalance, long sustainMillis, long cooldownMillis) {
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
        if (nowMillis < coolUntilMillis || imbalance <= maxImbalance) {
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
