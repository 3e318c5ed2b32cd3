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

import io.rhino.flink.testjobs.FailOnceAfterCheckpoints;
import io.rhino.flink.testjobs.ResultSink;
import io.rhino.flink.testjobs.TestPipelines;
import io.rhino.flink.testjobs.TestPipelines.Input;
import io.rhino.flink.testjobs.TestPipelines.Mode;
import io.rhino.flink.testjobs.Upserts;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
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
    void failureAfterCheckpointRestoresVnodeStateExactly() throws Exception {
        Input slowInput = new Input(6_000, 97, 1_500, 2);
        Map<String, String> reference =
                Upserts.of(RhinoEquivalenceITCase.run(Mode.PLAIN, slowInput.unlimited(), 8));

        Configuration config = RhinoClusters.jobConfig(Mode.RHINO);
        RhinoClusters.withCheckpoints(config, checkpoints, Duration.ofMillis(200));
        config.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, true);
        RhinoClusters.withRestarts(config, 3, Duration.ofMillis(100));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        env.setParallelism(3);
        String runId = "failover-" + UUID.randomUUID();
        FailOnceAfterCheckpoints<org.apache.flink.api.java.tuple.Tuple3<Long, Long, Long>> failure =
                new FailOnceAfterCheckpoints<>(runId, 3, 300);
        TestPipelines.build(
                        env,
                        Mode.RHINO,
                        slowInput,
                        TestPipelines.RhinoSetup.vnodes(8),
                        events -> events.map(failure).setParallelism(events.getParallelism()))
                .sinkTo(new ResultSink(runId));
        env.execute("failover");

        assertThat(FailOnceAfterCheckpoints.failures(runId)).as("injected failures").isEqualTo(1);
        assertThat(Upserts.of(ResultSink.take(runId))).isEqualTo(reference);
    }
}
