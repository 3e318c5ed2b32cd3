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
import io.rhino.flink.testjobs.TestPipelines.Mode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.common.functions.CoGroupFunction;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.streaming.api.TimeDomain;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.functions.windowing.ProcessWindowFunction;
import org.apache.flink.streaming.api.windowing.assigners.EventTimeSessionWindows;
import org.apache.flink.streaming.api.windowing.assigners.SlidingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.evictors.TimeEvictor;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.util.Collector;

/**
 * One job with the keyed operators whose state and timers a migration between Flink's {@code keyBy}
 * and Rhino must carry: an event-time sliding window, a keyed process function with event-time and
 * processing-time timers, a window join, a window co-group, session (merging) windows and a window
 * with an evictor, which keeps the records themselves. Both variants give the keyed operators the
 * same uids ({@link #KEYED_UIDS}) and the sources theirs ({@code events}, {@code others}); every
 * output line is a pure function of the input, whenever a window or timer fires.
 *
 * <p>Flink's own {@code join} and {@code coGroup} tag their inputs with maps that have no uid, so
 * the {@code keyBy} variant needs {@code pipeline.auto-generate-uids} on; the maps hold no state.
 */
public final class MigrationShapes {

    /** The keyed operators' uids, in both variants, and the Rhino keyed streams' names. */
    public static final List<String> KEYED_UIDS =
            List.of("sliding", "timers", "join", "cogroup", "session", "evicting");

    /** Events of the main stream; the other stream has half as many, as far apart in time. */
    public static final long EVENTS = 8_000;

    private static final int KEYS = 40;
    private static final double EVENTS_PER_SECOND = 2_000;

    /**
     * Every event but the last registers a processing-time timer, which emits one line for it. The
     * last event waits until the test has all these lines ({@link HeldEvents#releaseLastEvent}):
     * timers still pending when the input ends would never fire.
     */
    public static final long PROCESSING_LINES = EVENTS - 1;

    private static final long PROCESSING_TIMERS_BEFORE = PROCESSING_LINES * 5;

    /** Per run, timers that a subtask restored (registered before it started) and fired. */
    private static final Map<String, AtomicLong> RESTORED_EVENT_TIMERS_FIRED =
            new ConcurrentHashMap<>();

    private static final Map<String, AtomicLong> RESTORED_PROCESSING_TIMERS_FIRED =
            new ConcurrentHashMap<>();

    private static final long PROCESSING_DELAY_MILLIS = 1_000;

    private static final KeySelector<Tuple3<Long, Long, Long>, Long> BY_KEY = new ByKey();

    /**
     * A key's events lie 200 ms of event time apart on average: with this gap a session merges
     * several of them, and a savepoint finds sessions open that later ones merge into.
     */
    private static final Duration SESSION_GAP = Duration.ofMillis(300);

    /** The evicting window keeps the records themselves, and only its last half second. */
    private static final Duration KEPT = Duration.ofMillis(500);

    private MigrationShapes() {}

