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
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rhino.core.handover.HandoverPlan;
import io.rhino.core.handover.VnodeMove;
import io.rhino.core.routing.RoutingTable;
import io.rhino.core.routing.VnodeLayout;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The reconfiguration policies over many seeded random clusters (vnodes, subtasks, standby
 * subtasks, skewed loads, TaskManagers): every plan is valid, deterministic and reaches its goal
 * with as few moves as the test can bound, as Kafka Streams tests its assignors.
 */
class ReconfigurationPoliciesTest {

    private static final int CLUSTERS = 500;

    @Test
    void rebalanceReachesTheRatioOrALocalOptimum() {
        for (long seed = 0; seed < CLUSTERS; seed++) {
            ClusterModel model = randomModel(new Random(seed));
            double maxImbalance = 1.0 + new Random(seed).nextInt(5) / 10.0;
            List<VnodeMove> moves = RebalancePolicy.plan(model, maxImbalance);
            assertValid(model, moves, "seed " + seed);
            assertThat(RebalancePolicy.plan(model, maxImbalance)).isEqualTo(moves);

            RoutingTable after = apply(model, moves);
            assertThat(after.activeSubtasks())
                    .as("seed %s: rebalancing keeps the active subtasks", seed)
                    .isEqualTo(model.activeSubtasks());
            ClusterModel next = withTable(model, after);
            double ratio = maxOverMean(next);
            if (ratio > maxImbalance + 1e-9) {
                assertThat(RebalancePolicy.plan(next, maxImbalance))
                        .as(
                                "seed %s: ratio %s above %s, so no single move may help",
                                seed, ratio, maxImbalance)
                        .isEmpty();
            }
            assertThat(maxOverMean(next))
                    .as("seed %s: never worse", seed)
                    .isLessThanOrEqualTo(maxOverMean(model) + 1e-9);
        }
    }

    @Test
    void rebalanceOfEqualVnodesEvensTheCountsOut() {
        for (long seed = 0; seed < CLUSTERS; seed++) {
            ClusterModel random = randomModel(new Random(seed));
            ClusterModel model =
                    new ClusterModel(
                            random.table(),
                            uniformLoads(random.numVnodes()),
                            random.taskManagerBySubtask(),
                            Map.of());
            RoutingTable after = apply(model, RebalancePolicy.plan(model, 1.0));
            int[] counts = after.vnodeCountBySubtask();
            int min = Integer.MAX_VALUE;
            int max = 0;
            for (int subtask : after.activeSubtasks()) {
                min = Math.min(min, counts[subtask]);
                max = Math.max(max, counts[subtask]);
            }
            assertThat(max - min)
                    .as("seed %s: %s", seed, java.util.Arrays.toString(counts))
                    .isLessThanOrEqualTo(1);
        }
    }

    @Test
    void rescaleLeavesExactlyNActiveSubtasksBalancedWithMinimalMovement() {
        int relayed = 0;
        for (long seed = 0; seed < CLUSTERS; seed++) {
            Random random = new Random(seed);
            ClusterModel model = randomModel(random);
            int n = 1 + random.nextInt(Math.min(model.parallelism(), model.numVnodes()));
            List<VnodeMove> moves = RescalePolicy.plan(model, n);
            assertValid(model, moves, "seed " + seed);
            assertThat(RescalePolicy.plan(model, n)).isEqualTo(moves);

            RoutingTable after = apply(model, moves);
            assertThat(after.activeSubtasks()).as("seed %s", seed).hasSize(n);
            int[] counts = after.vnodeCountBySubtask();
            int min = Integer.MAX_VALUE;
            int max = 0;
            for (int subtask : after.activeSubtasks()) {
                min = Math.min(min, counts[subtask]);
                max = Math.max(max, counts[subtask]);
            }
            assertThat(max - min)
                    .as("seed %s: counts at most one apart", seed)
                    .isLessThanOrEqualTo(1);
            int minimal = minimalRescaleMoves(model.table().vnodeCountBySubtask(), n);
            long served =
                    moves.stream()
                            .filter(m -> model.holdsReplica(m.toSubtask(), m.vnode()))
                            .count();
            assertThat(moves.size() - minimal)
                    .as(
                            "seed %s: each move over the lower bound is a relay, two moves served by"
                                    + " replicas instead of one that is not",
                            seed)
                    .isBetween(0, (int) (served / 2));
            relayed += moves.size() > minimal ? 1 : 0;

            ClusterModel unreplicated =
                    new ClusterModel(
                            model.table(),
                            model.loadByVnode(),
                            model.taskManagerBySubtask(),
                            Map.of());
            assertThat(RescalePolicy.plan(unreplicated, n))
                    .as("seed %s: without replicas, no more moves than the lower bound", seed)
                    .hasSize(minimal);
        }
        assertThat(relayed).as("clusters whose rescale went through relays").isPositive();
    }

