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

package io.rhino.benchmarks.scenarios;

import io.rhino.benchmarks.nexmark.generator.RateSchedule;
import java.util.Objects;

/**
 * A rate schedule that can be switched while the producer runs: the state-size fill runs at the
 * maximum rate, then the measured run continues at the workload's rate. A schedule switched to
 * starts at its own time zero (a varying rate starts at its first step).
 */
final class SwitchableRate implements RateSchedule {

    private record Active(RateSchedule schedule, long sinceNanos) {}

    private volatile Active active;

    SwitchableRate(RateSchedule initial) {
        this.active = new Active(Objects.requireNonNull(initial), 0);
    }

    /** From {@code elapsedNanos} (on the producer's clock, see {@link #bytesPerSecond}) on. */
    void switchTo(RateSchedule schedule, long elapsedNanos) {
        active = new Active(Objects.requireNonNull(schedule), elapsedNanos);
    }

    @Override
    public double bytesPerSecond(long elapsedNanos) {
        Active current = active;
        return current.schedule().bytesPerSecond(elapsedNanos - current.sinceNanos());
    }
}
