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

package io.rhino.flink.testjobs;

import io.rhino.flink.api.RhinoKeyedStreamOptions;
import io.rhino.flink.api.RhinoStreams;
import io.rhino.flink.handover.LocalDirectoryStateTransfer;
import io.rhino.flink.handover.StateTransfer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.apache.flink.api.common.functions.AggregateFunction;
import org.apache.flink.api.common.functions.JoinFunction;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.functions.windowing.ProcessWindowFunction;
import org.apache.flink.streaming.api.windowing.assigners.EventTimeSessionWindows;
import org.apache.flink.streaming.api.windowing.assigners.SlidingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.util.Collector;

/**
 * The deterministic jobs that Rhino runs must answer exactly like plain Flink: an event-time
 * sliding-window aggregation, a session-window reduce (merging windows), a keyed process function
 * with value, map and list state and event-time timers, a window join, and a plain keyed window
 * that stays on Flink's own partitioning even in the Rhino variant. Every output line is {@code
 * id=value}, with an id that is unique in a failure-free run.
 */
public final class TestPipelines {

    /** Which keyed streams the jobs use. */
    public enum Mode {
        PLAIN,
        RHINO
    }

    /** Sizes of the input. */
    public record Input(long events, int keys, double eventsPerSecond, int sourceParallelism) {
        /** The same input without a rate limit. */
        public Input unlimited() {
            return new Input(events, keys, 0, sourceParallelism);
        }
    }

    private static final KeySelector<Tuple3<Long, Long, Long>, Long> BY_KEY = new ByKey();

    private TestPipelines() {}

    /** How the Rhino variant keys its streams. */
    public record RhinoSetup(
            int vnodes,
            int activeParallelism,
            StateTransfer stateTransfer,
            java.time.Duration handoverTimeout) {
        public static RhinoSetup vnodes(int vnodes) {
            return new RhinoSetup(
                    vnodes,
                    -1,
                    new LocalDirectoryStateTransfer(),
                    java.time.Duration.ofSeconds(60));
        }

        RhinoKeyedStreamOptions options(String name) {
            RhinoKeyedStreamOptions.Builder builder =
                    RhinoKeyedStreamOptions.builder(name)
                            .vnodes(vnodes)
                            .stateTransfer(stateTransfer)
                            .handoverTimeout(handoverTimeout);
            if (activeParallelism > 0) {
                builder.activeParallelism(activeParallelism);
            }
            return builder.build();
        }
    }

    /** The names of the Rhino keyed streams the jobs create. */
    public static final List<String> RHINO_OPERATORS =
            List.of("sliding", "session", "process", "join");

    public static DataStream<String> build(
            StreamExecutionEnvironment env, Mode mode, Input input, int vnodes) {
        return build(env, mode, input, RhinoSetup.vnodes(vnodes), UnaryOperator.identity());
    }

    /**
     * As {@link #build(StreamExecutionEnvironment, Mode, Input, int)}, with {@code inject} applied
     * to the main event stream before it is keyed (to inject failures).
     */
    public static DataStream<String> build(
            StreamExecutionEnvironment env,
            Mode mode,
            Input input,
            RhinoSetup rhino,
            UnaryOperator<DataStream<Tuple3<Long, Long, Long>>> inject) {
        return build(
                env,
                mode,
                input,
                rhino,
                inject,
                input.eventsPerSecond() > 0
                        ? RateLimiterStrategy.perSecond(input.eventsPerSecond())
                        : RateLimiterStrategy.noOp());
    }

