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

package io.rhino.benchmarks;

import io.rhino.flink.api.RhinoKeyedStreamOptions;
import io.rhino.flink.api.RhinoStreams;
import java.time.Duration;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.AggregateFunction;
import org.apache.flink.api.common.typeinfo.TypeHint;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.windowing.ProcessWindowFunction;
import org.apache.flink.streaming.api.windowing.assigners.SlidingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.util.Collector;

/**
 * The keyed sliding-window job of the demo and the throughput benchmark: generated events {@code
 * (key, timestamp, value)}, keyed by key, per-key count and sum over 10 s event-time windows
 * sliding by 2 s. The same job runs on a Rhino keyed stream or on Flink's own {@code keyBy}.
 */
public final class SlidingWindowJob {

    /** Which keyed stream the window runs on. */
    public enum Mode {
        /** {@link RhinoStreams#keyBy} on the Rhino state backend. */
        RHINO,
        /** Flink's own {@code keyBy} on Flink's RocksDB state backend. */
        PLAIN
    }

    /** (key, event timestamp in ms, value). */
    public static final TypeInformation<Tuple3<Long, Long, Long>> EVENT_TYPE =
            TypeInformation.of(new TypeHint<Tuple3<Long, Long, Long>>() {});

    public static final Duration WINDOW_SIZE = Duration.ofSeconds(10);
    public static final Duration WINDOW_SLIDE = Duration.ofSeconds(2);

    /** Name (and uid) of the window operator. */
    public static final String WINDOW_NAME = "sliding-window";

    /** Shape of the generated input and of the keyed operator. */
    public record Spec(
            Mode mode,
            long records,
            int keys,
            long eventTimeRate,
            double recordsPerSecond,
            int parallelism,
            int vnodes,
            int keyGroups) {}

    private SlidingWindowJob() {}

    /**
     * Adds the job to {@code env} and returns the window results. The source runs with parallelism
     * 1, so event time never goes backwards and no event is late.
     */
    public static SingleOutputStreamOperator<WindowResult> build(
            StreamExecutionEnvironment env, Spec spec) {
        DataGeneratorSource<Tuple3<Long, Long, Long>> source =
                new DataGeneratorSource<>(
                        new EventGenerator(spec.keys(), spec.eventTimeRate()),
                        spec.records(),
                        spec.recordsPerSecond() > 0
                                ? RateLimiterStrategy.perSecond(spec.recordsPerSecond())
                                : RateLimiterStrategy.noOp(),
                        EVENT_TYPE);
        DataStream<Tuple3<Long, Long, Long>> events =
                env.fromSource(
                                source,
                                WatermarkStrategy
                                        .<Tuple3<Long, Long, Long>>forMonotonousTimestamps()
                                        .withTimestampAssigner(new EventTimestamp()),
                                "events")
                        .setParallelism(1);

        SlidingEventTimeWindows windows = SlidingEventTimeWindows.of(WINDOW_SIZE, WINDOW_SLIDE);
        SingleOutputStreamOperator<WindowResult> results;
        if (spec.mode() == Mode.RHINO) {
            RhinoKeyedStreamOptions.Builder builder =
                    RhinoKeyedStreamOptions.builder(WINDOW_NAME)
                            .keyGroups(spec.keyGroups())
                            .parallelism(spec.parallelism())
                            .activeParallelism(spec.parallelism());
            if (spec.vnodes() > 0) {
                builder.vnodes(spec.vnodes()); // else Rhino's default per subtask
            }
            RhinoKeyedStreamOptions options = builder.build();
            results =
                    RhinoStreams.keyBy(events, new EventKey(), options)
                            .window(windows)
                            .aggregate(new CountAndSum(), new EmitWindow());
        } else {
            results =
                    events.keyBy(new EventKey())
                            .window(windows)
                            .aggregate(new CountAndSum(), new EmitWindow())
                            .setParallelism(spec.parallelism())
                            // the same number of key groups as the Rhino operator
                            .setMaxParallelism(spec.keyGroups());
        }
        return results.name(WINDOW_NAME).uid(WINDOW_NAME);
    }

    /** Event {@code index}: a pseudo-random key and value, and a timestamp growing with index. */
    static final class EventGenerator implements GeneratorFunction<Long, Tuple3<Long, Long, Long>> {
        private static final long serialVersionUID = 1L;

        private final int keys;
        private final long eventTimeRate;

        EventGenerator(int keys, long eventTimeRate) {
            this.keys = keys;
            this.eventTimeRate = eventTimeRate;
        }

        @Override
        public Tuple3<Long, Long, Long> map(Long index) {
            long mixed = mix(index);
            return Tuple3.of(
                    Math.floorMod(mixed, (long) keys),
                    index * 1000 / eventTimeRate,
                    Math.floorMod(mixed >>> 17, 100L));
        }

        private static long mix(long z) {
            z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
            z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
            return z ^ (z >>> 31);
        }
    }

    /** The event's key. */
    static final class EventKey implements KeySelector<Tuple3<Long, Long, Long>, Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public Long getKey(Tuple3<Long, Long, Long> event) {
            return event.f0;
        }
    }

    /** The event's timestamp. */
    static final class EventTimestamp
            implements org.apache.flink.api.common.eventtime.SerializableTimestampAssigner<
                    Tuple3<Long, Long, Long>> {
        private static final long serialVersionUID = 1L;

        @Override
        public long extractTimestamp(Tuple3<Long, Long, Long> event, long recordTimestamp) {
            return event.f1;
        }
    }

    /** (count, sum) of the window's values. */
    static final class CountAndSum
            implements AggregateFunction<
                    Tuple3<Long, Long, Long>, Tuple2<Long, Long>, Tuple2<Long, Long>> {
        private static final long serialVersionUID = 1L;

        @Override
        public Tuple2<Long, Long> createAccumulator() {
            return Tuple2.of(0L, 0L);
        }

        @Override
        public Tuple2<Long, Long> add(Tuple3<Long, Long, Long> event, Tuple2<Long, Long> acc) {
            acc.f0 += 1;
            acc.f1 += event.f2;
            return acc;
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

    /** Adds key and window to the aggregate. */
    static final class EmitWindow
            extends ProcessWindowFunction<Tuple2<Long, Long>, WindowResult, Long, TimeWindow> {
        private static final long serialVersionUID = 1L;

        @Override
        public void process(
                Long key,
                Context context,
                Iterable<Tuple2<Long, Long>> aggregates,
                Collector<WindowResult> out) {
            Tuple2<Long, Long> aggregate = aggregates.iterator().next();
            out.collect(
                    new WindowResult(
                            key,
                            context.window().getStart(),
                            context.window().getEnd(),
                            aggregate.f0,
                            aggregate.f1));
        }
    }
}
