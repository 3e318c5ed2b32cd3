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

import io.rhino.flink.api.RhinoKeyedStreamOptions;
import io.rhino.flink.api.RhinoStreams;
import io.rhino.flink.testjobs.QuietPhase;
import io.rhino.flink.testjobs.ReleasableRate;
import io.rhino.flink.testjobs.ResultSink;
import io.rhino.flink.testjobs.ShapeFunctions;
import io.rhino.flink.testjobs.SkewedEvents;
import io.rhino.flink.testjobs.TestPipelines.Mode;
import java.util.List;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;

/**
 * Counts per key of Zipf-skewed events, on Rhino at a rate the test releases, or on plain Flink as
 * the reference output: the job of the reconfiguration tests.
 */
final class SkewedCountsJob {

    static final int KEYS = 5_000;
    static final int PARALLELISM = 4;

    private SkewedCountsJob() {}

    /** Adds the Rhino job to {@code env}; output under {@code runId}. */
    static void rhino(
            StreamExecutionEnvironment env,
            String runId,
            long events,
            RhinoKeyedStreamOptions options) {
        env.setParallelism(PARALLELISM);
        RhinoStreams.keyBy(
                        SkewedEvents.stream(env, events, KEYS, new ReleasableRate(runId, 2_000)),
                        new ShapeFunctions.ByKey(),
                        options)
                .process(new ShapeFunctions.CountPerKey())
                .sinkTo(new ResultSink(runId));
    }

    /** The output of the same counts on plain Flink, at full speed. */
    static List<String> plainFlink(String runId, long events) throws Exception {
        return plainFlink(runId, events, PARALLELISM, KEYS, new ShapeFunctions.CountPerKey());
    }

    /** The output of {@code function} over the same skewed events on plain Flink, at full speed. */
    static List<String> plainFlink(
            String runId,
            long events,
            int parallelism,
            int keys,
            KeyedProcessFunction<Long, Tuple3<Long, Long, Long>, String> function)
            throws Exception {
        return plainFlink(runId, events, parallelism, keys, function, QuietPhase.NONE);
    }

    /**
     * The output of {@code function} over the same skewed events, shaped by {@code quiet}, on plain
     * Flink at full speed.
     */
    static List<String> plainFlink(
            String runId,
            long events,
            int parallelism,
            int keys,
            KeyedProcessFunction<Long, Tuple3<Long, Long, Long>, String> function,
            QuietPhase quiet)
            throws Exception {
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.getExecutionEnvironment(
                        RhinoClusters.jobConfig(Mode.PLAIN));
        env.setParallelism(parallelism);
        String reference = runId + "-plain";
        SkewedEvents.stream(env, events, keys, RateLimiterStrategy.noOp())
                .map(quiet)
                .setParallelism(1)
                .keyBy(new ShapeFunctions.ByKey())
                .process(function)
                .sinkTo(new ResultSink(reference));
        env.execute("skewed-counts-reference");
        return ResultSink.take(reference);
    }
}