    /**
     * As above, with the main event stream's rate set by {@code eventsRate} (e.g. a {@link
     * ReleasableRate} that holds the input until the test is ready for it).
     */
    @SuppressWarnings("rawtypes")
    public static DataStream<String> build(
            StreamExecutionEnvironment env,
            Mode mode,
            Input input,
            RhinoSetup rhino,
            UnaryOperator<DataStream<Tuple3<Long, Long, Long>>> inject,
            RateLimiterStrategy eventsRate) {
        DataStream<Tuple3<Long, Long, Long>> source =
                Events.stream(
                                env,
                                "events",
                                1,
                                input.events(),
                                5,
                                input.keys(),
                                eventsRate,
                                input.sourceParallelism())
                        // ids that do not depend on the job's parallelism: the sources run at
                        // their own, and a generated id changes with what they chain to
                        .uid("events");
        DataStream<Tuple3<Long, Long, Long>> events = inject.apply(source);
        DataStream<Tuple3<Long, Long, Long>> others =
                Events.stream(
                                env,
                                "others",
                                2,
                                input.events() / 2,
                                10,
                                input.keys(),
                                input.eventsPerSecond() / 2,
                                input.sourceParallelism())
                        .uid("others");

        DataStream<String> sliding =
                mode == Mode.RHINO
                        ? RhinoStreams.keyBy(events, BY_KEY, rhino.options("sliding"))
                                .window(
                                        SlidingEventTimeWindows.of(
                                                Duration.ofSeconds(4), Duration.ofSeconds(1)))
                                .aggregate(new SumAndCount(), new EmitWindow("sliding"))
                        : events.keyBy(BY_KEY)
                                .window(
                                        SlidingEventTimeWindows.of(
                                                Duration.ofSeconds(4), Duration.ofSeconds(1)))
                                .aggregate(new SumAndCount(), new EmitWindow("sliding"));

        DataStream<String> sessions =
                mode == Mode.RHINO
                        ? RhinoStreams.keyBy(events, BY_KEY, rhino.options("session"))
                                .window(EventTimeSessionWindows.withGap(Duration.ofMillis(300)))
                                .aggregate(new SumAndCount(), new EmitWindow("session"))
                        : events.keyBy(BY_KEY)
                                .window(EventTimeSessionWindows.withGap(Duration.ofMillis(300)))
                                .aggregate(new SumAndCount(), new EmitWindow("session"));

        DataStream<String> processed =
                mode == Mode.RHINO
                        ? RhinoStreams.keyBy(events, BY_KEY, rhino.options("process"))
                                .process(new BucketTimers())
                        : events.keyBy(BY_KEY).process(new BucketTimers());

        DataStream<String> joined =
                mode == Mode.RHINO
                        ? RhinoStreams.join(events, others, rhino.options("join"))
                                .where(BY_KEY)
                                .equalTo(BY_KEY)
                                .window(TumblingEventTimeWindows.of(Duration.ofSeconds(2)))
                                .apply(new JoinLine(), Types.STRING)
                        : events.join(others)
                                .where(BY_KEY)
                                .equalTo(BY_KEY)
                                .window(TumblingEventTimeWindows.of(Duration.ofSeconds(2)))
                                .apply(new JoinLine(), Types.STRING);

        // Keyed with Flink's own keyBy in both modes: non-Rhino keyed operators keep working.
        DataStream<String> plain =
                others.keyBy(BY_KEY)
                        .window(TumblingEventTimeWindows.of(Duration.ofSeconds(5)))
                        .aggregate(new SumAndCount(), new EmitWindow("plain"))
                        .uid("plain");

        return sliding.union(sessions, processed, joined, plain);
    }

    private static final class ByKey implements KeySelector<Tuple3<Long, Long, Long>, Long> {
        @Override
        public Long getKey(Tuple3<Long, Long, Long> event) {
            return event.f0;
        }
    }

    /** Sum and count of event values. */
    public static final class SumAndCount
            implements AggregateFunction<
                    Tuple3<Long, Long, Long>, Tuple2<Long, Long>, Tuple2<Long, Long>> {
        @Override
        public Tuple2<Long, Long> createAccumulator() {
            return Tuple2.of(0L, 0L);
        }

        @Override
        public Tuple2<Long, Long> add(Tuple3<Long, Long, Long> event, Tuple2<Long, Long> acc) {
            return Tuple2.of(acc.f0 + event.f2, acc.f1 + 1);
        }

        @Override
        public Tuple2<Long, Long> getResult(Tuple2<Long, Long> acc) {
            return acc;
        }

        @Override
        public Tuple2<Long, Long> merge(Tuple2<Long, Long> a, Tuple2<Long, Long> b) {
            return Tuple2.of(a.f0 + b.f0, a.f1 + b.f1);
        }
    }

