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

import io.rhino.flink.api.rest.RestServing;
import io.rhino.flink.config.RhinoOptions;
import io.rhino.flink.config.RhinoRuntimeSettings;
import io.rhino.flink.routing.ChannelPartitioner;
import io.rhino.flink.routing.RhinoElement;
import io.rhino.flink.routing.RhinoElementTypeInfo;
import io.rhino.flink.routing.RhinoGateOperatorFactory;
import io.rhino.flink.routing.RhinoRouterOperatorFactory;
import io.rhino.flink.spec.RhinoOperatorSpec;
import java.util.Optional;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.api.java.typeutils.TypeExtractor;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamUtils;
import org.apache.flink.streaming.api.datastream.KeyedStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.transformations.PartitionTransformation;

/**
 * Entry point of Rhino's DataStream API: {@code RhinoStreams.keyBy(stream, key, options)} in place
 * of {@code stream.keyBy(key)}, then Flink's own {@code process(...)} or {@code window(...)}.
 *
 * <p>Under it: a router chained to the upstream operator picks each record's subtask from the
 * routing table, Rhino's channel partitioner sends it there, and a gate chained in front of the
 * keyed operator hands it on; the gate's output is reinterpreted as a keyed stream, so the keyed
 * operator is Flink's own, unchanged.
 *
 * <p>Router and gate get the uids {@code rhino-router-<name>} and {@code rhino-gate-<name>} (see
 * {@link RhinoKeyedStreamOptions.Builder#routerUid}), and shapes of the job that a handover cannot
 * serve are refused while it is built ({@code RhinoBuildCheck}) or when its tasks start.
 */
public final class RhinoStreams {

    private RhinoStreams() {}

    /** Keys {@code stream} by {@code keySelector} on a Rhino keyed stream. */
    public static <T, K> RhinoKeyedStream<T, K> keyBy(
            DataStream<T> stream, KeySelector<T, K> keySelector, RhinoKeyedStreamOptions options) {
        return keyBy(
                stream,
                keySelector,
                TypeExtractor.getKeySelectorTypes(keySelector, stream.getType()),
                options);
    }

    /** As {@link #keyBy(DataStream, KeySelector, RhinoKeyedStreamOptions)}, with the key type. */
    public static <T, K> RhinoKeyedStream<T, K> keyBy(
            DataStream<T> stream,
            KeySelector<T, K> keySelector,
            TypeInformation<K> keyType,
            RhinoKeyedStreamOptions options) {
        ReadableConfig config = stream.getExecutionEnvironment().getConfiguration();
        RhinoBuildCheck.check(stream, options);
        int parallelism =
                options.parallelism().orElse(stream.getExecutionEnvironment().getParallelism());
        int keyGroups = options.keyGroups().orElse(config.get(RhinoOptions.KEY_GROUPS));
        Optional<Integer> chosenVnodes =
                options.vnodes().or(() -> config.getOptional(RhinoOptions.VNODES));
        int vnodes =
                chosenVnodes.orElse(
                        Math.min(keyGroups, RhinoOptions.DEFAULT_VNODES_PER_SUBTASK * parallelism));
        RhinoOperatorSpec spec =
                new RhinoOperatorSpec(
                        options.name(),
                        keyGroups,
                        vnodes,
                        parallelism,
                        options.activeParallelism().orElse(parallelism),
                        chosenVnodes.isPresent());

        TypeInformation<T> type = stream.getType();
        int routerParallelism = stream.getParallelism();
        RhinoRuntimeSettings settings =
                RhinoRuntimeSettings.from(
                        config,
                        options.handoverTimeout()
                                .orElse(config.get(RhinoOptions.HANDOVER_TIMEOUT)));
        SingleOutputStreamOperator<RhinoElement<T>> routed =
                stream.transform(
                                spec.name() + RhinoBuildCheck.ROUTER_SUFFIX,
                                new RhinoElementTypeInfo<>(type),
                                new RhinoRouterOperatorFactory<>(
                                        spec,
                                        keySelector,
                                        routerParallelism,
                                        settings.loadReportInterval()))
                        .uid(options.routerUid())
                        .setParallelism(routerParallelism);
        SingleOutputStreamOperator<T> gated =
                new DataStream<>(
                                routed.getExecutionEnvironment(),
                                new PartitionTransformation<>(
                                        routed.getTransformation(),
                                        new ChannelPartitioner<>(keySelector, spec.layout())))
                        .transform(
                                spec.name() + " (Rhino gate)",
                                type,
                                new RhinoGateOperatorFactory<T>(
                                        spec,
                                        keySelector,
                                        options.stateTransfer(),
                                        routerParallelism,
                                        settings,
                                        new RestServing()))
                        .uid(options.gateUid())
                        .setParallelism(spec.parallelism())
                        .setMaxParallelism(spec.numKeyGroups());
        KeyedStream<T, K> keyed =
                DataStreamUtils.reinterpretAsKeyedStream(gated, keySelector, keyType);
        return new RhinoKeyedStream<>(keyed, spec);
    }

    /** Starts a window co-group of two streams on a Rhino keyed stream. */
    public static <T1, T2> RhinoCoGroupedStreams<T1, T2> coGroup(
            DataStream<T1> first, DataStream<T2> second, RhinoKeyedStreamOptions options) {
        return new RhinoCoGroupedStreams<>(first, second, options);
    }

    /** Starts a window join of two streams on a Rhino keyed stream. */
    public static <T1, T2> RhinoJoinedStreams<T1, T2> join(
            DataStream<T1> first, DataStream<T2> second, RhinoKeyedStreamOptions options) {
        return new RhinoJoinedStreams<>(first, second, options);
    }
}
