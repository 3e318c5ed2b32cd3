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

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeHint;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Deterministic event streams: event i has a key, a timestamp increasing with i, and a value, all
 * pure functions of i. Each source split is a contiguous range of i, so every source subtask emits
 * in timestamp order and no event is ever late.
 */
public final class Events {

    /** (key, timestamp, value). */
    public static final TypeInformation<Tuple3<Long, Long, Long>> TYPE =
            TypeInformation.of(new TypeHint<Tuple3<Long, Long, Long>>() {});

    private Events() {}

    /**
     * @param seed different seeds give different key sequences
     * @param count number of events
     * @param millisPerEvent event-time distance between consecutive events
     * @param keys number of distinct keys
     * @param eventsPerSecond source rate, or 0 for unlimited
     */
    public static SingleOutputStreamOperator<Tuple3<Long, Long, Long>> stream(
            StreamExecutionEnvironment env,
            String name,
            long seed,
            long count,
            long millisPerEvent,
            int keys,
            double eventsPerSecond,
            int parallelism) {
        return stream(
                env,
                name,
                seed,
                count,
                millisPerEvent,
                keys,
                eventsPerSecond > 0
                        ? RateLimiterStrategy.perSecond(eventsPerSecond)
                        : RateLimiterStrategy.noOp(),
                parallelism);
    }

    /** As above, with the source rate set by {@code rate}. */
    @SuppressWarnings({"rawtypes", "unchecked"})
    public static SingleOutputStreamOperator<Tuple3<Long, Long, Long>> stream(
            StreamExecutionEnvironment env,
            String name,
            long seed,
            long count,
            long millisPerEvent,
            int keys,
            RateLimiterStrategy rate,
            int parallelism) {
        DataGeneratorSource<Tuple3<Long, Long, Long>> source =
                new DataGeneratorSource<>(
                        index -> event(seed, index, millisPerEvent, keys), count, rate, TYPE);
        return env.fromSource(
                        source,
                        WatermarkStrategy.<Tuple3<Long, Long, Long>>forMonotonousTimestamps()
                                .withTimestampAssigner((event, previous) -> event.f1),
                        name)
                .setParallelism(parallelism);
    }

    static Tuple3<Long, Long, Long> event(long seed, long index, long millisPerEvent, int keys) {
        long mixed = mix(seed * 0x9E3779B97F4A7C15L + index);
        return Tuple3.of(
                Math.floorMod(mixed, (long) keys),
                index * millisPerEvent,
                Math.floorMod(mixed >>> 17, 100L));
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