    /** Emits {@code kind|key|start|end=sum|count}. */
    public static final class EmitWindow
            extends ProcessWindowFunction<Tuple2<Long, Long>, String, Long, TimeWindow> {
        private final String kind;

        EmitWindow(String kind) {
            this.kind = kind;
        }

        @Override
        public void process(
                Long key,
                Context context,
                Iterable<Tuple2<Long, Long>> sums,
                Collector<String> out) {
            Tuple2<Long, Long> sum = sums.iterator().next();
            out.collect(
                    kind
                            + "|"
                            + key
                            + "|"
                            + context.window().getStart()
                            + "|"
                            + context.window().getEnd()
                            + "="
                            + sum.f0
                            + "|"
                            + sum.f1);
        }
    }

    /** Emits {@code join|key|leftTs|rightTs=leftValue+rightValue}. */
    public static final class JoinLine
            implements JoinFunction<Tuple3<Long, Long, Long>, Tuple3<Long, Long, Long>, String> {
        @Override
        public String join(Tuple3<Long, Long, Long> left, Tuple3<Long, Long, Long> right) {
            return "join|" + left.f0 + "|" + left.f1 + "|" + right.f1 + "=" + (left.f2 + right.f2);
        }
    }

    /**
     * Sums values per key and one-second bucket in map state, fires an event-time timer at each
     * bucket's end, and emits the bucket with how many buckets fired before (value state) and the
     * last three fired buckets (list state).
     */
    public static final class BucketTimers
            extends KeyedProcessFunction<Long, Tuple3<Long, Long, Long>, String> {
        private transient MapState<Long, Long> sumByBucket;
        private transient ValueState<Long> firedBuckets;
        private transient ListState<Long> recentBuckets;

        @Override
        public void open(OpenContext openContext) {
            sumByBucket =
                    getRuntimeContext()
                            .getMapState(new MapStateDescriptor<>("sums", Types.LONG, Types.LONG));
            firedBuckets =
                    getRuntimeContext().getState(new ValueStateDescriptor<>("fired", Types.LONG));
            recentBuckets =
                    getRuntimeContext()
                            .getListState(new ListStateDescriptor<>("recent", Types.LONG));
        }

        @Override
        public void processElement(
                Tuple3<Long, Long, Long> event, Context ctx, Collector<String> out)
                throws Exception {
            long bucket = event.f1 / 1000;
            Long sum = sumByBucket.get(bucket);
            sumByBucket.put(bucket, (sum == null ? 0 : sum) + event.f2);
            ctx.timerService().registerEventTimeTimer(bucket * 1000 + 999);
        }

        @Override
        public void onTimer(long timestamp, OnTimerContext ctx, Collector<String> out)
                throws Exception {
            long bucket = timestamp / 1000;
            Long sum = sumByBucket.get(bucket);
            sumByBucket.remove(bucket);
            Long fired = firedBuckets.value();
            long firedBefore = fired == null ? 0 : fired;
            firedBuckets.update(firedBefore + 1);
            List<Long> recent = new ArrayList<>();
            recentBuckets.get().forEach(recent::add);
            recent.add(bucket);
            if (recent.size() > 3) {
                recent = new ArrayList<>(recent.subList(recent.size() - 3, recent.size()));
            }
            recentBuckets.update(recent);
            out.collect(
                    "process|"
                            + ctx.getCurrentKey()
                            + "|"
                            + bucket
                            + "="
                            + sum
                            + "|"
                            + firedBefore
                            + "|"
                            + recent);
        }
    }
}
