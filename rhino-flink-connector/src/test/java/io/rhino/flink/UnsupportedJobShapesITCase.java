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
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rhino.flink.api.RhinoKeyedStream;
import io.rhino.flink.api.RhinoKeyedStreamOptions;
import io.rhino.flink.api.RhinoStreams;
import io.rhino.flink.testjobs.Events;
import io.rhino.flink.testjobs.Multisets;
import io.rhino.flink.testjobs.ResultSink;
import io.rhino.flink.testjobs.ShapeFunctions;
import io.rhino.flink.testjobs.TestPipelines.Mode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.Consumer;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.datastream.BroadcastStream;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamUtils;
import org.apache.flink.streaming.api.datastream.KeyedStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Job shapes that only the running job reveals are refused when the Rhino tasks start, naming the
 * Rhino operator, the cause and the fix, and without restarting the job into the same refusal. The
 * alternative was a job that ran until its first handover and then failed or lost state. Operators
 * that are not on a Rhino keyed stream are left alone.
 */
@Timeout(120)
class UnsupportedJobShapesITCase {

    @RegisterExtension static final MiniClusterExtension CLUSTER = RhinoClusters.twoTaskManagers();

    private static final String NAME = "counts";

    @Test
    void keyedOperatorNotChainedToItsGate() {
        // a restart strategy that would retry for minutes: the refusal must not be retried
        Configuration config = RhinoClusters.jobConfig(Mode.RHINO);
        RhinoClusters.withRestarts(config, 10_000, Duration.ofMillis(10));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        env.setParallelism(2);
        keyed(env)
                .process(new ShapeFunctions.CountPerKey())
                .disableChaining()
                .sinkTo(new DiscardingSink<>());

        assertRefusedAtStart(
                env,
                "Rhino keyed stream '" + NAME + "'",
                "not chained to its gate",
                "disableChaining()",
                "pipeline.operator-chaining.enabled: true");
    }

    @Test
    void broadcastConnectOnTheKeyedStream() {
        StreamExecutionEnvironment env = environment();
        RhinoKeyedStream<Tuple3<Long, Long, Long>, Long> keyed = keyed(env);
        BroadcastStream<Long> rules =
                env.fromData(1L, 2L)
                        .broadcast(new MapStateDescriptor<>("rules", Types.LONG, Types.LONG));
        keyed.pin(
                        keyed.keyedStream()
                                .connect(rules)
                                .process(new ShapeFunctions.CountWithRules(), Types.STRING))
                .sinkTo(new DiscardingSink<>());

        assertRefusedAtStart(env, "'" + NAME + "'", "not chained to its gate", "connect()");
    }

    @Test
    void twoKeyedOperatorsOnTheKeyedStream() {
        StreamExecutionEnvironment env = environment();
        RhinoKeyedStream<Tuple3<Long, Long, Long>, Long> keyed = keyed(env);
        KeyedStream<Tuple3<Long, Long, Long>, Long> stream = keyed.keyedStream();
        keyed.pin(stream.process(new ShapeFunctions.CountPerKey()))
                .uid("first")
                .sinkTo(new DiscardingSink<>());
        keyed.pin(stream.process(new ShapeFunctions.CountPerKey()))
                .uid("second")
                .sinkTo(new DiscardingSink<>());

        assertRefusedAtStart(
                env,
                "'" + NAME + "' feeds 2 operators",
                "exactly one keyed operator",
                "RhinoKeyedStreamOptions.named(");
    }

    @Test
    void keyedOperatorChainedAfterTheKeyedOperator() {
        StreamExecutionEnvironment env = environment();
        SingleOutputStreamOperator<String> counted =
                keyed(env).process(new ShapeFunctions.CountPerKey());
        DataStreamUtils.reinterpretAsKeyedStream(counted, line -> line.split("=")[0])
                .map(line -> line)
                .returns(Types.STRING)
                .setParallelism(2)
                .sinkTo(new DiscardingSink<>());

        assertRefusedAtStart(
                env, "'" + NAME + "'", "runs 2 keyed operators", "RhinoKeyedStreamOptions.named(");
    }

