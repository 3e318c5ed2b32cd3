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

import io.rhino.core.handover.VnodeMove;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Makes exactly {@code activeSubtasks} subtasks own vnodes, with vnode counts at most one apart.
 * The subtasks that own most stay (then lower ids; standby ones with lower ids join when scaling
 * out), those owning most get the larger quotas, and the vnodes of leaving subtasks and the excess
 * over a quota move, in three rounds:
 *
 * <ol>
 *   <li>to a subtask short of its quota whose TaskManager holds the vnode's replica (the handover
 *       then links the state out of the replica store: nothing crosses the network);
 *   <li>through a relay where no such target exists: the origin hands one vnode to a staying
 *       subtask that holds its replica, which hands one of its own to the short subtask that holds
 *       that one's replica. One more move, each of the two served by a replica;
 *   <li>the rest as few moves as possible: each to the subtask shortest of its quota, then the
 *       lower id, the highest vnode ids of an origin first.
 * </ol>
 *
 * Without replicas (replication off, or before its first round) only the last round moves anything,
 * and the plan has the fewest moves that reach the quotas.
 */
public final class RescalePolicy {

    private RescalePolicy() {}

    public static List<VnodeMove> plan(ClusterModel model, int activeSubtasks) {
        int parallelism = model.parallelism();
        int numVnodes = model.numVnodes();
        if (activeSubtasks < 1 || activeSubtasks > Math.min(parallelism, numVnodes)) {
            throw new IllegalArgumentException(
                    "activeSubtasks: "
                            + activeSubtasks
                            + " (expected: 1.."
                            + Math.min(parallelism, numVnodes)
                            + ", the deployed parallelism "
                            + parallelism
                            + " and at most one subtask per vnode, "
                            + numVnodes
                            + " vnodes)");
        }
        Assignment assignment = new Assignment(model);
        List<Integer> byCount = new ArrayList<>();
        for (int subtask = 0; subtask < parallelism; subtask++) {
            byCount.add(subtask);
        }
        byCount.sort(
                Comparator.comparingInt((Integer subtask) -> -assignment.count(subtask))
                        .thenComparingInt(subtask -> subtask));
        List<Integer> kept = byCount.subList(0, activeSubtasks);
        int[] quota = new int[parallelism];
        for (int i = 0; i < kept.size(); i++) {
            quota[kept.get(i)] =
                    numVnodes / activeSubtasks + (i < numVnodes % activeSubtasks ? 1 : 0);
        }
        Rounds rounds = new Rounds(model, assignment, kept, quota);
        rounds.toReplicaHolders();
        rounds.throughRelays();
        rounds.fewestMoves();
        return assignment.moves();
    }

    /**
     * The three rounds over one working assignment; a vnode moves at most once. A subtask with an
     * excess never receives (targets are short, relays have no excess), so its excess is always its
     * count over its quota.
     */
    private static final class Rounds {

        private final ClusterModel model;
        private final Assignment assignment;
        private final List<Integer> kept;
        private final int[] quota;

        /** Each subtask's vnodes in the table, highest id first. */
        private final List<List<Integer>> ownedInTable;

        Rounds(ClusterModel model, Assignment assignment, List<Integer> kept, int[] quota) {
            this.model = model;
            this.assignment = assignment;
            this.kept = kept;
            this.quota = quota;
            this.ownedInTable = new ArrayList<>();
            for (int subtask = 0; subtask < model.parallelism(); subtask++) {
                ownedInTable.add(new ArrayList<>());
            }
            for (int vnode = model.numVnodes() - 1; vnode >= 0; vnode--) {
                ownedInTable.get(model.table().ownerOf(vnode)).add(vnode);
            }
        }

        void toReplicaHolders() {
            for (int target : kept) {
                for (int origin = 0; origin < quota.length && shortBy(target) > 0; origin++) {
                    for (int vnode : unmovedOf(origin)) {
                        if (excess(origin) == 0 || shortBy(target) == 0) {
                            break;
                        }
                        if (model.holdsReplica(target, vnode)) {
                            assignment.move(vnode, target);
                        }
                    }
                }
            }
        }

        void throughRelays() {
            for (int target : kept) {
                for (int origin = 0; origin < quota.length; origin++) {
                    for (int relay : kept) {
                        // a relay that gives vnodes away itself could run out of its own to pass on
                        if (relay == origin || relay == target || excess(relay) > 0) {
                            continue;
                        }
                        while (excess(origin) > 0 && shortBy(target) > 0) {
                            int handed = unmovedReplicatedOn(origin, relay);
                            int passed = unmovedReplicatedOn(relay, target);
                            if (handed < 0 || passed < 0) {
                                break;
                            }
                            assignment.move(handed, relay);
                            assignment.move(passed, target);
                        }
                    }
                }
            }
        }

        void fewestMoves() {
            for (int origin = 0; origin < quota.length; origin++) {
                while (excess(origin) > 0) {
                    int target = -1;
                    for (int candidate : kept) {
                        if (shortBy(candidate) > 0 && (target < 0 || shorter(candidate, target))) {
                            target = candidate;
                        }
                    }
                    assignment.move(unmovedOf(origin).get(0), target);
                }
            }
        }

        private int excess(int subtask) {
            return Math.max(0, assignment.count(subtask) - quota[subtask]);
        }

        private int shortBy(int subtask) {
            return quota[subtask] - assignment.count(subtask);
        }

        /** The vnodes {@code subtask} owned in the table and still owns, highest id first. */
        private List<Integer> unmovedOf(int subtask) {
            List<Integer> vnodes = new ArrayList<>();
            for (int vnode : ownedInTable.get(subtask)) {
                if (assignment.ownerOf(vnode) == subtask) {
                    vnodes.add(vnode);
                }
            }
            return vnodes;
        }

        /**
         * The highest unmoved vnode of {@code owner} replicated where {@code holder} runs, or -1.
         */
        private int unmovedReplicatedOn(int owner, int holder) {
            for (int vnode : unmovedOf(owner)) {
                if (model.holdsReplica(holder, vnode)) {
                    return vnode;
                }
            }
            return -1;
        }

        /**
         * Whether {@code candidate} is shorter of its quota than {@code current}, or ties lower.
         */
        private boolean shorter(int candidate, int current) {
            int candidateShort = shortBy(candidate);
            int currentShort = shortBy(current);
            if (candidateShort != currentShort) {
                return candidateShort > currentShort;
            }
            return candidate < current;
        }
    }
}
