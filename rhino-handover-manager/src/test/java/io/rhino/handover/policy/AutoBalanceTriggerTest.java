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

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class AutoBalanceTriggerTest {

    private final AutoBalanceTrigger trigger = new AutoBalanceTrigger(1.2, 10_000, 60_000);

    @Test
    void firesOnlyOnceTheImbalanceLastedTheWholeInterval() {
        assertThat(trigger.observe(2.0, 0)).isFalse();
        assertThat(trigger.observe(2.0, 9_999)).isFalse();
        assertThat(trigger.observe(2.0, 10_000)).isTrue();
    }

    @Test
    void aDipUnderTheThresholdRestartsTheInterval() {
        trigger.observe(2.0, 0);
        trigger.observe(1.1, 5_000);
        assertThat(trigger.observe(2.0, 10_000)).isFalse();
        assertThat(trigger.observe(2.0, 20_000)).isTrue();
    }

    @Test
    void nothingFiresDuringTheCooldownAfterARebalance() {
        trigger.rebalanced(0);
        assertThat(trigger.observe(3.0, 30_000)).isFalse();
        assertThat(trigger.observe(3.0, 59_999)).isFalse();
        assertThat(trigger.observe(3.0, 60_000)).isFalse();
        assertThat(trigger.observe(3.0, 70_000)).isTrue();
    }

    @Test
    void theThresholdItselfIsBalanced() {
        assertThat(trigger.observe(1.2, 0)).isFalse();
        assertThat(trigger.observe(1.2, 100_000)).isFalse();
    }

    @Test
    void anImbalanceCountsOnlyWhileTheBusiestSubtaskIsBusyEnough() {
        AutoBalanceTrigger busy = new AutoBalanceTrigger(1.2, 10_000, 60_000, 500);
        assertThat(busy.observe(2.0, 300, 0)).isFalse();
        assertThat(busy.observe(2.0, 300, 20_000)).as("idle enough: never").isFalse();
        assertThat(busy.observe(2.0, 800, 21_000)).as("busy from now on").isFalse();
        assertThat(busy.observe(2.0, 800, 30_000)).isFalse();
        assertThat(busy.observe(2.0, 800, 31_000)).isTrue();

        AutoBalanceTrigger unreported = new AutoBalanceTrigger(1.2, 0, 0, 500);
        assertThat(unreported.observe(2.0, Double.NaN, 0)).isFalse();
        assertThat(new AutoBalanceTrigger(1.2, 0, 0, 0).observe(2.0, Double.NaN, 0)).isTrue();
    }
}
