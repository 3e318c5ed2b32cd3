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

package io.rhino.handover.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class VnodeLoadsTest {

    @Test
    void ratesSumOverRoutersAndDivideByTheTimeTheirReportsCover() {
        VnodeLoads loads = new VnodeLoads(3, Duration.ofSeconds(10));
        loads.routerReport(0, new long[] {100, 0, 50}, 1_000, 1_000);
        loads.routerReport(0, new long[] {300, 0, 50}, 1_000, 2_000);
        loads.routerReport(1, new long[] {0, 40, 0}, 2_000, 2_000);

        double[] rates = loads.recordsPerSecond(2_000);

        assertThat(rates[0]).isCloseTo(200.0, within(1e-9));
        assertThat(rates[1]).isCloseTo(20.0, within(1e-9));
        assertThat(rates[2]).isCloseTo(50.0, within(1e-9));
    }

    @Test
    void reportsOlderThanTheWindowNoLongerCount() {
        VnodeLoads loads = new VnodeLoads(2, Duration.ofSeconds(5));
        loads.routerReport(0, new long[] {1_000, 0}, 1_000, 1_000);
        loads.routerReport(0, new long[] {0, 10}, 1_000, 5_500);

        assertThat(loads.recordsPerSecond(5_500)).containsExactly(500.0, 5.0);
        assertThat(loads.recordsPerSecond(6_500)).containsExactly(0.0, 10.0);
        assertThat(loads.recordsPerSecond(20_000)).containsExactly(0.0, 0.0);
    }

    @Test
    void stateBytesKeepTheLatestReportAndUnknownIsMinusOne() {
        VnodeLoads loads = new VnodeLoads(2, Duration.ofSeconds(5));
        assertThat(loads.stateBytes(1)).isEqualTo(-1);
        loads.stateBytes(1, 10);
        loads.stateBytes(1, 7);
        loads.stateBytes(5, 7); // not a vnode of this operator: ignored
        assertThat(loads.stateBytes(1)).isEqualTo(7);
    }

    @Test
    void aReportOfAnotherLayoutIsRefused() {
        VnodeLoads loads = new VnodeLoads(2, Duration.ofSeconds(5));
        assertThatThrownBy(() -> loads.routerReport(0, new long[3], 1_000, 1_000))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("3 vnodes");
    }
}
