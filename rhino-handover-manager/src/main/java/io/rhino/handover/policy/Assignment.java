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
import java.util.List;

/**
 * A policy's working copy of who owns what: vnodes are reassigned freely, and the moves are the
 * vnodes whose final owner differs from the table's (a vnode moved twice moves once).
 */
final class Assignment {

    private final ClusterModel model;
    private final int[] owner;
    private final double[] loadBySubtask;
    private final int[] countBySubtask;

    Assignment(ClusterModel model) {
        this.model = model;
        this.owner = model.table().ownerByVnode().clone();
        this.loadBySubtask = new double[model.parallelism()];
        this.countBySubtask = new int[model.parallelism()];
        for (int vnode = 0; vnode < owner.length; vnode++) {
            loadBySubtask[owner[vnode]] += model.loadOf(vnode);
            countBySubtask[owner[vnode]]++;
        }
    }

    int ownerOf(int vnode) {
        return owner[vnode];
    }

    double load(int subtask) {
        return loadBySubtask[subtask];
    }

    int count(int subtask) {
        return countBySubtask[subtask];
    }

    /** The vnodes {@code subtask} owns now, ascending. */
    List<Integer> vnodesOf(int subtask) {
        List<Integer> vnodes = new ArrayList<>();
        for (int vnode = 0; vnode < owner.length; vnode++) {
            if (owner[vnode] == subtask) {
                vnodes.add(vnode);
            }
        }
        return vnodes;
    }

    void move(int vnode, int to) {
        int from = owner[vnode];
        double load = model.loadOf(vnode);
        loadBySubtask[from] -= load;
        loadBySubtask[to] += load;
        countBySubtask[from]--;
        countBySubtask[to]++;
        owner[vnode] = to;
    }

    /** The moves from the table to this assignment, by vnode. */
    List<VnodeMove> moves() {
        int[] original = model.table().ownerByVnode();
        List<VnodeMove> moves = new ArrayList<>();
        for (int vnode = 0; vnode < owner.length; vnode++) {
            if (owner[vnode] != original[vnode]) {
                moves.add(new VnodeMove(vnode, original[vnode], owner[vnode]));
            }
        }
        return moves;
    }
}
