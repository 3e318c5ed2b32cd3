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

import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/** {@link Events} with Zipf-like keys: key k (1..keys) carries a share of about 1/k. */
public final class SkewedEvents {

    private SkewedEvents() {}

    @SuppressWarnings("rawtypes")
    public static DataStream<Tuple3<Long, Long, Long>> stream(
            StreamExecutionEnvironment env, long count, int keys, RateLimiterStrategy rate) {
        return Events.stream(env, "events", 7, count, 1, keys, rate, 1)
                .map(new Zipf(keys))
                .setParallelism(1);
    }

    private static final class Zipf
            implements MapFunction<Tuple3<Long, Long, Long>, Tuple3<Long, Long, Long>> {
        private final int keys;

        Zipf(int keys) {
            this.keys = keys;
        }

        @Override
        public Tuple3<Long, Long, Long> map(Tuple3<Long, Long, Long> event) {
            long key = (long) Math.pow(keys, (double) event.f0 / keys);
            return Tuple3.of(key, event.f1, event.f2);
        }
    }
}
