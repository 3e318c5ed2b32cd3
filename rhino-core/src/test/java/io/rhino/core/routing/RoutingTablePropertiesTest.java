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

package io.rhino.core.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.rhino.core.handover.HandoverPlan;
import io.rhino.core.handover.VnodeMove;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

class RoutingTablePropertiesTest {

    /** A valid initial table together with its activeParallelism. */
    record Initial(RoutingTable table, int activeParallelism) {}

    /** A table and a plan that is valid for it. */
    record Scenario(RoutingTable table, HandoverPlan plan) {}

    @Provide
    Arbitrary<Initial> initialTables() {
        return initialTables(1);
    }

    private static Arbitrary<Initial> initialTables(int minParallelism) {
        return Arbitraries.integers()
                .between(minParallelism, KeyGroups.UPPER_BOUND_MAX_PARALLELISM)
                .edgeCases(c -> c.add(minParallelism, 128, 32768))
                .flatMap(numKeyGroups -> initialTables(numKeyGroups, minParallelism));
    }

    private static Arbitrary<Initial> initialTables(int numKeyGroups, int minParallelism) {
        // Caps keep a try cheap; occasionally one vnode per key group, the finest layout.
        Arbitrary<Integer> parallelisms =
                Arbitraries.integers().between(minParallelism, Math.min(numKeyGroups, 1024));
        Arbitrary<Integer> vnodeCounts =
                Arbitraries.frequencyOf(
                        Tuple.of(
                                19,
                                Arbitraries.integers().between(1, Math.min(numKeyGroups, 2048))),
                        Tuple.of(1, Arbitraries.just(numKeyGroups)));
        return Combinators.combine(parallelisms, vnodeCounts)
                .flatAs(
                        (parallelism, numVnodes) ->
                                Arbitraries.integers()
                                        .between(1, Math.min(parallelism, numVnodes))
                                        .map(
                                                active ->
                                                        initial(
                                                                numKeyGroups,
                                                                numVnodes,
                                                                parallelism,
                                                                active)));
    }

    private static Initial initial(int numKeyGroups, int numVnodes, int parallelism, int active) {
        VnodeLayout layout = new VnodeLayout(numKeyGroups, numVnodes);
        return new Initial(RoutingTable.initial(layout, parallelism, active), active);
    }

    /** Random valid plans: distinct vnodes, each moved to a subtask other than its owner. */
    @Provide
    Arbitrary<Scenario> scenarios() {
        return initialTables(2).map(Initial::table).flatMap(RoutingTablePropertiesTest::scenarios);
    }

    private static Arbitrary<Scenario> scenarios(RoutingTable table) {
        int numVnodes = table.layout().numVnodes();
        Arbitrary<Set<Integer>> movedVnodes =
                Arbitraries.integers()
                        .between(0, numVnodes - 1)
                        .set()
                        .ofMinSize(1)
                        .ofMaxSize(Math.min(numVnodes, 64));
        return movedVnodes.flatMap(
                vnodes ->
                        Arbitraries.integers()
                                .between(0, table.parallelism() - 2)
                                .list()
                                .ofSize(vnodes.size())
                                .map(
                                        targets ->
                                                new Scenario(
                                                        table, planFor(table, vnodes, targets))));
    }

    private static HandoverPlan planFor(
            RoutingTable table, Set<Integer> vnodes, List<Integer> targets) {
        List<VnodeMove> moves = new ArrayList<>();
        int i = 0;
        for (int vnode : vnodes) {
            int owner = table.ownerOf(vnode);
            // Draw from parallelism-1 candidates and skip the owner: never a self-move.
            int target = targets.get(i++);
            moves.add(new VnodeMove(vnode, owner, target >= owner ? target + 1 : target));
        }
        return HandoverPlan.of(table.epoch(), moves);
    }

