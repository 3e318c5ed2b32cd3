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

package io.rhino.deployment.job;

import io.rhino.flink.api.RhinoKeyedStreamOptions;
import io.rhino.flink.api.RhinoStreams;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.serialization.SimpleStringEncoder;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.file.sink.FileSink;
import org.apache.flink.core.fs.Path;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.filesystem.rollingpolicies.OnCheckpointRollingPolicy;
import org.apache.flink.util.ParameterTool;

/**
 * A user's job jar: counts per key of {@code --events} generated events and writes every running
 * count with a file sink that commits on checkpoints, so the committed lines are exactly-once
 * across failures. {@code --mode rhino} keys the events through a Rhino keyed stream named {@code
 * --operator} on Rhino's state backend; {@code --mode plain} through Flink's {@code keyBy}, the
 * reference. The source keeps running after the events (generating nothing more that passes), so
 * the job runs until it is cancelled, as a streaming job does.
 *
 * <p>Arguments: {@code --mode rhino|plain --output <dir> [--operator counts] [--events 20000]
 * [--keys 500] [--rate 2000] [--parallelism 3] [--vnodes 12] [--checkpoint-interval 2000]}; every
 * other {@code --rhino.*} argument is passed to the job's configuration.
 */
public final class CountingJob {

    private CountingJob() {}

    public static void main(String[] args) throws Exception {
        ParameterTool params = ParameterTool.fromArgs(args);
        boolean rhino = params.get("mode", "rhino").equals("rhino");
        long events = params.getLong("events", 20_000);
        int keys = params.getInt("keys", 500);
        String operator = params.get("operator", "counts");

        Configuration config = new Configuration();
        params.toMap()
                .forEach(
                        (key, value) -> {
                            if (key.startsWith("rhino.")) {
                                config.setString(key, value);
                            }
                        });
        if (rhino) {
            config.setString("state.backend.type", "io.rhino.flink.state.RhinoStateBackendFactory");
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        env.setParallelism(params.getInt("parallelism", 3));
        env.enableCheckpointing(params.getLong("checkpoint-interval", 2_000));

        DataStream<Long> source =
                env.fromSource(
                                new DataGeneratorSource<>(
                                        index -> index,
                                        Long.MAX_VALUE,
                                        RateLimiterStrategy.perSecond(
                                                params.getDouble("rate", 2_000)),
                                        Types.LONG),
                                WatermarkStrategy.noWatermarks(),
                                "events")
                        .setParallelism(1)
                        .filter(index -> index < events)
                        .setParallelism(1)
                        .name("first-events");
        Events.ByKey byKey = new Events.ByKey(keys);
        DataStream<String> counts =
                rhino
                        ? RhinoStreams.keyBy(
                                        source,
                                        byKey,
                                        RhinoKeyedStreamOptions.builder(operator)
                                                .vnodes(params.getInt("vnodes", 12))
                                                .build())
                                .process(new CountPerKey())
                        : source.keyBy(byKey).process(new CountPerKey());
        counts.sinkTo(
                FileSink.forRowFormat(
                                new Path(params.getRequired("output")),
                                new SimpleStringEncoder<String>())
                        .withRollingPolicy(OnCheckpointRollingPolicy.build())
                        .build());
        env.executeAsync(params.get("name", operator + (rhino ? "-rhino" : "-plain")));
    }
}
