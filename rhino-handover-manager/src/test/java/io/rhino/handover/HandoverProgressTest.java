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

package io.rhino.handover;

import static io.rhino.core.handover.HandoverPhase.COMPLETED;
import static io.rhino.core.handover.HandoverPhase.MARKERS_PROPAGATED;
import static io.rhino.core.handover.HandoverPhase.ORIGIN_ALIGNED;
import static io.rhino.core.handover.HandoverPhase.STATE_SHIPPED;
import static io.rhino.core.handover.HandoverPhase.TARGET_INSTALLED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rhino.core.handover.HandoverId;
import io.rhino.core.handover.HandoverPhase;
import io.rhino.core.handover.HandoverPlan;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class HandoverProgressTest {

    private static final HandoverId ID = new HandoverId("h");
    // Origins 0 and 1; targets 2 (vnodes 5, 7) and 3 (vnode 6, 9).
    private static final HandoverPlan PLAN =
            HandoverPlan.of(0, Harness.moves(5, 0, 2, 6, 0, 3, 7, 1, 2, 9, 1, 3));

    private final FakeClock clock = new FakeClock(0);
    private final HandoverProgress progress = new HandoverProgress(ID, PLAN, 2, clock);

    private List<ShippedVnode> shipped(Integer... vnodes) {
        return Harness.shipped(PLAN, ID, vnodes);
    }

    @Test
    void advancesOnlyAsFarAsTheReportsAllowInOrder() {
        assertThat(progress.advance()).isEmpty();
        progress.recordShipped(0, shipped(5, 6));
        progress.recordShipped(1, shipped(7, 9));
        assertThat(progress.advance()).isEmpty();
        progress.recordRouterAck(0);
        progress.recordRouterAck(1);
        assertThat(progress.advance())
                .containsExactly(MARKERS_PROPAGATED, ORIGIN_ALIGNED, STATE_SHIPPED);
        progress.recordInstalled(2, Set.of(5, 7));
        progress.recordInstalled(3, Set.of(6, 9));
        assertThat(progress.advance()).containsExactly(TARGET_INSTALLED, COMPLETED);
        assertThat(progress.phase()).isEqualTo(COMPLETED);
    }

    @Test
    void reportsNewItemsOnly() {
        assertThat(progress.recordRouterAck(1)).isTrue();
        assertThat(progress.recordRouterAck(1)).isFalse();
        assertThat(progress.recordShipped(0, shipped(5)))
                .extracting(ShippedVnode::vnode)
                .containsExactly(5);
        assertThat(progress.recordShipped(0, shipped(6, 5)))
                .extracting(ShippedVnode::vnode)
                .containsExactly(6);
        assertThat(progress.recordInstalled(2, Set.of(5))).containsExactly(5);
        assertThat(progress.recordInstalled(2, Set.of(5, 7))).containsExactly(7);
    }

    @Test
    void waitingForNamesEveryMissingPartyInProtocolOrder() {
        assertThat(progress.waitingFor())
                .isEqualTo(
                        "routers [0, 1] to acknowledge the command; origins [0, 1] to ship vnodes"
                                + " [5, 6, 7, 9]; targets [2, 3] to install vnodes [5, 6, 7, 9]");
        progress.recordRouterAck(0);
        progress.recordRouterAck(1);
        progress.recordShipped(0, shipped(5, 6));
        progress.recordShipped(1, shipped(7, 9));
        progress.recordInstalled(3, Set.of(6, 9));
        assertThat(progress.waitingFor()).isEqualTo("targets [2] to install vnodes [5, 7]");
    }

    @Test
    void contradictionsAreRejectedAndRecordNothing() {
        assertThatThrownBy(() -> progress.recordRouterAck(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("routerSubtask: -1 (expected: 0..1");
        assertThatThrownBy(
                        () ->
                                progress.recordShipped(
                                        0,
                                        List.of(shipped(5).get(0), new ShippedVnode(7, 1, 2, "x"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("shipped vnode 7: 1->2 reported by origin 0");
        assertThatThrownBy(() -> progress.recordInstalled(2, Set.of(5, 6)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("installed vnode: 6 on subtask 2");
        assertThat(progress.waitingFor()).contains("origins [0, 1] to ship vnodes [5, 6, 7, 9]");
        assertThat(progress.waitingFor()).contains("targets [2, 3] to install vnodes [5, 6, 7, 9]");
        assertThat(progress.phase()).isEqualTo(HandoverPhase.REQUESTED);
    }

    @Test
    void measuresPhasesWithTheClock() {
        clock.advance(5);
        progress.recordRouterAck(0);
        progress.recordRouterAck(1);
        progress.advance();
        assertThat(progress.machine().phaseDurationsMillis()).containsEntry(MARKERS_PROPAGATED, 5L);
    }
}