    @Property
    void initialTableUsesOnlyActiveSubtasksEvenly(@ForAll("initialTables") Initial initial) {
        RoutingTable table = initial.table();
        int active = initial.activeParallelism();

        assertThat(table.epoch()).isZero();
        int[] counts = table.vnodeCountBySubtask();
        for (int subtask = 0; subtask < table.parallelism(); subtask++) {
            if (subtask < active) {
                assertThat(counts[subtask]).as("vnodes of active subtask %d", subtask).isPositive();
            } else {
                assertThat(table.vnodesOwnedBy(subtask))
                        .as("standby subtask %d", subtask)
                        .isEmpty();
            }
        }
        int min = Integer.MAX_VALUE;
        int max = 0;
        for (int subtask = 0; subtask < active; subtask++) {
            min = Math.min(min, counts[subtask]);
            max = Math.max(max, counts[subtask]);
        }
        assertThat(max - min).isLessThanOrEqualTo(1);
        assertThat(table.activeSubtasks()).hasSize(active).allMatch(s -> s < active);
        // Contiguous blocks: owners never decrease along the vnodes.
        int[] owners = table.ownerByVnode();
        for (int vnode = 1; vnode < owners.length; vnode++) {
            assertThat(owners[vnode]).isGreaterThanOrEqualTo(owners[vnode - 1]);
        }
    }

    @Property
    void applyIsTotalEpochMonotonicAndDoesNotMutate(@ForAll("scenarios") Scenario scenario) {
        RoutingTable before = scenario.table();
        int[] ownersBefore = before.ownerByVnode();
        HandoverPlan plan = scenario.plan();

        RoutingTable after = before.apply(plan);

        assertThat(after.epoch()).isEqualTo(before.epoch() + 1);
        assertThat(after.layout()).isEqualTo(before.layout());
        assertThat(after.parallelism()).isEqualTo(before.parallelism());
        int[] ownersAfter = after.ownerByVnode();
        assertThat(ownersAfter).hasSize(before.layout().numVnodes());
        for (int owner : ownersAfter) {
            assertThat(owner).isBetween(0, after.parallelism() - 1);
        }
        for (VnodeMove move : plan.moves()) {
            assertThat(after.ownerOf(move.vnode())).isEqualTo(move.toSubtask());
        }
        for (int vnode = 0; vnode < ownersBefore.length; vnode++) {
            if (!plan.vnodes().contains(vnode)) {
                assertThat(ownersAfter[vnode])
                        .as("unmoved vnode %d", vnode)
                        .isEqualTo(ownersBefore[vnode]);
            }
        }
        // vnodesOwnedBy partitions the vnodes and agrees with ownerOf.
        TreeSet<Integer> seen = new TreeSet<>();
        for (int subtask = 0; subtask < after.parallelism(); subtask++) {
            for (int vnode : after.vnodesOwnedBy(subtask)) {
                assertThat(after.ownerOf(vnode)).isEqualTo(subtask);
                assertThat(seen.add(vnode)).as("vnode %d owned twice", vnode).isTrue();
            }
        }
        assertThat(seen).hasSize(ownersAfter.length);
        // The input table is unchanged.
        assertThat(before.epoch()).isEqualTo(scenario.table().epoch());
        assertThat(before.ownerByVnode()).isEqualTo(ownersBefore);
    }

    @Property
    void reversePlanRestoresOwnership(@ForAll("scenarios") Scenario scenario) {
        RoutingTable before = scenario.table();
        RoutingTable after = before.apply(scenario.plan());
        List<VnodeMove> back = new ArrayList<>();
        for (VnodeMove move : scenario.plan().moves()) {
            back.add(new VnodeMove(move.vnode(), move.toSubtask(), move.fromSubtask()));
        }

        RoutingTable restored = after.apply(HandoverPlan.of(after.epoch(), back));

        assertThat(restored.epoch()).isEqualTo(before.epoch() + 2);
        assertThat(restored.ownerByVnode()).isEqualTo(before.ownerByVnode());
    }
}
