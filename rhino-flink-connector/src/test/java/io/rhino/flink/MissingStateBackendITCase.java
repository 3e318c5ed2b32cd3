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

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rhino.flink.api.RhinoKeyedStreamOptions;
import io.rhino.flink.api.RhinoStreams;
import io.rhino.flink.state.RhinoStateBackendFactory;
import io.rhino.flink.testjobs.Events;
import io.rhino.flink.testjobs.TestPipelines;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A Rhino keyed stream without the Rhino state backend fails early and says what to set. */
class MissingStateBackendITCase {

    @RegisterExtension static final MiniClusterExtension CLUSTER = RhinoClusters.twoTaskManagers();

    private static final String FIX =
            "state.backend.type: " + RhinoStateBackendFactory.class.getName();

    @Test
    void otherBackendInJobConfigurationFailsAtJobConstruction() {
        Configuration config = new Configuration();
        config.set(StateBackendOptions.STATE_BACKEND, "rocksdb");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        DataStream<Tuple3<Long, Long, Long>> events = Events.stream(env, "e", 1, 10, 5, 3, 0, 1);

        assertThatThrownBy(
                        () ->
                                RhinoStreams.keyBy(
                                        events,
                                        event -> event.f0,
                                        RhinoKeyedStreamOptions.named("counts")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Rhino keyed stream 'counts'")
                .hasMessageContaining(FIX);
    }

    @Test
    void unsetBackendFailsAtTaskStart() {
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.getExecutionEnvironment(new Configuration());
        env.setParallelism(2);
        DataStream<Tuple3<Long, Long, Long>> events = Events.stream(env, "e", 1, 100, 5, 3, 0, 1);
        RhinoStreams.keyBy(events, event -> event.f0, RhinoKeyedStreamOptions.named("counts"))
                .process(new TestPipelines.BucketTimers())
                .sinkTo(new DiscardingSink<>());

        assertThatThrownBy(() -> env.execute("no-rhino-backend"))
                .hasStackTraceContaining(
                        "Rhino keyed operator 'counts' needs the Rhino state backend")
                .hasStackTraceContaining(FIX);
    }
}
