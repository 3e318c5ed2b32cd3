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
import io.rhino.flink.testjobs.Multisets;
import io.rhino.flink.testjobs.ResultSink;
import io.rhino.flink.testjobs.ShapeFunctions;
import io.rhino.flink.testjobs.TestPipelines.Mode;
import io.rhino.handover.HandoverManager;
import io.rhino.handover.HandoverResult;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobgraph.JobVertex;
import org.apache.flink.runtime.jobmaster.JobResult;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code pipeline.jobvertex-parallelism-overrides} (what the Flink Kubernetes Operator's autoscaler
 * sets) runs a Rhino job's router and keyed operator at other parallelisms than the job was built
 * with: the routing table spreads the vnodes over the gates that run, handovers work at that
 * parallelism, and the counts equal plain Flink's.
 */
@Timeout(180)
class ParallelismOverridesITCase {

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = RhinoClusters.threeTaskManagers();

    private static final String NAME = "overridden";
    private static final long EVENTS = 4_000;
    private static final int KEYS = 30;

    @Test
    void routerAndGateRunAtTheirOverriddenParallelism(@InjectMiniCluster MiniCluster cluster)
            throws Exception {
        List<String> reference = CountPerKeyRuns.plainFlink(9, EVENTS, KEYS);
        String runId = "overrides-" + UUID.randomUUID();
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.getExecutionEnvironment(
                        RhinoClusters.jobConfig(Mode.RHINO));
        env.setParallelism(2);
        RhinoStreams.keyBy(
                        Events.stream(env, "events", 9, EVENTS, 5, KEYS, 1_000, 1),
                        new ShapeFunctions.ByKey(),
                        RhinoKeyedStreamOptions.builder(NAME).build())
                .process(new ShapeFunctions.CountPerKey())
                .sinkTo(new ResultSink(runId));
        JobGraph job = env.getStreamGraph().getJobGraph();
        // built: source and router at 1, gate and keyed operator at 2
        job.getJobConfiguration()
                .set(
                        PipelineOptions.PARALLELISM_OVERRIDES,
                        Map.of(
                                vertexContaining(job, "(Rhino router)").getID().toHexString(),
                                "2",
                                vertexContaining(job, "(Rhino gate)").getID().toHexString(),
                                "3"));
        JobID jobId = cluster.submitJob(job).get().getJobID();

        HandoverManager manager = RhinoHandovers.awaitReady(jobId, NAME, Duration.ofSeconds(60));
        RoutingTable table = manager.routingTable();
        assertThat(table.parallelism()).as("gates that run").isEqualTo(3);
        assertThat(table.activeSubtasks()).as("every gate owns vnodes").containsExactly(0, 1, 2);
        assertThat(table.layout().numVnodes()).as("the built job's default vnodes").isEqualTo(8);
        HandoverResult moved =
                manager.handover(List.of(new VnodeMove(0, table.ownerOf(0), 2)))
                        .get(60, TimeUnit.SECONDS);
        assertThat(moved.outcome()).as("%s", moved).isEqualTo(HandoverResult.Outcome.COMPLETED);
        new RandomHandovers(jobId, List.of(NAME), 3)
                .assertOwnershipMatches(NAME, manager.routingTable());
        JobResult result = cluster.requestJobResult(jobId).get();
        assertThat(result.getSerializedThrowable()).as("the job's failure").isEmpty();

        Multisets.assertSameMultiset(
                "counts at overridden parallelisms", reference, ResultSink.take(runId));
    }

    private static JobVertex vertexContaining(JobGraph job, String operatorSuffix) {
        for (JobVertex vertex : job.getVertices()) {
            if (vertex.getName().contains(NAME + " " + operatorSuffix)) {
                return vertex;
            }
        }
        throw new AssertionError("no vertex with '" + operatorSuffix + "' in " + job);
    }
}