    @Test
    void nonKeyedOperatorAfterTheGate() {
        StreamExecutionEnvironment env = environment();
        // most operators on a keyed stream are keyed, even its sinkTo(...); this one is not
        keyed(env)
                .keyedStream()
                .assignTimestampsAndWatermarks(
                        WatermarkStrategy.<Tuple3<Long, Long, Long>>forMonotonousTimestamps())
                .sinkTo(new DiscardingSink<>());

        assertRefusedAtStart(env, "'" + NAME + "'", "not a keyed operator", "process(");
    }

    @Test
    void bundleOperatorOnTheKeyedStream() {
        StreamExecutionEnvironment env = environment();
        RhinoKeyedStream<Tuple3<Long, Long, Long>, Long> keyed = keyed(env);
        keyed.pin(
                        keyed.keyedStream()
                                .transform(
                                        "bundle",
                                        Types.STRING,
                                        new ShapeFunctions.BundlingCounter()))
                .sinkTo(new DiscardingSink<>());

        assertRefusedAtStart(
                env,
                "'" + NAME + "'",
                "BundlingCounter",
                "prepareSnapshotPreBarrier",
                "keyed state");
    }

    @Test
    void asyncStateOnTheKeyedStream() {
        StreamExecutionEnvironment env = environment();
        RhinoKeyedStream<Tuple3<Long, Long, Long>, Long> keyed = keyed(env);
        keyed.pin(
                        keyed.keyedStream()
                                .enableAsyncState()
                                .process(new ShapeFunctions.AsyncCountPerKey()))
                .sinkTo(new DiscardingSink<>());

        assertRefusedAtStart(env, "'" + NAME + "'", "asynchronous state", "enableAsyncState()");
    }

    /** The refusal is Rhino's alone: async state keeps working on Flink's own keyed streams. */
    @Test
    void asyncStateOnAPlainKeyedStreamRunsOnTheRhinoBackend() throws Exception {
        List<String> counts = new ArrayList<>();
        for (boolean async : List.of(false, true)) {
            StreamExecutionEnvironment env = environment();
            String runId = "plain-async-" + async + "-" + UUID.randomUUID();
            KeyedStream<Tuple3<Long, Long, Long>, Long> keyed =
                    Events.stream(env, "events", 1, 200, 5, 13, 0, 1)
                            .keyBy(new ShapeFunctions.ByKey());
            (async
                            ? keyed.enableAsyncState()
                                    .process(new ShapeFunctions.AsyncCountPerKey())
                            : keyed.process(new ShapeFunctions.CountPerKey()))
                    .sinkTo(new ResultSink(runId));
            env.execute("plain-async-" + async);
            List<String> lines = ResultSink.take(runId);
            assertThat(lines).hasSize(200);
            if (counts.isEmpty()) {
                counts.addAll(lines);
            } else {
                Multisets.assertSameMultiset("async vs synchronous state", counts, lines);
            }
        }
    }

    private static StreamExecutionEnvironment environment() {
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.getExecutionEnvironment(
                        RhinoClusters.jobConfig(Mode.RHINO));
        env.setParallelism(2);
        return env;
    }

    private static RhinoKeyedStream<Tuple3<Long, Long, Long>, Long> keyed(
            StreamExecutionEnvironment env) {
        DataStream<Tuple3<Long, Long, Long>> events =
                Events.stream(env, "events", 1, 200, 5, 13, 0, 1);
        return RhinoStreams.keyBy(
                events, new ShapeFunctions.ByKey(), RhinoKeyedStreamOptions.named(NAME));
    }

    private static void assertRefusedAtStart(StreamExecutionEnvironment env, String... parts) {
        Consumer<Throwable> check =
                failure -> {
                    String trace = ExceptionUtils.stringifyException(failure);
                    for (String part : parts) {
                        assertThat(trace).contains(part);
                    }
                };
        assertThatThrownBy(() -> env.execute("unsupported-shape")).satisfies(check);
    }
}
