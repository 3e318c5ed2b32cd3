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

import io.rhino.core.routing.RoutingTable;
import io.rhino.flink.api.RhinoKeyedStreamOptions;
import io.rhino.flink.api.RhinoStreams;
import io.rhino.flink.testjobs.Events;
import io.rhino.flink.testjobs.Multisets;
import io.rhino.flink.testjobs.ResultSink;
import io.rhino.flink.testjobs.ShapeFunctions;
import io.rhino.flink.testjobs.TestPipelines.Mode;
import io.rhino.flink.testjobs.Throttle;
import io.rhino.handover.HandoverManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobID;
import org.apache.flink.client.program.rest.RestClusterClient;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectClusterClient;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The adaptive scheduler rescales a running Rhino job through Flink's own resource requirements
 * (FLIP-291, {@code PUT /jobs/:jobid/resource-requirements}, what the Kubernetes operator's
 * autoscaler uses): down from 4 to 2 subtasks and back up to 4. Router, gate and keyed operator
 * change together, every vnode's state comes back, handovers go on at each parallelism, and the
 * counts are exactly one plain Flink run's.
 */
@Timeout(300)
class AdaptiveSchedulerRescaleITCase {

    @RegisterExtension
    static final MiniClusterExtension CLUSTER =
            RhinoClusters.threeTaskManagers(RhinoClusters.adaptiveScheduler());

    private static final long EVENTS = 30_000;
    private static final double EVENTS_PER_SECOND = 1_000;
    private static final int KEYS = 40;

    @Test
    void rescalesDownAndUpThroughResourceRequirements(
            @InjectClusterClient RestClusterClient<?> client) throws Exception {
        // the default build rescales through resource requirements in RhinoLifecycleAdaptiveITCase
        // and through the adaptive scheduler's restore in ReactiveModeITCase
        RhinoClusters.onlyWithAllVariants("Rescaling down and up through resource requirements");
        rescaleDownAndUp(client, null, false);
    }

    /**
     * As above with unaligned checkpoints under backpressure: the restored checkpoints hold records
     * in flight to the gates, which Flink hands every new gate and filters by {@code
     * ChannelPartitioner}'s copy, so each reaches the owner of its vnode in the rescaled table.
     */
    @Test
    void rescalesFromUnalignedCheckpointsWithRecordsInFlight(
            @InjectClusterClient RestClusterClient<?> client,
            @InjectMiniCluster MiniCluster miniCluster)
            throws Exception {
        // one run in five on a loaded machine once restarted in a loop after the scale-up restored
        // a checkpoint from before the scale-down; the wait for records in flight at 2 then also
        // counted the checkpoints taken at 4 (one history across rescales). Not seen in 16 runs
        // under load since; not understood (issue 40)
        RhinoClusters.onlyWithAllVariants("Rescaling from unaligned checkpoints");
        rescaleDownAndUp(client, miniCluster, true);
    }

    private void rescaleDownAndUp(
            RestClusterClient<?> client, MiniCluster miniCluster, boolean unaligned)
            throws Exception {
        List<String> reference = CountPerKeyRuns.plainFlink(5, EVENTS, KEYS);
        String runId = "adaptive-" + unaligned + "-" + UUID.randomUUID();
        JobClient job = countPerKey(runId, unaligned).executeAsync("adaptive-rescale");
        JobID jobId = job.getJobID();
        RestCalls flink = new RestCalls(client.getWebInterfaceURL().replaceAll("/$", ""), null);

        RoutingTable atFour = CountPerKeyRuns.scatter(awaitParallelism(jobId, 4));
        if (unaligned) {
            awaitRecordsInFlight(miniCluster, jobId);
        }
        RhinoClusters.requireParallelism(flink, jobId, 2);
        RoutingTable atTwo = CountPerKeyRuns.scatter(awaitParallelism(jobId, 2));
        assertThat(atTwo.layout()).as("vnodes after scaling down").isEqualTo(atFour.layout());
        if (unaligned) {
            awaitRecordsInFlight(miniCluster, jobId);
        }
        RhinoClusters.requireParallelism(flink, jobId, 4);
        RoutingTable backAtFour = CountPerKeyRuns.scatter(awaitParallelism(jobId, 4));
        assertThat(backAtFour.layout()).as("vnodes after scaling up").isEqualTo(atFour.layout());

        job.getJobExecutionResult().get(180, TimeUnit.SECONDS);
        List<String> output = new ArrayList<>(ResultSink.take(runId));
        // each rescale restores the last checkpoint and replays what followed it: lines are unique
        // per key and count, so a lost or doubly counted record shows as a missing or extra line
        Multisets.assertSameMultiset(
                "counts across two rescales", reference, new TreeSet<>(output));
    }

    /**
     * Waits until a checkpoint completed after this call persisted records in flight: one taken at
     * the parallelism the job runs at now (the adaptive scheduler keeps one checkpoint history
     * across rescales, so the earlier ones were taken at the parallelism before).
     */
    private static void awaitRecordsInFlight(MiniCluster miniCluster, JobID jobId)
            throws Exception {
        long before = RhinoClusters.latestCompletedCheckpointId(miniCluster, jobId);
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (RhinoClusters.persistedInFlightBytesOfGates(miniCluster, jobId, before) == 0) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no checkpoint persisted records in flight to the gates");
            }
            Thread.sleep(50);
        }
    }

    private static HandoverManager awaitParallelism(JobID jobId, int parallelism) throws Exception {
        return CountPerKeyRuns.awaitParallelism(jobId, parallelism, Duration.ofSeconds(120));
    }

    private static StreamExecutionEnvironment countPerKey(String runId, boolean unaligned) {
        Configuration config = RhinoClusters.jobConfig(Mode.RHINO);
        config.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(300));
        if (unaligned) {
            config.set(CheckpointingOptions.ENABLE_UNALIGNED, true);
            config.set(CheckpointingOptions.ALIGNED_CHECKPOINT_TIMEOUT, Duration.ZERO);
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        env.setParallelism(4);
        var counts =
                RhinoStreams.keyBy(
                                Events.stream(
                                                env,
                                                "events",
                                                5,
                                                EVENTS,
                                                5,
                                                KEYS,
                                                EVENTS_PER_SECOND,
                                                1)
                                        .uid("events"),
                                new ShapeFunctions.ByKey(),
                                RhinoKeyedStreamOptions.builder("counts").build())
                        .process(new ShapeFunctions.CountPerKey());
        if (unaligned) {
            // a slow sink behind the keyed operators backs the gates' input channels up
            counts.map(new Throttle<>(5, 2)).setParallelism(1).sinkTo(new ResultSink(runId));
        } else {
            counts.sinkTo(new ResultSink(runId)).uid("results");
        }
        return env;
    }
}
