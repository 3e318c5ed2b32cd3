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
import io.rhino.flink.testjobs.Events;
import io.rhino.flink.testjobs.Multisets;
import io.rhino.flink.testjobs.ResultSink;
import io.rhino.flink.testjobs.TestPipelines.Mode;
import io.rhino.handover.HandoverManager;
import java.time.Duration;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.SchedulerExecutionMode;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Rhino job in Flink's reactive mode ({@code scheduler-mode: reactive}), which runs every vertex
 * on all the slots there are: a TaskManager joins and the job grows from 4 to 6 subtasks, one
 * leaves and it shrinks back to 4 through a failover. Router, gate and keyed operator follow the
 * slots, the vnode count stays the one the job chose, handovers go on at each parallelism, and the
 * counts are exactly one plain Flink run's.
 */
@Timeout(300)
class ReactiveModeITCase {

    private static final Logger LOG = LoggerFactory.getLogger(ReactiveModeITCase.class);

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = RhinoClusters.twoTaskManagers(reactiveMode());

    private static final long EVENTS = 30_000;
    private static final double EVENTS_PER_SECOND = 1_000;
    private static final int KEYS = 40;
    // more vnodes than any parallelism here reaches, and not a multiple of the default 4 x 2
    private static final int VNODES = 12;

    @Test
    void followsTaskManagersJoiningAndLeaving(@InjectMiniCluster MiniCluster miniCluster)
            throws Exception {
        var reference = CountPerKeyRuns.plainFlink(11, EVENTS, KEYS);
        String runId = "reactive-" + UUID.randomUUID();
        JobClient job = countPerKey(runId).executeAsync("reactive-mode");
        JobID jobId = job.getJobID();

        RoutingTable onFourSlots = CountPerKeyRuns.scatter(awaitParallelism(jobId, 4));
        assertThat(onFourSlots.layout().numVnodes()).as("vnodes on four slots").isEqualTo(VNODES);

        miniCluster.startTaskManager();
        LOG.info("A third TaskManager joined");
        RoutingTable onSixSlots = CountPerKeyRuns.scatter(awaitParallelism(jobId, 6));
        assertThat(onSixSlots.layout()).as("vnodes on six slots").isEqualTo(onFourSlots.layout());
        assertThat(onSixSlots.epoch()).as("epoch after growing").isGreaterThan(onFourSlots.epoch());

        miniCluster.terminateTaskManager(0).get(60, TimeUnit.SECONDS);
        LOG.info("The first TaskManager left");
        RoutingTable backOnFour = CountPerKeyRuns.scatter(awaitParallelism(jobId, 4));
        assertThat(backOnFour.layout())
                .as("vnodes after shrinking")
                .isEqualTo(onFourSlots.layout());

        job.getJobExecutionResult().get(180, TimeUnit.SECONDS);
        // each rescale restores the last checkpoint and replays what followed it: lines are unique
        // per key and count, so a lost or doubly counted record shows as a missing or extra line
        Multisets.assertSameMultiset(
                "counts while TaskManagers joined and left",
                reference,
                new TreeSet<>(ResultSink.take(runId)));
    }

    private static HandoverManager awaitParallelism(JobID jobId, int parallelism) throws Exception {
        return CountPerKeyRuns.awaitParallelism(jobId, parallelism, Duration.ofSeconds(120));
    }

    /** The adaptive scheduler in reactive mode, rescaling as soon as the slots change. */
    private static Configuration reactiveMode() {
        Configuration config = RhinoClusters.adaptiveScheduler();
        config.set(JobManagerOptions.SCHEDULER_MODE, SchedulerExecutionMode.REACTIVE);
        return config;
    }

    private static StreamExecutionEnvironment countPerKey(String runId) {
        Configuration config = RhinoClusters.jobConfig(Mode.RHINO);
        config.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(300));
        RhinoClusters.withRestarts(config, 100, Duration.ofMillis(200));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        // reactive mode ignores the parallelism: every vertex runs on every slot, up to its max
        env.setParallelism(2);
        CountPerKeyRuns.rhinoCounts(
                Events.stream(env, "events", 11, EVENTS, 5, KEYS, EVENTS_PER_SECOND, 1)
                        .uid("events")
                        // one reader: the rate stays the test's whatever the slots
                        .setMaxParallelism(1),
                runId,
                VNODES);
        return env;
    }
}