    /**
     * The job's output lines; {@code keyGroups} is the Rhino streams' key groups or the {@code
     * keyBy} operators' max parallelism (0: the default).
     */
    public static DataStream<String> build(
            StreamExecutionEnvironment env, Mode mode, int keyGroups, String runId) {
        DataStream<Tuple3<Long, Long, Long>> events =
                HeldEvents.stream(env, "events", runId, 21, EVENTS, 5, KEYS, EVENTS_PER_SECOND)
                        .uid("events");
        DataStream<Tuple3<Long, Long, Long>> others =
                Events.stream(env, "others", 22, EVENTS / 2, 10, KEYS, EVENTS_PER_SECOND / 2, 1)
                        .uid("others");
        SlidingEventTimeWindows sliding =
                SlidingEventTimeWindows.of(Duration.ofSeconds(2), Duration.ofMillis(500));
        TumblingEventTimeWindows tumbling = TumblingEventTimeWindows.of(Duration.ofSeconds(1));
        List<SingleOutputStreamOperator<String>> keyed = new ArrayList<>();
        if (mode == Mode.RHINO) {
            keyed.add(
                    RhinoStreams.keyBy(events, BY_KEY, options("sliding", keyGroups))
                            .window(sliding)
                            .aggregate(
                                    new TestPipelines.SumAndCount(),
                                    new TestPipelines.EmitWindow("sliding")));
            keyed.add(
                    RhinoStreams.keyBy(events, BY_KEY, options("timers", keyGroups))
                            .process(new TimersInBothDomains(runId)));
            keyed.add(
                    RhinoStreams.join(events, others, options("join", keyGroups))
                            .where(BY_KEY)
                            .equalTo(BY_KEY)
                            .window(tumbling)
                            .apply(new TestPipelines.JoinLine(), Types.STRING));
            keyed.add(
                    RhinoStreams.coGroup(events, others, options("cogroup", keyGroups))
                            .where(BY_KEY)
                            .equalTo(BY_KEY)
                            .window(tumbling)
                            .apply(new CountBothSides(), Types.STRING));
            keyed.add(
                    RhinoStreams.keyBy(events, BY_KEY, options("session", keyGroups))
                            .window(EventTimeSessionWindows.withGap(SESSION_GAP))
                            .aggregate(
                                    new TestPipelines.SumAndCount(),
                                    new TestPipelines.EmitWindow("session")));
            keyed.add(
                    RhinoStreams.keyBy(events, BY_KEY, options("evicting", keyGroups))
                            .window(tumbling)
                            .evictor(TimeEvictor.of(KEPT))
                            .process(new SumOfKept()));
        } else {
            keyed.add(
                    events.keyBy(BY_KEY)
                            .window(sliding)
                            .aggregate(
                                    new TestPipelines.SumAndCount(),
                                    new TestPipelines.EmitWindow("sliding")));
            keyed.add(events.keyBy(BY_KEY).process(new TimersInBothDomains(runId)));
            keyed.add(
                    events.join(others)
                            .where(BY_KEY)
                            .equalTo(BY_KEY)
                            .window(tumbling)
                            .apply(new TestPipelines.JoinLine(), Types.STRING));
            keyed.add(
                    events.coGroup(others)
                            .where(BY_KEY)
                            .equalTo(BY_KEY)
                            .window(tumbling)
                            .apply(new CountBothSides(), Types.STRING));
            keyed.add(
                    events.keyBy(BY_KEY)
                            .window(EventTimeSessionWindows.withGap(SESSION_GAP))
                            .aggregate(
                                    new TestPipelines.SumAndCount(),
                                    new TestPipelines.EmitWindow("session")));
            keyed.add(
                    events.keyBy(BY_KEY)
                            .window(tumbling)
                            .evictor(TimeEvictor.of(KEPT))
                            .process(new SumOfKept()));
        }
        for (int i = 0; i < keyed.size(); i++) {
            keyed.get(i).uid(KEYED_UIDS.get(i));
            if (mode == Mode.PLAIN && keyGroups > 0) {
                keyed.get(i).setMaxParallelism(keyGroups);
            }
        }
        DataStream<String> all = keyed.get(0);
        for (DataStream<String> next : keyed.subList(1, keyed.size())) {
            all = all.union(next);
        }
        return all;
    }

    /** Event-time timers of run {@code runId} restored from a savepoint that fired so far. */
    public static long restoredEventTimersFired(String runId) {
        return RESTORED_EVENT_TIMERS_FIRED.computeIfAbsent(runId, id -> new AtomicLong()).get();
    }

    /** Processing-time timers of run {@code runId} restored from a savepoint that fired so far. */
    public static long restoredProcessingTimersFired(String runId) {
        return RESTORED_PROCESSING_TIMERS_FIRED
                .computeIfAbsent(runId, id -> new AtomicLong())
                .get();
    }

    /** How many of {@code lines} event-time timers emitted. */
    public static long eventTimerLines(Collection<String> lines) {
        return lines.stream().filter(line -> line.startsWith("event|")).count();
    }

    /** How many of {@code lines} processing-time timers emitted. */
    public static long processingLines(Collection<String> lines) {
        return lines.stream().filter(line -> line.startsWith("processing|")).count();
    }

    private static RhinoKeyedStreamOptions options(String name, int keyGroups) {
        RhinoKeyedStreamOptions.Builder builder = RhinoKeyedStreamOptions.builder(name);
        if (keyGroups > 0) {
            builder.keyGroups(keyGroups);
        }
        return builder.build();
    }

    private static final class ByKey implements KeySelector<Tuple3<Long, Long, Long>, Long> {
        @Override
        public Long getKey(Tuple3<Long, Long, Long> event) {
            return event.f0;
        }
    }

