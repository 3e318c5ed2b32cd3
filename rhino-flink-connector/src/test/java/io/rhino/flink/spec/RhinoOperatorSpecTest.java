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

package io.rhino.flink.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rhino.core.routing.RoutingTable;
import io.rhino.core.routing.VnodeLayout;
import org.junit.jupiter.api.Test;

class RhinoOperatorSpecTest {

    private static final RhinoOperatorSpec SPEC = new RhinoOperatorSpec("counts", 128, 8, 2, 2);
    private static final RhinoOperatorSpec DEFAULT_VNODES =
            new RhinoOperatorSpec("counts", 128, 8, 2, 2, false);

    @Test
    void aRestoredTableOfTheSameShapeIsKept() {
        RoutingTable restored =
                new RhinoOperatorSpec("renamed", 128, 8, 2, 1).initialRoutingTable();
        assertThat(SPEC.refusalToRun(2, restored.layout())).isEmpty();
        assertThat(SPEC.routingTableAt(2, restored)).isSameAs(restored);
    }

    @Test
    void aRestoreAtAnotherParallelismRedistributesTheRestoredVnodes() {
        RoutingTable restored = new RhinoOperatorSpec("counts", 128, 8, 2, 2).initialRoutingTable();

        RoutingTable atFour = SPEC.routingTableAt(4, restored);

        assertThat(atFour.parallelism()).isEqualTo(4);
        assertThat(atFour.epoch()).isEqualTo(restored.epoch() + 1);
        assertThat(atFour.ownerByVnode()).containsExactly(0, 0, 1, 1, 2, 2, 3, 3);
        assertThat(SPEC.running(4, restored.layout()).parallelism()).isEqualTo(4);
    }

    @Test
    void anUnchosenVnodeCountFollowsTheRestoredState() {
        VnodeLayout restored = new VnodeLayout(128, 16);

        RhinoOperatorSpec running = DEFAULT_VNODES.running(3, restored);

        assertThat(running.numVnodes()).isEqualTo(16);
        assertThat(running.parallelism()).isEqualTo(3);
        assertThat(DEFAULT_VNODES.running(3, null).numVnodes()).isEqualTo(8);
    }

    @Test
    void aChosenVnodeCountOtherThanTheRestoredOneIsRefusedNamingBoth() {
        assertThat(SPEC.refusalToRun(2, new VnodeLayout(128, 16)))
                .hasValue(
                        "Rhino keyed stream 'counts' restores state of 128 key groups in 16"
                                + " vnodes, but the job is built with 128 key groups in 8 vnodes."
                                + " The vnode count of existing state cannot change: set"
                                + " rhino.vnodes: 16, or leave it unset to keep the restored"
                                + " count.");
        assertThatThrownBy(() -> SPEC.running(2, new VnodeLayout(128, 16)))
                .hasRootCauseMessage(SPEC.refusalToRun(2, new VnodeLayout(128, 16)).get());
    }

    @Test
    void otherKeyGroupsAreRefusedWhateverTheVnodes() {
        assertThat(DEFAULT_VNODES.refusalToRun(2, new VnodeLayout(256, 8)))
                .hasValue(
                        "Rhino keyed stream 'counts' restores state of 256 key groups in 8 vnodes,"
                                + " but the job is built with 128 key groups in 8 vnodes. Key"
                                + " groups cannot change for existing state: build the job with"
                                + " the restored values (rhino.key-groups: 256, rhino.vnodes: 8,"
                                + " or RhinoKeyedStreamOptions' keyGroups and vnodes).");
    }
}