    @Test
    void aRescaleOntoANewTaskManagerMovesOnlyStateItsReplicasHold() {
        // two subtasks of four vnodes on tm-a and tm-b, a standby on tm-c; chains of two copies:
        // tm-a's vnodes are replicated on tm-b, tm-b's on tm-c (the network bed's layout)
        RoutingTable table = RoutingTable.initial(new VnodeLayout(128, 12), 3, 2);
        Map<Integer, String> taskManagers = Map.of(0, "tm-a", 1, "tm-b", 2, "tm-c");
        Map<Integer, Set<String>> replicas = new HashMap<>();
        for (int vnode = 0; vnode < 12; vnode++) {
            replicas.put(vnode, Set.of(table.ownerOf(vnode) == 0 ? "tm-b" : "tm-c"));
        }
        ClusterModel model = new ClusterModel(table, uniformLoads(12), taskManagers, replicas);

        List<VnodeMove> moves = RescalePolicy.plan(model, 3);

        assertValid(model, moves, "bed");
        assertThat(apply(model, moves).vnodeCountBySubtask()).containsExactly(4, 4, 4);
        assertThat(moves)
                .as("every vnode lands where its replica is")
                .allMatch(m -> model.holdsReplica(m.toSubtask(), m.vnode()));
        // subtask 1 hands four to subtask 2, and takes two of subtask 0's: one relay per vnode
        // that subtask 0 gives up, instead of sending them across the network to tm-c
        assertThat(moves).hasSize(6);
        assertThat(moves.stream().filter(m -> m.fromSubtask() == 0))
                .allMatch(m -> m.toSubtask() == 1)
                .hasSize(2);
    }

    @Test
    void drainEmptiesTheTaskManagerAndMovesNothingElse() {
        for (long seed = 0; seed < CLUSTERS; seed++) {
            ClusterModel model = randomModel(new Random(seed));
            String drained = model.taskManagerOf(0);
            boolean elsewhere = false;
            for (int subtask = 0; subtask < model.parallelism(); subtask++) {
                elsewhere |= !drained.equals(model.taskManagerOf(subtask));
            }
            if (!elsewhere) {
                assertThatThrownBy(() -> DrainPolicy.plan(model, drained))
                        .hasMessageContaining("every subtask");
                continue;
            }
            List<VnodeMove> moves = DrainPolicy.plan(model, drained);
            assertValid(model, moves, "seed " + seed);
            assertThat(DrainPolicy.plan(model, drained)).isEqualTo(moves);
            RoutingTable after = apply(model, moves);
            int movedAway = 0;
            for (int vnode = 0; vnode < model.numVnodes(); vnode++) {
                String owner = model.taskManagerOf(after.ownerOf(vnode));
                assertThat(owner).as("seed %s: vnode %s", seed, vnode).isNotEqualTo(drained);
                if (drained.equals(model.taskManagerOf(model.table().ownerOf(vnode)))) {
                    movedAway++;
                }
            }
            assertThat(moves).as("seed %s: only the drained vnodes move", seed).hasSize(movedAway);
        }
    }

    @Test
    void aReplicaHolderIsPreferredAmongEquallyGoodTargets() {
        // subtask 0 owns all four vnodes; vnode 2's replica is on tm-c, where subtask 2 runs
        RoutingTable table = RoutingTable.initial(new VnodeLayout(16, 4), 3, 1);
        Map<Integer, String> taskManagers = Map.of(0, "tm-a", 1, "tm-b", 2, "tm-c");
        ClusterModel model =
                new ClusterModel(table, uniformLoads(4), taskManagers, Map.of(2, Set.of("tm-c")));

        // without the replica, vnode 2 would go to subtask 1 (the lower id) in both
        assertThat(RescalePolicy.plan(model, 3))
                .containsExactly(new VnodeMove(2, 0, 2), new VnodeMove(3, 0, 1));
        assertThat(DrainPolicy.plan(model, "tm-a")).contains(new VnodeMove(2, 0, 2));
    }

    @Test
    void impossibleRequestsAreRefusedWithTheReason() {
        ClusterModel model =
                ClusterModel.uniform(RoutingTable.initial(new VnodeLayout(16, 4), 3, 2));
        assertThatThrownBy(() -> RescalePolicy.plan(model, 4))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("expected: 1..3");
        assertThatThrownBy(() -> RebalancePolicy.plan(model, 0.5))
                .hasMessageContaining("expected: >= 1.0");
        assertThatThrownBy(() -> DrainPolicy.plan(model, "tm-x"))
                .hasMessageContaining("No subtask runs on TaskManager 'tm-x'");
    }

