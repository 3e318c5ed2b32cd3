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
import io.rhino.flink.api.RhinoKeyedStreamOptions;
import io.rhino.flink.api.RhinoStreams;
import io.rhino.flink.coordination.RhinoHandovers;
import io.rhino.flink.testjobs.Events;
import io.rhino.flink.testjobs.ResultSink;
import io.rhino.flink.testjobs.ShapeFunctions;
import io.rhino.flink.testjobs.TestPipelines.Mode;
import io.rhino.handover.HandoverManager;
import io.rhino.handover.HandoverResult;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * What the rescale, upgrade and migration tests share: plain Flink's counts per key of {@link
 * Events}, the reference every Rhino run is compared with, and a handover that scatters vnodes.
 */
final class CountPerKeyRuns {

    private CountPerKeyRuns() {}

    /** The lines plain Flink's {@code keyBy} writes counting {@code events} events per key. */
    static List<String> plainFlink(long seed, long events, int keys) throws Exception {
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.getExecutionEnvironment(
                        RhinoClusters.jobConfig(Mode.PLAIN));
        env.setParallelism(2);
        String runId = "reference-" + UUID.randomUUID();
        Events.stream(env, "events", seed, events, 5, keys, 0, 1)
                .keyBy(new ShapeFunctions.ByKey())
                .process(new ShapeFunctions.CountPerKey())
                .sinkTo(new ResultSink(runId));
        env.execute("reference");
        return ResultSink.take(runId);
    }

    /**
     * Moves vnode 0 to the last subtask (or to subtask 0 from there), so that ownership no longer
     * follows the table's blocks; returns the table after it.
     */
    static RoutingTable scatter(HandoverManager manager) throws Exception {
        RoutingTable table = manager.routingTable();
        int last = table.parallelism() - 1;
        int owner = table.ownerOf(0);
        HandoverResult moved =
                manager.handover(List.of(new VnodeMove(0, owner, owner == last ? 0 : last)))
                        .get(60, TimeUnit.SECONDS);
        assertThat(moved.outcome()).as("%s", moved).isEqualTo(HandoverResult.Outcome.COMPLETED);
        return manager.routingTable();
    }

    /**
     * Counts {@code events} per key through a Rhino keyed stream named and uid'ed {@code counts},
     * into the result sink of {@code runId} (uid {@code results}).
     */
    static void rhinoCounts(DataStream<Tuple3<Long, Long, Long>> events, String runId) {
        rhinoCounts(events, runId, null);
    }

    /** As {@link #rhinoCounts(DataStream, String)}, with {@code vnodes} set unless null. */
    static void rhinoCounts(
            DataStream<Tuple3<Long, Long, Long>> events, String runId, Integer vnodes) {
        RhinoKeyedStreamOptions.Builder options = RhinoKeyedStreamOptions.builder("counts");
        if (vnodes != null) {
            options.vnodes(vnodes);
        }
        RhinoStreams.keyBy(events, new ShapeFunctions.ByKey(), options.build())
                .process(new ShapeFunctions.CountPerKey())
                .sinkTo(new ResultSink(runId))
                .uid("results");
    }

    /**
     * Waits until the {@code counts} operator of {@code jobId} runs at {@code parallelism}: every
     * subtask ready, and the running gates owning what the manager's table says (they register a
     * moment after the manager is ready). A restart-based rescale keeps the job id.
     */
    static HandoverManager awaitParallelism(JobID jobId, int parallelism, Duration timeout)
            throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            if (RhinoHandovers.isReady(jobId, "counts")) {
                HandoverManager manager = RhinoHandovers.manager(jobId, "counts");
                if (manager.routingTable().parallelism() == parallelism
                        && ownershipMatches(jobId, manager.routingTable())) {
                    return manager;
                }
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError(
                        "'counts' did not run at parallelism " + parallelism + " in " + timeout);
            }
            Thread.sleep(100);
        }
    }

    private static boolean ownershipMatches(JobID jobId, RoutingTable table) {
        try {
            new RandomHandovers(jobId, List.of("counts"), 5)
                    .assertOwnershipMatches("counts", table);
            return true;
        } catch (AssertionError notYet) {
            return false;
        }
    }
}
