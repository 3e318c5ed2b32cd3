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
import java.util.List;
import java.util.Optional;

/**
 * The static shape of one Rhino keyed operator, shared by its router, gate and state backend so
 * that all three derive the same vnode layout and initial routing table.
 *
 * @param name the operator's name, for messages and metrics
 * @param numKeyGroups the key groups (the keyed operator's max parallelism)
 * @param numVnodes the vnodes the key groups are split into
 * @param parallelism the parallelism the job was built with or, in {@link #running}'s result, the
 *     one Flink runs the operator at: the most subtasks vnodes can be spread over
 * @param activeParallelism the subtasks that own vnodes at a fresh start; the others are standby
 * @param vnodesChosen whether the job chose the vnode count ({@code rhino.vnodes}); if not, a
 *     restore keeps the count of the restored state, whatever the parallelism; if so, a restore of
 *     another count re-cuts the restored key groups into this one ({@link #recuts})
 */
public record RhinoOperatorSpec(
        String name,
        int numKeyGroups,
        int numVnodes,
        int parallelism,
        int activeParallelism,
        boolean vnodesChosen)
        implements Serializable {

    /** A spec whose vnode count the job chose. */
    public RhinoOperatorSpec(
            String name, int numKeyGroups, int numVnodes, int parallelism, int activeParallelism) {
        this(name, numKeyGroups, numVnodes, parallelism, activeParallelism, true);
    }

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
        if (numVnodes < 1 || numVnodes > numKeyGroups) {
            throw new IllegalArgumentException(vnodeCountRefusal(name, numVnodes, numKeyGroups));
        }
        layoutOf(numKeyGroups, numVnodes); // validates the key groups
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
    }

    private static String vnodeCountRefusal(String name, int numVnodes, int numKeyGroups) {
        return "Rhino keyed stream '"
                + name
                + "' is built with "
                + numVnodes
                + " vnodes ("
                + RhinoOptions.VNODES.key()
                + "), but its "
                + numKeyGroups
                + " key groups ("
                + RhinoOptions.KEY_GROUPS.key()
                + ") hold 1 to "
                + numKeyGroups
                + " vnodes: a vnode is at least one key group. Set "
                + RhinoOptions.VNODES.key()
                + " to at most "
                + numKeyGroups
                + ".";
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
     * The operator as it runs at {@code runningParallelism}, which the scheduler may have chosen (a
     * restore at another parallelism, the adaptive scheduler, parallelism overrides), over the
     * vnodes of {@code restored} state (null at a fresh start).
     *
     * <p>The vnodes are the restored ones, unless the job chose another count: then the restore
     * re-cuts the restored key groups into the chosen vnodes ({@link #recuts}).
     *
     * @throws UnsupportedJobShapeException (in Flink's {@code SuppressRestartsException}) if the
     *     restored state has other key groups
     */
    public RhinoOperatorSpec running(int runningParallelism, VnodeLayout restored) {
        refusalToRun(runningParallelism, restored)
                .ifPresent(
                        refusal -> {
                            throw UnsupportedJobShapeException.atTaskStart(refusal);
                        });
        int vnodes = restored == null || vnodesChosen ? numVnodes : restored.numVnodes();
        // built with every subtask active: every running subtask is; else the standbys stay
        int active =
                activeParallelism == parallelism
                        ? runningParallelism
                        : Math.min(activeParallelism, runningParallelism);
        active = Math.min(active, vnodes);
        return new RhinoOperatorSpec(
                name, numKeyGroups, vnodes, runningParallelism, active, vnodesChosen);
    }

    /**
     * Why this operator cannot run at {@code runningParallelism} over the vnodes of {@code
     * restored} state (null at a fresh start), naming the values to build the job with; empty if it
     * can.
     */
    public Optional<String> refusalToRun(int runningParallelism, VnodeLayout restored) {
        if (runningParallelism < 1 || runningParallelism > numKeyGroups) {
            return Optional.of(
                    "Rhino keyed stream '"
                            + name
                            + "' runs at parallelism "
                            + runningParallelism
                            + ", but its "
                            + numKeyGroups
                            + " key groups allow 1 to "
                            + numKeyGroups
                            + " subtasks ("
                            + RhinoOptions.KEY_GROUPS.key()
                            + ").");
        }
        if (restored == null) {
            return Optional.empty();
        }
        if (restored.numKeyGroups() == numKeyGroups) {
            // another vnode count the job chose is a re-cut of the same key groups
            return Optional.empty();
        }
        return Optional.of(
                "Rhino keyed stream '"
                        + name
                        + "' restores state of "
                        + restored.numKeyGroups()
                        + " key groups in "
                        + restored.numVnodes()
                        + " vnodes, but the job is built with "
                        + numKeyGroups
                        + " key groups in "
                        + numVnodes
                        + " vnodes. Key groups cannot change for existing state: build the job"
                        + " with the restored key groups ("
                        + settingsOf(restored.numKeyGroups(), restored.numVnodes())
                        + "; "
                        + RhinoOptions.VNODES.key()
                        + " may differ, a restore re-cuts the key groups into it).");
    }

    /**
     * Whether a restore of state in {@code restored}'s vnodes re-cuts its key groups into other
     * vnodes: the job chose another vnode count over the same key groups. Replicas, task-local
     * copies and timer heads are kept per restored vnode, so a re-cut restores from the checkpoint
     * storage only.
     */
    public boolean recuts(VnodeLayout restored) {
        return restored != null
                && vnodesChosen
                && restored.numKeyGroups() == numKeyGroups
                && restored.numVnodes() != numVnodes;
    }

    /**
     * The routing table this operator starts from at {@code runningParallelism}: the restored one
     * (null at a fresh start: the initial one), redistributed if the parallelism changed ({@link
     * RoutingTable#rescaledTo}) or re-cut into the vnodes the job chose ({@link
     * RoutingTable#recutTo}). The routers, the gates' backends and the coordinator each compute it
     * here from what they restored, so they agree without a message.
     *
     * @throws UnsupportedJobShapeException as {@link #running}
     */
    public RoutingTable routingTableAt(int runningParallelism, RoutingTable restored) {
        RhinoOperatorSpec running =
                running(runningParallelism, restored == null ? null : restored.layout());
        if (restored == null) {
            return running.initialRoutingTable();
        }
        refusalToRecut(runningParallelism, restored)
                .ifPresent(
                        refusal -> {
                            throw UnsupportedJobShapeException.atTaskStart(refusal);
                        });
        return restored.recutTo(running.layout(), runningParallelism);
    }

    /**
     * Why this operator cannot start from the {@code restored} table (null at a fresh start) at
     * {@code runningParallelism}: {@link #refusalToRun}'s reasons, and a re-cut at an unchanged
     * parallelism of new vnodes cut from vnodes of several subtasks ({@link RoutingTable#recutTo});
     * empty if it can.
     */
    public Optional<String> refusalToRestore(int runningParallelism, RoutingTable restored) {
        Optional<String> refusal =
                refusalToRun(runningParallelism, restored == null ? null : restored.layout());
        return refusal.isPresent() || restored == null
                ? refusal
                : refusalToRecut(runningParallelism, restored);
    }

    private Optional<String> refusalToRecut(int runningParallelism, RoutingTable restored) {
        if (!recuts(restored.layout()) || runningParallelism != restored.parallelism()) {
            return Optional.empty();
        }
        List<Integer> mixed = restored.vnodesWithSeveralOwnersIn(layout());
        if (mixed.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(
                recutAcrossSubtasks(
                        name, restored.layout().numVnodes(), numVnodes, runningParallelism, mixed));
    }

    /**
     * The refusal of a re-cut at an unchanged parallelism whose new vnodes {@code mixed} hold key
     * groups of several subtasks' vnodes: Flink hands each subtask only its own state then.
     */
    public static String recutAcrossSubtasks(
            String name, int restoredVnodes, int vnodes, int parallelism, List<Integer> mixed) {
        return "Rhino keyed stream '"
                + name
                + "' restores state of "
                + restoredVnodes
                + " vnodes into "
                + vnodes
                + " ("
                + RhinoOptions.VNODES.key()
                + ") at its unchanged parallelism "
                + parallelism
                + ", but new vnodes "
                + mixed
                + " hold key groups that subtasks of different vnodes owned, and at an unchanged"
                + " parallelism Flink hands each subtask only its own state. Restore at another"
                + " parallelism (every subtask then reads every old subtask's state), choose a vnode"
                + " count whose vnodes each lie in one old vnode (a multiple of "
                + restoredVnodes
                + "), or set "
                + RhinoOptions.VNODES.key()
                + ": "
                + restoredVnodes
                + " (or leave it unset) to keep the restored count.";
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
}
