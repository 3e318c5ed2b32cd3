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

import io.rhino.core.routing.RoutingTable;
import io.rhino.core.routing.VnodeLayout;
import io.rhino.flink.config.RhinoOptions;
import java.io.Serializable;
import java.util.Optional;

/**
 * The static shape of one Rhino keyed operator, shared by its router, gate and state backend so
 * that all three derive the same vnode layout and initial routing table.
 *
 * @param name the operator's name, for messages and metrics
 * @param numKeyGroups the key groups (the keyed operator's max parallelism)
 * @param numVnodes the vnodes the key groups are split into
 * @param parallelism the deployed parallelism, the most subtasks vnodes can be spread over
 * @param activeParallelism the subtasks that own vnodes at start; the others are standby
 */
public record RhinoOperatorSpec(
        String name, int numKeyGroups, int numVnodes, int parallelism, int activeParallelism)
        implements Serializable {

    public RhinoOperatorSpec {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("name: must not be blank");
        }
        if (parallelism < 1 || parallelism > numKeyGroups) {
            throw new IllegalArgumentException(
                    "parallelism: "
                            + parallelism
                            + " (expected: 1.."
                            + numKeyGroups
                            + ", the number of key groups)");
        }
        if (activeParallelism < 1 || activeParallelism > parallelism) {
            throw new IllegalArgumentException(
                    "activeParallelism: "
                            + activeParallelism
                            + " (expected: 1.."
                            + parallelism
                            + ", the deployed parallelism)");
        }
        if (activeParallelism > numVnodes) {
            throw new IllegalArgumentException(
                    "activeParallelism: "
                            + activeParallelism
                            + " (expected: at most "
                            + numVnodes
                            + ", the number of vnodes, so every active subtask owns one)");
        }
        layoutOf(numKeyGroups, numVnodes); // validates the vnode count
    }

    private static VnodeLayout layoutOf(int numKeyGroups, int numVnodes) {
        return new VnodeLayout(numKeyGroups, numVnodes);
    }

    public VnodeLayout layout() {
        return layoutOf(numKeyGroups, numVnodes);
    }

    public RoutingTable initialRoutingTable() {
        return RoutingTable.initial(layout(), parallelism, activeParallelism);
    }

    /**
     * Why a routing table restored from a checkpoint or savepoint cannot run in this operator (its
     * key groups, vnodes or parallelism differ, which existing state cannot), naming the values to
     * build the job with; empty if it fits.
     */
    public Optional<String> refusalToRestore(RoutingTable restored) {
        if (restored.layout().equals(layout()) && restored.parallelism() == parallelism) {
            return Optional.empty();
        }
        return Optional.of(
                "Rhino keyed stream '"
                        + name
                        + "' restores a routing table of "
                        + shape(restored.layout(), restored.parallelism())
                        + ", but the job is built with "
                        + shape(layout(), parallelism)
                        + ". Key groups, vnodes and parallelism cannot change for"
                        + " existing state: build the job with the restored values ("
                        + settingsOf(
                                restored.layout().numKeyGroups(), restored.layout().numVnodes())
                        + "; parallelism "
                        + restored.parallelism()
                        + ").");
    }

    /**
     * The options that build an operator of {@code numKeyGroups} key groups in {@code numVnodes}
     * vnodes, for messages that refuse state of another shape.
     */
    public static String settingsOf(int numKeyGroups, int numVnodes) {
        return RhinoOptions.KEY_GROUPS.key()
                + ": "
                + numKeyGroups
                + ", "
                + RhinoOptions.VNODES.key()
                + ": "
                + numVnodes
                + ", or RhinoKeyedStreamOptions' keyGroups and vnodes";
    }

    private static String shape(VnodeLayout layout, int parallelism) {
        return layout.numKeyGroups()
                + " key groups in "
                + layout.numVnodes()
                + " vnodes over "
                + parallelism
                + " subtasks";
    }
}
