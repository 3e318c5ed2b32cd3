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

import io.rhino.core.handover.VnodeMove;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.stream.IntStream;

/**
 * Which vnodes a reconfiguration moves where: pure functions of the current owners, so the choice
 * is testable and, for a seed, repeatable. Ties (equally loaded subtasks, which vnodes of a
 * subtask) are broken by the seeded random.
 */
public final class VnodeMovePolicy {

    private VnodeMovePolicy() {}

    /**
     * Vertical scaling: moves vnodes from the most loaded subtasks to {@code newSubtasks} until
     * each new subtask owns its fair share ({@code vnodes / (active + new)}, rounded down).
     *
     * @param ownerByVnode the current owner subtask of each vnode
     * @param newSubtasks subtasks that own nothing yet and become active
     */
    public static List<VnodeMove> scaleOut(
            int[] ownerByVnode, List<Integer> newSubtasks, long seed) {
        Random random = new Random(seed);
        int[] owners = ownerByVnode.clone();
        List<Integer> active = activeSubtasks(owners);
        for (int subtask : newSubtasks) {
            if (active.contains(subtask)) {
                throw new IllegalArgumentException("subtask " + subtask + " already owns vnodes");
            }
        }
        int share = owners.length / (active.size() + newSubtasks.size());
        List<VnodeMove> moves = new ArrayList<>();
        for (int target : newSubtasks) {
            for (int i = 0; i < share; i++) {
                int origin = mostLoaded(owners, active, random);
                int vnode = pick(owners, origin, random);
                owners[vnode] = target;
                moves.add(new VnodeMove(vnode, origin, target));
            }
        }
        return moves;
    }

    /**
     * Load balancing: moves {@code fraction} of the vnodes (at least one) of the {@code subtasks}
     * most loaded subtasks, each vnode to the least loaded subtask that is not an origin and runs
     * on another TaskManager than its origin.
     *
     * @param ownerByVnode the current owner subtask of each vnode
     * @param taskManagerBySubtask the TaskManager of every deployed subtask
     */
    public static List<VnodeMove> rebalance(
            int[] ownerByVnode,
            Map<Integer, String> taskManagerBySubtask,
            int subtasks,
            double fraction,
            long seed) {
        if (!(fraction > 0 && fraction <= 1)) {
            throw new IllegalArgumentException("fraction must be in (0, 1]: " + fraction);
        }
        Random random = new Random(seed);
        int[] owners = ownerByVnode.clone();
        List<Integer> active = activeSubtasks(owners);
        if (subtasks < 1 || subtasks >= taskManagerBySubtask.size()) {
            throw new IllegalArgumentException(
                    "can move vnodes of 1 to "
                            + (taskManagerBySubtask.size() - 1)
                            + " subtasks, not "
                            + subtasks);
        }
        List<Integer> origins = new ArrayList<>();
        List<Integer> candidates = new ArrayList<>(active);
        for (int i = 0; i < subtasks && !candidates.isEmpty(); i++) {
            int origin = mostLoaded(owners, candidates, random);
            candidates.remove(Integer.valueOf(origin));
            origins.add(origin);
        }
        List<VnodeMove> moves = new ArrayList<>();
        for (int origin : origins) {
            int owned = load(owners, origin);
            int count = Math.max(1, (int) Math.floor(owned * fraction));
            String originTaskManager = taskManagerBySubtask.get(origin);
            List<Integer> targets =
                    taskManagerBySubtask.keySet().stream()
                            .filter(s -> !origins.contains(s))
                            .filter(
                                    s ->
                                            !Objects.equals(
                                                    taskManagerBySubtask.get(s), originTaskManager))
                            .sorted()
                            .toList();
            if (targets.isEmpty()) {
                throw new IllegalStateException(
                        "no subtask on another TaskManager than subtask " + origin + " to move to");
            }
            for (int i = 0; i < count; i++) {
                int vnode = pick(owners, origin, random);
                int target = leastLoaded(owners, targets, random);
                owners[vnode] = target;
                moves.add(new VnodeMove(vnode, origin, target));
            }
        }
        return moves;
    }

    private static List<Integer> activeSubtasks(int[] owners) {
        return Arrays.stream(owners).distinct().sorted().boxed().toList();
    }

    private static int load(int[] owners, int subtask) {
        return (int) Arrays.stream(owners).filter(o -> o == subtask).count();
    }

    private static int mostLoaded(int[] owners, List<Integer> among, Random random) {
        return extreme(owners, among, random, Comparator.reverseOrder());
    }

    private static int leastLoaded(int[] owners, List<Integer> among, Random random) {
        return extreme(owners, among, random, Comparator.naturalOrder());
    }

    /** The first subtask by load in {@code order}, ties in a seeded random order. */
    private static int extreme(
            int[] owners, List<Integer> among, Random random, Comparator<Integer> order) {
        List<Integer> shuffled = new ArrayList<>(among);
        Collections.shuffle(shuffled, random);
        return shuffled.stream()
                .min(Comparator.comparing((Integer s) -> load(owners, s), order))
                .orElseThrow();
    }

    /** A random vnode of {@code subtask}. */
    private static int pick(int[] owners, int subtask, Random random) {
        int[] owned = IntStream.range(0, owners.length).filter(v -> owners[v] == subtask).toArray();
        if (owned.length == 0) {
            throw new IllegalStateException("subtask " + subtask + " owns no vnodes");
        }
        return owned[random.nextInt(owned.length)];
    }
}