    /**
     * Event-time timers as {@link TestPipelines.BucketTimers} (a timer per key and one-second
     * bucket, its line counting the buckets fired before), and a processing-time timer a second
     * after every event but the last: the timer emits exactly the events that registered it, so a
     * timer lost or fired twice changes the output, however other timers of the key fire. Timers
     * that fire in an instance opened after they were registered are counted per run: a restore (or
     * a handover) brought them.
     */
    public static final class TimersInBothDomains
            extends KeyedProcessFunction<Long, Tuple3<Long, Long, Long>, String> {
        private transient MapState<Long, Long> sumByBucket;
        private transient ValueState<Long> firedBuckets;
        private transient MapState<Long, String> eventsByTimer;

        private final String runId;

        /** When this instance opened: its own processing-time timers lie a delay beyond. */
        private transient long opened;

        /** When each bucket's timer was first registered. */
        private transient MapState<Long, Long> registeredAt;

        public TimersInBothDomains(String runId) {
            this.runId = runId;
        }

        @Override
        public void open(OpenContext openContext) {
            opened = System.currentTimeMillis();
            sumByBucket =
                    getRuntimeContext()
                            .getMapState(new MapStateDescriptor<>("sums", Types.LONG, Types.LONG));
            firedBuckets =
                    getRuntimeContext().getState(new ValueStateDescriptor<>("fired", Types.LONG));
            eventsByTimer =
                    getRuntimeContext()
                            .getMapState(
                                    new MapStateDescriptor<>("pending", Types.LONG, Types.STRING));
            registeredAt =
                    getRuntimeContext()
                            .getMapState(
                                    new MapStateDescriptor<>("registered", Types.LONG, Types.LONG));
        }

        @Override
        public void processElement(
                Tuple3<Long, Long, Long> event, Context ctx, Collector<String> out)
                throws Exception {
            long bucket = event.f1 / 1000;
            Long sum = sumByBucket.get(bucket);
            sumByBucket.put(bucket, (sum == null ? 0 : sum) + event.f2);
            ctx.timerService().registerEventTimeTimer(bucket * 1000 + 999);
            if (sum == null) {
                registeredAt.put(bucket, System.currentTimeMillis());
            }
            if (event.f1 < PROCESSING_TIMERS_BEFORE) {
                // on a 100 ms grid, so that several events share a timer
                long at =
                        (ctx.timerService().currentProcessingTime() + PROCESSING_DELAY_MILLIS)
                                        / 100
                                        * 100
                                + 100;
                String pending = eventsByTimer.get(at);
                String line = event.f1 + ":" + event.f2;
                eventsByTimer.put(at, pending == null ? line : pending + "," + line);
                ctx.timerService().registerProcessingTimeTimer(at);
            }
        }

        @Override
        public void onTimer(long timestamp, OnTimerContext ctx, Collector<String> out)
                throws Exception {
            if (ctx.timeDomain() == TimeDomain.PROCESSING_TIME) {
                if (timestamp < opened + PROCESSING_DELAY_MILLIS) {
                    RESTORED_PROCESSING_TIMERS_FIRED
                            .computeIfAbsent(runId, id -> new AtomicLong())
                            .incrementAndGet();
                }
                String pending = eventsByTimer.get(timestamp);
                eventsByTimer.remove(timestamp);
                if (pending == null) {
                    out.collect("processing|" + ctx.getCurrentKey() + "|no events for a timer");
                    return;
                }
                for (String event : pending.split(",")) {
                    out.collect("processing|" + ctx.getCurrentKey() + "|" + event);
                }
                return;
            }
            long bucket = timestamp / 1000;
            Long registered = registeredAt.get(bucket);
            if (registered != null && registered < opened) {
                RESTORED_EVENT_TIMERS_FIRED
                        .computeIfAbsent(runId, id -> new AtomicLong())
                        .incrementAndGet();
            }
            Long sum = sumByBucket.get(bucket);
            sumByBucket.remove(bucket);
            registeredAt.remove(bucket);
            Long fired = firedBuckets.value();
            long firedBefore = fired == null ? 0 : fired;
            firedBuckets.update(firedBefore + 1);
            out.collect(
                    "event|" + ctx.getCurrentKey() + "|" + bucket + "=" + sum + "|" + firedBefore);
        }
    }

    /**
     * Emits {@code evicting|key|window start=count|sum} of the records the evictor kept: a set that
     * does not depend on the order the records arrived in.
     */
    public static final class SumOfKept
            extends ProcessWindowFunction<Tuple3<Long, Long, Long>, String, Long, TimeWindow> {
        @Override
        public void process(
                Long key,
                Context context,
                Iterable<Tuple3<Long, Long, Long>> kept,
                Collector<String> out) {
            long count = 0;
            long sum = 0;
            for (Tuple3<Long, Long, Long> event : kept) {
                count++;
                sum += event.f2;
            }
            out.collect(
                    "evicting|"
                            + key
                            + "|"
                            + context.window().getStart()
                            + "="
                            + count
                            + "|"
                            + sum);
        }
    }

    /** Emits {@code cogroup|key|first left timestamp=left count|right count|sum of both}. */
    public static final class CountBothSides
            implements CoGroupFunction<Tuple3<Long, Long, Long>, Tuple3<Long, Long, Long>, String> {
        @Override
        public void coGroup(
                Iterable<Tuple3<Long, Long, Long>> lefts,
                Iterable<Tuple3<Long, Long, Long>> rights,
                Collector<String> out) {
            long key = -1;
            long firstTimestamp = Long.MAX_VALUE;
            long leftCount = 0;
            long rightCount = 0;
            long sum = 0;
            for (Tuple3<Long, Long, Long> left : lefts) {
                key = left.f0;
                firstTimestamp = Math.min(firstTimestamp, left.f1);
                leftCount++;
                sum += left.f2;
            }
            for (Tuple3<Long, Long, Long> right : rights) {
                key = right.f0;
                firstTimestamp = Math.min(firstTimestamp, right.f1);
                rightCount++;
                sum += right.f2;
            }
            out.collect(
                    "cogroup|"
                            + key
                            + "|"
                            + firstTimestamp
                            + "="
                            + leftCount
                            + "|"
                            + rightCount
                            + "|"
                            + sum);
        }
    }
}
