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

import java.util.ArrayList;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * Which subtask owns which vnode after a restore at another parallelism: the subtask whose
 * key-group range in Flink's assignment for the new parallelism holds the vnode's first key group.
 *
 * <p>Following Flink's ranges rather than any even split matters for canonical savepoints, whose
 * key groups Flink hands to the subtask of that range; for native state Flink hands every subtask
 * every manifest, and any assignment would do. Routers, gates and the handover manager each compute
 * it from the restored layout and the new parallelism alone, so they agree without a message.
 */
public final class RescaleAssignment {

    private RescaleAssignment() {}

    /** The owner of {@code vnode} at {@code parallelism}, as Flink assigns its first key group. */
    public static int ownerOf(VnodeLayout layout, int parallelism, int vnode) {
        return flinkSubtaskOf(layout, parallelism, layout.keyGroupsOf(vnode).startKeyGroup());
    }

    /** The vnodes {@code subtask} owns at {@code parallelism}, ascending. */
    public static SortedSet<Integer> vnodesOf(VnodeLayout layout, int parallelism, int subtask) {
        SortedSet<Integer> owned = new TreeSet<>();
        for (int vnode = 0; vnode < layout.numVnodes(); vnode++) {
            if (ownerOf(layout, parallelism, vnode) == subtask) {
                owned.add(vnode);
            }
        }
        return owned;
    }

    /** Every vnode's owner at {@code parallelism}, indexed by vnode. */
    static int[] owners(VnodeLayout layout, int parallelism) {
        int[] owners = new int[layout.numVnodes()];
        for (int vnode = 0; vnode < owners.length; vnode++) {
            owners[vnode] = ownerOf(layout, parallelism, vnode);
        }
        return owners;
    }

    /**
     * The vnodes whose key groups Flink splits between two subtasks at {@code parallelism}; a
     * canonical savepoint cannot restore such a vnode whole into one subtask.
     */
    public static List<Integer> vnodesSplitAt(VnodeLayout layout, int parallelism) {
        List<Integer> split = new ArrayList<>();
        for (int vnode = 0; vnode < layout.numVnodes(); vnode++) {
            KeyGroupSpan span = layout.keyGroupsOf(vnode);
            if (flinkSubtaskOf(layout, parallelism, span.startKeyGroup())
                    != flinkSubtaskOf(layout, parallelism, span.endKeyGroup())) {
                split.add(vnode);
            }
        }
        return split;
    }

    /**
     * The parallelisms from 1 to {@code limit} at which no vnode is split, for messages that refuse
     * another one.
     */
    public static List<Integer> unsplitParallelisms(VnodeLayout layout, int limit) {
        List<Integer> fitting = new ArrayList<>();
        for (int parallelism = 1; parallelism <= limit; parallelism++) {
            if (vnodesSplitAt(layout, parallelism).isEmpty()) {
                fitting.add(parallelism);
            }
        }
        return fitting;
    }

    // Flink's KeyGroupRangeAssignment.computeOperatorIndexForKeyGroup, which rhino-core cannot
    // import
    private static int flinkSubtaskOf(VnodeLayout layout, int parallelism, int keyGroup) {
        return (int) ((long) keyGroup * parallelism / layout.numKeyGroups());
    }
}
