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

package io.rhino.flink.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rhino.flink.config.RhinoOptions;
import io.rhino.flink.spec.UnsupportedJobShapeException;
import io.rhino.flink.state.RhinoStateBackendFactory;
import io.rhino.flink.testjobs.Events;
import io.rhino.flink.testjobs.ShapeFunctions;
import io.rhino.flink.testjobs.TestPipelines;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.streaming.api.graph.StreamNode;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.junit.jupiter.api.Test;

/**
 * What the API can see while the job is built: a Rhino keyed stream feeds one keyed operator, needs
 * operator chaining and a fixed parallelism, has a unique name, and gives every operator Rhino
 * builds a stable uid derived from that name.
 */
class RhinoJobBuildTest {

    private static final String NAME = "counts";

    @Test
    void aVnodeCountTheKeyGroupsCannotHoldIsRefusedNamingBothAndTheOption() {
        Configuration config = config();
        config.set(RhinoOptions.KEY_GROUPS, 128);
        config.set(RhinoOptions.VNODES, 200);
        assertThatThrownBy(() -> keyed(environment(config)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Rhino keyed stream '" + NAME + "'")
                .hasMessageContaining("200 vnodes (rhino.vnodes)")
                .hasMessageContaining("128 key groups (rhino.key-groups)");
    }

    @Test
    void secondKeyedOperatorOnOneRhinoKeyedStreamIsRefused() {
        RhinoKeyedStream<Tuple3<Long, Long, Long>, Long> keyed = keyed(environment(config()));
        keyed.process(new ShapeFunctions.CountPerKey());

        assertThatThrownBy(
                        () ->
                                keyed.window(TumblingEventTimeWindows.of(Duration.ofSeconds(1)))
                                        .reduce((a, b) -> a))
                .isInstanceOf(UnsupportedJobShapeException.class)
                .hasMessageContaining("Rhino keyed stream '" + NAME + "'")
                .hasMessageContaining("created by process(...)")
                .hasMessageContaining("exactly one keyed operator")
                .hasMessageContaining("RhinoKeyedStreamOptions.named(\"" + NAME + "-2\")");
    }

    @Test
    void secondWindowFunctionOnOneWindowedStreamIsRefused() {
        RhinoWindowedStream<Tuple3<Long, Long, Long>, Long, TimeWindow> windowed =
                keyed(environment(config()))
                        .window(TumblingEventTimeWindows.of(Duration.ofSeconds(1)));
        windowed.reduce((a, b) -> a);

        assertThatThrownBy(() -> windowed.reduce((a, b) -> b))
                .isInstanceOf(UnsupportedJobShapeException.class)
                .hasMessageContaining("created by window(...)");
    }

    @Test
    void keyedStreamAccessCountsAsTheOneKeyedOperator() {
        RhinoKeyedStream<Tuple3<Long, Long, Long>, Long> keyed = keyed(environment(config()));
        keyed.keyedStream();

        assertThatThrownBy(() -> keyed.process(new ShapeFunctions.CountPerKey()))
                .isInstanceOf(UnsupportedJobShapeException.class)
                .hasMessageContaining("created by keyedStream()");
    }

    @Test
    void disabledOperatorChainingIsRefused() {
        Configuration config = config();
        config.set(PipelineOptions.OPERATOR_CHAINING, false);
        assertThatThrownBy(() -> keyed(environment(config)))
                .isInstanceOf(UnsupportedJobShapeException.class)
                .hasMessageContaining("Rhino keyed stream '" + NAME + "'")
                .hasMessageContaining("pipeline.operator-chaining.enabled: true");

        StreamExecutionEnvironment env = environment(config());
        env.disableOperatorChaining();
        assertThatThrownBy(() -> keyed(env))
                .hasMessageContaining("pipeline.operator-chaining.enabled: true")
                .hasMessageContaining("disableOperatorChaining()");
    }

    @Test
    void rhinoNameIsUniqueInAJob() {
        StreamExecutionEnvironment env = environment(config());
        keyed(env);

        assertThatThrownBy(() -> keyed(env))
                .isInstanceOf(UnsupportedJobShapeException.class)
                .hasMessageContaining("already has a Rhino keyed stream named '" + NAME + "'");
    }

    @Test
    void rhinoUidTakenByAnotherOperatorIsRefused() {
        StreamExecutionEnvironment env = environment(config());
        DataStream<Tuple3<Long, Long, Long>> events = events(env).uid("rhino-gate-" + NAME);

        assertThatThrownBy(
                        () ->
                                RhinoStreams.keyBy(
                                        events,
                                        new ShapeFunctions.ByKey(),
                                        RhinoKeyedStreamOptions.named(NAME)))
                .isInstanceOf(UnsupportedJobShapeException.class)
                .hasMessageContaining("uid 'rhino-gate-" + NAME + "'")
                .hasMessageContaining("routerUid");
    }

    @Test
    void rhinoOperatorsHaveStableUidsFromTheName() {
        StreamExecutionEnvironment env = environment(config());
        keyed(env).process(new ShapeFunctions.CountPerKey()).sinkTo(new DiscardingSink<>());

        assertThat(uidByOperatorName(env.getStreamGraph()))
                .containsEntry(NAME + " (Rhino router)", "rhino-router-" + NAME)
                .containsEntry(NAME + " (Rhino gate)", "rhino-gate-" + NAME)
                .containsEntry(NAME, "rhino-keyed-" + NAME);
    }

    @Test
    void uidsCanBeSet() {
        StreamExecutionEnvironment env = environment(config());
        RhinoStreams.keyBy(
                        events(env),
                        new ShapeFunctions.ByKey(),
                        RhinoKeyedStreamOptions.builder("renamed")
                                .routerUid("rhino-router-" + NAME)
                                .gateUid("rhino-gate-" + NAME)
                                .build())
                .process(new ShapeFunctions.CountPerKey())
                .uid("my-counts")
                .sinkTo(new DiscardingSink<>());

        assertThat(uidByOperatorName(env.getStreamGraph()))
                .containsEntry("renamed (Rhino router)", "rhino-router-" + NAME)
                .containsEntry("renamed (Rhino gate)", "rhino-gate-" + NAME)
                .containsEntry("renamed", "my-counts");
    }

    /**
     * With {@code pipeline.auto-generate-uids: false} Flink demands a uid on every operator: the
     * user gives them to sources and sinks, Rhino to everything it builds, joins included.
     */
    @Test
    void jobsBuildWithoutAutoGeneratedUids() {
        Configuration config = config();
        config.set(PipelineOptions.AUTO_GENERATE_UIDS, false);
        StreamExecutionEnvironment env = environment(config);
        DataStream<Tuple3<Long, Long, Long>> events = events(env).uid("events");
        DataStream<Tuple3<Long, Long, Long>> others =
                Events.stream(env, "others", 2, 100, 5, 13, 0, 1).uid("others");
        keyed(events)
                .process(new ShapeFunctions.CountPerKey())
                .sinkTo(new DiscardingSink<>())
                .uid("counts-sink");
        RhinoStreams.join(events, others, RhinoKeyedStreamOptions.named("join"))
                .where(new ShapeFunctions.ByKey())
                .equalTo(new ShapeFunctions.ByKey())
                .window(TumblingEventTimeWindows.of(Duration.ofSeconds(1)))
                .apply(new TestPipelines.JoinLine(), Types.STRING)
                .sinkTo(new DiscardingSink<>())
                .uid("join-sink");

        assertThat(uidByOperatorName(env.getStreamGraph()))
                .containsEntry("join (Rhino tag first)", "rhino-tag-first-join")
                .containsEntry("join (Rhino tag second)", "rhino-tag-second-join")
                .containsEntry("join (Rhino router)", "rhino-router-join")
                .containsEntry("join", "rhino-keyed-join");
    }

    private static Map<String, String> uidByOperatorName(StreamGraph graph) {
        Map<String, String> uids = new TreeMap<>();
        for (StreamNode node : graph.getStreamNodes()) {
            if (node.getTransformationUID() != null) {
                uids.put(node.getOperatorName(), node.getTransformationUID());
            }
        }
        return uids;
    }

    private static Configuration config() {
        Configuration config = new Configuration();
        config.set(StateBackendOptions.STATE_BACKEND, RhinoStateBackendFactory.class.getName());
        return config;
    }

    private static StreamExecutionEnvironment environment(Configuration config) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        env.setParallelism(2);
        return env;
    }

    private static SingleOutputStreamOperator<Tuple3<Long, Long, Long>> events(
            StreamExecutionEnvironment env) {
        return Events.stream(env, "events", 1, 100, 5, 13, 0, 1);
    }

    private static RhinoKeyedStream<Tuple3<Long, Long, Long>, Long> keyed(
            StreamExecutionEnvironment env) {
        return keyed(events(env));
    }

    private static RhinoKeyedStream<Tuple3<Long, Long, Long>, Long> keyed(
            DataStream<Tuple3<Long, Long, Long>> events) {
        return RhinoStreams.keyBy(
                events, new ShapeFunctions.ByKey(), RhinoKeyedStreamOptions.named(NAME));
    }
}
