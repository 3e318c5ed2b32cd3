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

package io.rhino.flink.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.rhino.core.handover.HandoverId;
import io.rhino.core.handover.HandoverMarker;
import io.rhino.core.handover.HandoverPlan;
import io.rhino.core.handover.VnodeMove;
import java.util.List;
import java.util.Set;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.junit.jupiter.api.Test;

/** The per-subtask handover bookkeeping of a gate, without Flink around it. */
class GateProtocolStateTest {

    private static final HandoverId ID = new HandoverId("h1");
    private static final HandoverPlan PLAN =
            HandoverPlan.of(
                    0,
                    List.of(
                            new VnodeMove(1, 0, 2),
                            new VnodeMove(5, 2, 0),
                            new VnodeMove(6, 1, 2)));

    private static HandoverMarker marker(int router) {
        return new HandoverMarker(ID, 1, router, PLAN);
    }

    @Test
    void originIsAlignedOnlyAfterEveryRoutersMarker() {
        GateHandover origin = new GateHandover(ID, 0);
        assertThat(origin.onMarker(marker(1), 3)).as("first marker").isTrue();
        assertThat(origin.outgoing()).containsExactly(1);
        assertThat(origin.targetOf(1)).isEqualTo(2);
        assertThat(origin.pendingIncoming()).containsExactly(5);
        assertThat(origin.needsShipping()).isFalse();
        assertThat(origin.onMarker(marker(0), 3)).isFalse();
        assertThat(origin.onMarker(marker(0), 3)).as("duplicate marker").isFalse();
        assertThat(origin.aligned()).isFalse();
        origin.onMarker(marker(2), 3);
        assertThat(origin.needsShipping()).isTrue();
        origin.markShipped();
        assertThat(origin.needsShipping()).isFalse();
        assertThat(origin.done()).as("still waits for incoming vnode 5").isFalse();
        origin.markInstalled(Set.of(5));
        assertThat(origin.done()).isTrue();
    }

    @Test
    void installBeforeTheFirstMarkerIsNotAwaitedAgain() {
        GateHandover target = new GateHandover(ID, 2);
        target.markInstalled(Set.of(1));
        target.onMarker(marker(0), 1);
        assertThat(target.pendingIncoming()).containsExactly(6);
        assertThat(target.outgoing()).containsExactly(5);
    }

    @Test
    void originHoldsEventTimeFromItsFirstMarkerUntilItShipped() {
        GateHandover origin = new GateHandover(ID, 1);
        assertThat(origin.awaitsShipping()).as("no marker yet").isFalse();
        origin.onMarker(marker(0), 2);
        assertThat(origin.awaitsShipping())
                .as("router 0 already sends vnode 6 to subtask 2; router 1 still sends it here")
                .isTrue();
        origin.onMarker(marker(1), 2);
        assertThat(origin.needsShipping()).isTrue();
        assertThat(origin.awaitsShipping()).isTrue();
        origin.markShipped();
        assertThat(origin.awaitsShipping()).isFalse();
    }

    @Test
    void bystandersAndPureTargetsDoNotWaitForShipping() {
        GateHandover bystander = new GateHandover(ID, 3);
        bystander.onMarker(marker(0), 2);
        assertThat(bystander.awaitsShipping()).isFalse();
        GateHandover pureTarget = new GateHandover(new HandoverId("h2"), 2);
        pureTarget.onMarker(
                new HandoverMarker(
                        new HandoverId("h2"),
                        1,
                        0,
                        HandoverPlan.of(0, List.of(new VnodeMove(1, 0, 2)))),
                2);
        assertThat(pureTarget.awaitsShipping()).isFalse();
        assertThat(pureTarget.pendingIncoming()).containsExactly(1);
    }

    @Test
    void watermarkHoldKeepsTheNewestAndReleasesItOnce() {
        WatermarkHold hold = new WatermarkHold();
        assertThat(hold.release()).isNull();
        hold.hold(new Watermark(20));
        hold.hold(new Watermark(30));
        assertThat(hold.release()).isEqualTo(new Watermark(30));
        assertThat(hold.release()).as("released once").isNull();
    }

    @Test
    void aReplayedMarkerOfAnEndedHandoverContradictsWhatTheSubtaskOwns() {
        // after handover h1 ended: subtask 2 owns 1 and 6 (targets), subtask 0 owns 5
        assertThat(GateHandover.contradictsOwnership(marker(0), 2, v -> v == 1 || v == 6))
                .as("target already owns its incoming vnodes")
                .isTrue();
        assertThat(GateHandover.contradictsOwnership(marker(0), 0, v -> v == 5))
                .as("origin no longer owns vnode 1, which it would give away")
                .isTrue();
        // while h1 runs: the target does not own them yet, the origin still does
        assertThat(GateHandover.contradictsOwnership(marker(0), 2, v -> v == 5)).isFalse();
        assertThat(GateHandover.contradictsOwnership(marker(0), 0, v -> v == 1)).isFalse();
        assertThat(GateHandover.contradictsOwnership(marker(0), 3, v -> true))
                .as("a subtask the handover does not involve")
                .isFalse();
    }
}
