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
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Rhino job without auto-generated uids runs, and a new version of it, with an added operator,
 * renamed operators and even a renamed Rhino keyed stream (its uids kept), restores its savepoint:
 * the routing table moved by a handover and the vnode state both come back.
 */
@Timeout(180)
class RhinoUpgradeITCase {

    @RegisterExtension static final MiniClusterExtension CLUSTER = RhinoClusters.twoTaskManagers();

    private static final long EVENTS = 4_000;
    private static final double EVENTS_PER_SECOND = 500;

    @TempDir Path checkpoints;
    @TempDir Path savepoints;

    @Test
    void changedJobRestoresRoutingTableAndStateFromASavepoint() throws Exception {
        upgrade(2, true, 2);
    }

    /**
     * The active parallelism only shapes the initial routing table: a restored job routes by the
     * restored table, even one no handover changed, since the restored vnode state follows it.
     */
    @Test
    void changedActiveParallelismKeepsTheRestoredRoutingTable() throws Exception {
        upgrade(1, false, 2);
    }

    /**
     * Runs version 1 (with {@code activeBefore} active subtasks, and one handover if {@code
     * handover}), stops it with a savepoint, and restores version 2 from it: another operator,
     * other operator names, the Rhino keyed stream renamed with its uids kept, and {@code
     * activeAfter} active subtasks.
     */
    private void upgrade(int activeBefore, boolean handover, int activeAfter) throws Exception {
        List<String> reference = CountPerKeyRuns.plainFlink(1, EVENTS, 13);
        String runId = "upgrade-" + UUID.randomUUID();

        StreamExecutionEnvironment v1 = environment(null);
        DataStream<Tuple3<Long, Long, Long>> events =
                Events.stream(v1, "events", 1, EVENTS, 5, 13, EVENTS_PER_SECOND, 1).uid("events");
        RhinoStreams.keyBy(
                        events,
                        new ShapeFunctions.ByKey(),
                        RhinoKeyedStreamOptions.builder("counts")
                                .vnodes(4)
                                .activeParallelism(activeBefore)
                                .build())
                .process(new ShapeFunctions.CountPerKey())
                .sinkTo(new ResultSink(runId))
                .uid("results");
        JobClient first = v1.executeAsync("upgrade-v1");
        HandoverManager manager =
                RhinoHandovers.awaitReady(first.getJobID(), "counts", Duration.ofSeconds(60));
        if (handover) {
            int owner = manager.routingTable().ownerOf(0);
            HandoverResult moved =
                    manager.handover(List.of(new VnodeMove(0, owner, 1 - owner)))
                            .get(60, TimeUnit.SECONDS);
            assertThat(moved.outcome()).isEqualTo(HandoverResult.Outcome.COMPLETED);
        } else {
            Thread.sleep(1_000); // let some records and a checkpoint through
        }
        RoutingTable beforeUpgrade = manager.routingTable();
        String savepoint =
                first.stopWithSavepoint(
                                false, savepoints.toUri().toString(), SavepointFormatType.NATIVE)
                        .get(60, TimeUnit.SECONDS);
        List<String> output = new ArrayList<>(ResultSink.take(runId));
        assertThat(output)
                .as("version 1 stopped before the end of its input")
                .hasSizeLessThan((int) EVENTS);

        StreamExecutionEnvironment v2 = environment(savepoint);
        DataStream<Tuple3<Long, Long, Long>> renamed =
                Events.stream(v2, "events, renamed", 1, EVENTS, 5, 13, EVENTS_PER_SECOND, 1)
                        .uid("events");
        renamed.map(event -> event.f2)
                .returns(Types.LONG)
                .name("added operator")
                .uid("added")
                .sinkTo(new DiscardingSink<>())
                .uid("added-sink");
        RhinoStreams.keyBy(
                        renamed,
                        new ShapeFunctions.ByKey(),
                        RhinoKeyedStreamOptions.builder("counts-v2")
                                .vnodes(4)
                                .activeParallelism(activeAfter)
                                .routerUid("rhino-router-counts")
                                .gateUid("rhino-gate-counts")
                                .build())
                .process(new ShapeFunctions.CountPerKey())
                .name("counting, renamed")
                .uid("rhino-keyed-counts")
                .sinkTo(new ResultSink(runId))
                .uid("results");
        JobClient second = v2.executeAsync("upgrade-v2");
        HandoverManager restored =
                RhinoHandovers.awaitReady(second.getJobID(), "counts-v2", Duration.ofSeconds(60));
        assertThat(restored.routingTable()).as("restored routing table").isEqualTo(beforeUpgrade);
        new RandomHandovers(second.getJobID(), List.of("counts-v2"), 7)
                .assertOwnershipMatches("counts-v2", restored.routingTable());
        second.getJobExecutionResult().get();
        output.addAll(ResultSink.take(runId));

        // every key's count continued from the savepoint: the same lines as one plain Flink run
        Multisets.assertSameMultiset("counts across the upgrade", reference, output);
    }

    private StreamExecutionEnvironment environment(String savepoint) {
        Configuration config = RhinoClusters.jobConfig(Mode.RHINO);
        config.set(PipelineOptions.AUTO_GENERATE_UIDS, false);
        config.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(300));
        config.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, checkpoints.toUri().toString());
        config.set(
                CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
                ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
        if (savepoint != null) {
            config.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        env.setParallelism(2);
        return env;
    }
}
