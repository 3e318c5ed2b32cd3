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

import io.rhino.flink.coordination.RhinoHandovers;
import io.rhino.flink.testjobs.FailOnDemand;
import io.rhino.flink.testjobs.ResultSink;
import io.rhino.flink.testjobs.TestPipelines;
import io.rhino.flink.testjobs.TestPipelines.Input;
import io.rhino.flink.testjobs.TestPipelines.Mode;
import io.rhino.flink.testjobs.Upserts;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Rhino job that fails after completed checkpoints restarts from its vnode checkpoints and ends
 * with exactly the results of a failure-free run. The sink upserts by result id, as an idempotent
 * external sink would, so results emitted twice around the failure must agree.
 */
class RhinoFailoverITCase {

    @RegisterExtension static final MiniClusterExtension CLUSTER = RhinoClusters.twoTaskManagers();

    @TempDir Path checkpoints;

    @Test
    @Timeout(240)
    void failureAfterCheckpointRestoresVnodeStateExactly(@InjectMiniCluster MiniCluster miniCluster)
            throws Exception {
        Input input = new Input(60_000, 97, 3_000, 2);
        Map<String, String> reference =
                Upserts.of(RhinoEquivalenceITCase.run(Mode.PLAIN, input.unlimited(), 8));

        Configuration config = RhinoClusters.jobConfig(Mode.RHINO);
        // checkpoints on demand: three complete before the failure, however loaded the machine
        RhinoClusters.withCheckpoints(config, checkpoints, Duration.ofHours(1));
        config.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, true);
        RhinoClusters.withRestarts(config, 3, Duration.ofMillis(100));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        env.setParallelism(3);
        String runId = "failover-" + UUID.randomUUID();
        TestPipelines.build(
                        env,
                        Mode.RHINO,
                        input,
                        TestPipelines.RhinoSetup.vnodes(8),
                        events -> events.map(new FailOnDemand<>(runId)))
                .sinkTo(new ResultSink(runId));
        JobClient job = env.executeAsync("failover");
        RhinoHandovers.awaitReady(job.getJobID(), "process", Duration.ofSeconds(60));
        for (int checkpoint = 0; checkpoint < 3; checkpoint++) {
            RhinoClusters.checkpoint(miniCluster, job.getJobID());
        }
        FailOnDemand.arm(runId);
        job.getJobExecutionResult().get(180, TimeUnit.SECONDS);

        assertThat(FailOnDemand.failures(runId)).as("injected failures").isEqualTo(1);
        assertThat(Upserts.of(ResultSink.take(runId))).isEqualTo(reference);
    }
}
