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
import static org.assertj.core.api.Assertions.within;

import io.rhino.core.handover.VnodeMove;
import io.rhino.core.routing.RoutingTable;
import io.rhino.core.routing.VnodeLayout;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Vnode loads weighed by the owners' busy time. */
class BusyTimeWeightingTest {

    @Test
    void whereRecordsCostTheSameEverywhereTheImbalanceAndThePlanStay() {
        for (long seed = 0; seed < 500; seed++) {
            ClusterModel model = ReconfigurationPoliciesTest.randomModel(new Random(seed));
            double[] records = model.loadBySubtask();
            double most = 0;
            for (int subtask : model.activeSubtasks()) {
                most = Math.max(most, records[subtask]);
            }
            if (model.activeSubtasks().stream().anyMatch(s -> records[s] <= 0)) {
                continue; // an idle active subtask: nothing to weigh by
            }
            double costPerRecord = 900 / most; // the busiest at 900 ms/s
            Map<Integer, Double> busy = new HashMap<>();
            for (int subtask : model.activeSubtasks()) {
                busy.put(subtask, records[subtask] * costPerRecord);
            }

            ClusterModel weighed = BusyTimeWeighting.weigh(model, busy);

            assertThat(weighed).as("seed %s", seed).isNotSameAs(model);
            for (int vnode = 0; vnode < model.numVnodes(); vnode++) {
                assertThat(weighed.loadOf(vnode))
                        .as("seed %s vnode %s", seed, vnode)
                        .isCloseTo(model.loadOf(vnode) * costPerRecord, within(1e-6));
            }
            assertThat(weighed.imbalance())
                    .as("seed %s", seed)
                    .isCloseTo(model.imbalance(), within(1e-9));
        }
    }

    @Test
    void aSubtaskWhoseRecordsCostMoreIsRelievedThoughItsRecordsAreEven() {
        // 8 vnodes, 100 records/s each, 4 per subtask: even by records
        RoutingTable table = RoutingTable.initial(new VnodeLayout(64, 8), 2, 2);
        Map<Integer, Double> records = new HashMap<>();
        for (int vnode = 0; vnode < 8; vnode++) {
            records.put(vnode, 100.0);
        }
        ClusterModel model = new ClusterModel(table, records, Map.of(), Map.of());
        assertThat(RebalancePolicy.plan(model, 1.1)).isEmpty();

        // subtask 0 spends twice the time per record
        ClusterModel weighed = BusyTimeWeighting.weigh(model, Map.of(0, 800.0, 1, 400.0));

        assertThat(weighed.imbalance()).isCloseTo(8.0 / 6.0, within(1e-9));
        List<VnodeMove> moves = RebalancePolicy.plan(weighed, 1.1);
        assertThat(moves).hasSize(1);
        assertThat(moves.get(0).fromSubtask()).isZero();
        assertThat(moves.get(0).toSubtask()).isEqualTo(1);
    }

    @Test
    void idleOrUnreportedSubtasksLeaveTheRecordRates() {
        RoutingTable table = RoutingTable.initial(new VnodeLayout(64, 8), 2, 2);
        Map<Integer, Double> records = new HashMap<>();
        for (int vnode = 0; vnode < 8; vnode++) {
            records.put(vnode, 100.0 + vnode);
        }
        ClusterModel model = new ClusterModel(table, records, Map.of(), Map.of());

        assertThat(BusyTimeWeighting.weigh(model, Map.of(0, 60.0, 1, 20.0)))
                .as("the busiest under 100 ms/s: mostly fixed per-task work")
                .isSameAs(model);
        assertThat(BusyTimeWeighting.weigh(model, Map.of(0, 800.0)))
                .as("subtask 1 did not report")
                .isSameAs(model);
        assertThat(BusyTimeWeighting.weigh(model, Map.of(0, 800.0, 1, Double.NaN))).isSameAs(model);
    }
}