    /** Vnodes on leaving subtasks plus each staying subtask's excess over its quota. */
    private static int minimalRescaleMoves(int[] counts, int n) {
        Integer[] order = new Integer[counts.length];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        java.util.Arrays.sort(
                order, (a, b) -> counts[a] != counts[b] ? counts[b] - counts[a] : a - b);
        int total = java.util.Arrays.stream(counts).sum();
        int moves = 0;
        for (int i = 0; i < order.length; i++) {
            int quota = i < n ? total / n + (i < total % n ? 1 : 0) : 0;
            moves += Math.max(0, counts[order[i]] - quota);
        }
        return moves;
    }

    private static void assertValid(ClusterModel model, List<VnodeMove> moves, String context) {
        Set<Integer> vnodes = new HashSet<>();
        for (VnodeMove move : moves) {
            assertThat(vnodes.add(move.vnode())).as("%s: %s moves once", context, move).isTrue();
            assertThat(move.fromSubtask())
                    .as("%s: %s from its owner", context, move)
                    .isEqualTo(model.table().ownerOf(move.vnode()));
            assertThat(move.toSubtask()).as(context).isNotEqualTo(move.fromSubtask());
        }
    }

    private static RoutingTable apply(ClusterModel model, List<VnodeMove> moves) {
        return moves.isEmpty()
                ? model.table()
                : model.table().apply(HandoverPlan.of(model.table().epoch(), moves));
    }

    private static ClusterModel withTable(ClusterModel model, RoutingTable table) {
        return new ClusterModel(
                table,
                model.loadByVnode(),
                model.taskManagerBySubtask(),
                model.replicaHoldersByVnode());
    }

    private static double maxOverMean(ClusterModel model) {
        Map<Integer, Double> load = new HashMap<>();
        for (int vnode = 0; vnode < model.numVnodes(); vnode++) {
            load.merge(model.table().ownerOf(vnode), model.loadOf(vnode), Double::sum);
        }
        double total = load.values().stream().mapToDouble(Double::doubleValue).sum();
        double max = load.values().stream().mapToDouble(Double::doubleValue).max().orElse(0);
        return total == 0 ? 1.0 : max / (total / model.activeSubtasks().size());
    }

    private static Map<Integer, Double> uniformLoads(int vnodes) {
        Map<Integer, Double> loads = new HashMap<>();
        for (int vnode = 0; vnode < vnodes; vnode++) {
            loads.put(vnode, 1.0);
        }
        return loads;
    }

    /** Random owners (some subtasks standby), Zipf-like loads, 1 to 4 TaskManagers. */
    private static ClusterModel randomModel(Random random) {
        int vnodes = 2 + random.nextInt(40);
        int parallelism = 2 + random.nextInt(7);
        int active = 1 + random.nextInt(parallelism);
        int keyGroups = Math.max(vnodes, parallelism) * (1 + random.nextInt(4));
        RoutingTable table =
                RoutingTable.initial(
                        new VnodeLayout(keyGroups, vnodes), parallelism, Math.min(active, vnodes));
        List<VnodeMove> shuffle = new java.util.ArrayList<>();
        for (int vnode = 0; vnode < vnodes; vnode++) {
            int to = random.nextInt(Math.min(active, vnodes));
            if (to != table.ownerOf(vnode)) {
                shuffle.add(new VnodeMove(vnode, table.ownerOf(vnode), to));
            }
        }
        if (!shuffle.isEmpty()) {
            table = table.apply(HandoverPlan.of(table.epoch(), shuffle));
        }
        Map<Integer, Double> loads = new HashMap<>();
        for (int vnode = 0; vnode < vnodes; vnode++) {
            loads.put(vnode, random.nextInt(4) == 0 ? 0.0 : 1000.0 / (1 + random.nextInt(vnodes)));
        }
        int taskManagers = 1 + random.nextInt(4);
        Map<Integer, String> placement = new HashMap<>();
        for (int subtask = 0; subtask < parallelism; subtask++) {
            placement.put(subtask, "tm-" + (subtask % taskManagers));
        }
        Map<Integer, Set<String>> replicas = new HashMap<>();
        for (int vnode = 0; vnode < vnodes; vnode++) {
            if (random.nextBoolean()) {
                replicas.put(vnode, Set.of("tm-" + random.nextInt(taskManagers)));
            }
        }
        return new ClusterModel(table, loads, placement, replicas);
    }
}
