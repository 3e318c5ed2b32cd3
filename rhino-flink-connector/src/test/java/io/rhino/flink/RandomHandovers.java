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

package io.rhino.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.rhino.core.handover.VnodeMove;
import io.rhino.core.routing.RoutingTable;
import io.rhino.flink.coordination.RhinoHandovers;
import io.rhino.flink.state.RhinoTaskRegistry;
import io.rhino.handover.HandoverManager;
import io.rhino.handover.HandoverResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.SortedMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.flink.api.common.JobID;

/** Performs seeded random handovers on the Rhino operators of a running job. */
final class RandomHandovers {

    private final JobID jobId;
    private final List<String> operators;
    private final Random random;
    private final List<String> history = new ArrayList<>();

    RandomHandovers(JobID jobId, List<String> operators, long seed) {
        this.jobId = jobId;
        this.operators = operators;
        this.random = new Random(seed);
    }

    List<String> history() {
        return history;
    }

    /** Waits until every operator's handover manager and gates are up. */
    void awaitRunning(Duration timeout) throws Exception {
        for (String operator : operators) {
            RhinoHandovers.awaitReady(jobId, operator, timeout);
        }
    }

    /** A random plan: 1..maxVnodes vnodes of one operator, each to another random subtask. */
    List<VnodeMove> randomMoves(RoutingTable table, int maxVnodes) {
        int count = 1 + random.nextInt(maxVnodes);
        List<Integer> vnodes = new ArrayList<>();
        for (int v = 0; v < table.layout().numVnodes(); v++) {
            vnodes.add(v);
        }
        java.util.Collections.shuffle(vnodes, random);
        List<VnodeMove> moves = new ArrayList<>();
        for (int vnode : vnodes.subList(0, count)) {
            int from = table.ownerOf(vnode);
            int to = (from + 1 + random.nextInt(table.parallelism() - 1)) % table.parallelism();
            moves.add(new VnodeMove(vnode, from, to));
        }
        return moves;
    }

    /**
     * Runs handovers one after the other until {@code count} completed or {@code stop} says so;
     * after each, checks that the subtasks own exactly what the routing table says.
     */
    int run(int count, BooleanSupplier stop) throws Exception {
        int completed = 0;
        while (completed < count && !stop.getAsBoolean()) {
            String operator = operators.get(random.nextInt(operators.size()));
            HandoverManager manager = RhinoHandovers.manager(jobId, operator);
            List<VnodeMove> moves = randomMoves(manager.routingTable(), 3);
            HandoverResult result = manager.handover(moves).get(60, TimeUnit.SECONDS);
            history.add(
                    operator
                            + " "
                            + moves
                            + " -> "
                            + result.outcome()
                            + " "
                            + result.phaseDurationsMillis());
            assertThat(result.outcome())
                    .as("handover %s of %s: %s", moves, operator, result.failureCause())
                    .isEqualTo(HandoverResult.Outcome.COMPLETED);
            assertOwnershipMatches(operator, manager.routingTable());
            completed++;
            Thread.sleep(random.nextInt(20));
        }
        return completed;
    }

    void assertOwnershipMatches(String operator, RoutingTable table) {
        SortedMap<Integer, int[]> owned = RhinoTaskRegistry.ownedVnodes(jobId, operator);
        assertThat(owned).as("running subtasks of %s", operator).hasSize(table.parallelism());
        owned.forEach(
                (subtask, vnodes) ->
                        assertThat(Arrays.stream(vnodes).boxed().toList())
                                .as(
                                        "vnodes of %s subtask %s at epoch %s",
                                        operator, subtask, table.epoch())
                                .isEqualTo(
                                        Arrays.stream(table.vnodesOwnedBy(subtask))
                                                .boxed()
                                                .toList()));
    }
}
