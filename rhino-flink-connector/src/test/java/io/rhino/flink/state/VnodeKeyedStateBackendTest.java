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

package io.rhino.flink.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.rhino.flink.spec.RhinoOperatorSpec;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.apache.flink.api.common.functions.AggregateFunction;
import org.apache.flink.api.common.state.AggregatingStateDescriptor;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.ReducingStateDescriptor;
import org.apache.flink.api.common.state.StateTtlConfig;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.runtime.state.internal.InternalAggregatingState;
import org.apache.flink.runtime.state.internal.InternalListState;
import org.apache.flink.runtime.state.internal.InternalReducingState;
import org.apache.flink.runtime.state.ttl.TtlTimeProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The vnode backend behaves like one keyed backend across its vnodes: namespaces and merging (what
 * session windows use), TTL, and key iteration spanning every owned vnode.
 */
class VnodeKeyedStateBackendTest {

    private static final RhinoOperatorSpec SPEC = new RhinoOperatorSpec("op", 256, 16, 1, 1);
    private static final List<Long> KEYS = LongStream.range(0, 500).boxed().toList();

    @TempDir Path tmp;
    private final AtomicLong now = new AtomicLong();
    private VnodeBackendHarness harness;

    private VnodeKeyedStateBackend<Long> backend() throws Exception {
        TtlTimeProvider time = now::get;
        harness = new VnodeBackendHarness(SPEC, tmp, time);
        VnodeKeyedStateBackend<Long> backend = harness.create(0, List.of());
        assertThat(backend.ownedVnodes()).hasSize(16);
        return backend;
    }

    @AfterEach
    void tearDown() throws Exception {
        if (harness != null) {
            harness.close();
        }
    }

    @Test
    void namespacesMergeWithinEachKeysVnode() throws Exception {
        VnodeKeyedStateBackend<Long> backend = backend();
        @SuppressWarnings("unchecked")
        InternalListState<Long, String, Long> lists =
                (InternalListState<Long, String, Long>)
                        backend.getOrCreateKeyedState(
                                StringSerializer.INSTANCE,
                                new ListStateDescriptor<>("lists", Types.LONG));
        @SuppressWarnings("unchecked")
        InternalReducingState<Long, String, Long> sums =
                (InternalReducingState<Long, String, Long>)
                        backend.getOrCreateKeyedState(
                                StringSerializer.INSTANCE,
                                new ReducingStateDescriptor<>("sums", Long::sum, Types.LONG));
        @SuppressWarnings("unchecked")
        InternalAggregatingState<Long, String, Long, Tuple2<Long, Long>, Double> averages =
                (InternalAggregatingState<Long, String, Long, Tuple2<Long, Long>, Double>)
                        backend.getOrCreateKeyedState(
                                StringSerializer.INSTANCE,
                                new AggregatingStateDescriptor<>(
                                        "averages",
                                        new Average(),
                                        Types.TUPLE(Types.LONG, Types.LONG)));

        for (long key : KEYS) {
            backend.setCurrentKey(key);
            for (String namespace : List.of("a", "b", "c")) {
                lists.setCurrentNamespace(namespace);
                sums.setCurrentNamespace(namespace);
                averages.setCurrentNamespace(namespace);
                long value = key + namespace.charAt(0);
                lists.add(value);
                sums.add(value);
                averages.add(value);
            }
        }
        for (long key : KEYS) {
            backend.setCurrentKey(key);
            lists.mergeNamespaces("a", List.of("b", "c"));
            sums.mergeNamespaces("a", List.of("b", "c"));
            averages.mergeNamespaces("a", List.of("b", "c"));
        }
        for (long key : KEYS) {
            backend.setCurrentKey(key);
            lists.setCurrentNamespace("a");
            sums.setCurrentNamespace("a");
            averages.setCurrentNamespace("a");
            List<Long> merged = new ArrayList<>();
            lists.get().forEach(merged::add);
            assertThat(merged).containsExactlyInAnyOrder(key + 'a', key + 'b', key + 'c');
            assertThat(sums.get()).isEqualTo(3 * key + 'a' + 'b' + 'c');
            assertThat(averages.get()).isEqualTo((3 * key + 'a' + 'b' + 'c') / 3.0);
            sums.setCurrentNamespace("b");
            assertThat(sums.get()).as("merged source namespace is cleared").isNull();
        }
        try (Stream<Tuple2<Long, String>> keysAndNamespaces =
                backend.getKeysAndNamespaces("sums")) {
            assertThat(keysAndNamespaces.collect(Collectors.toSet()))
                    .isEqualTo(
                            KEYS.stream().map(k -> Tuple2.of(k, "a")).collect(Collectors.toSet()));
        }
    }

    @Test
    void ttlExpiresStateInEveryVnode() throws Exception {
        VnodeKeyedStateBackend<Long> backend = backend();
        ValueStateDescriptor<Long> descriptor = new ValueStateDescriptor<>("ttl", Types.LONG);
        descriptor.enableTimeToLive(
                StateTtlConfig.newBuilder(Duration.ofMillis(100))
                        .setStateVisibility(StateTtlConfig.StateVisibility.NeverReturnExpired)
                        .build());
        ValueState<Long> state =
                backend.getPartitionedState(
                        org.apache.flink.runtime.state.VoidNamespace.INSTANCE,
                        org.apache.flink.runtime.state.VoidNamespaceSerializer.INSTANCE,
                        descriptor);
        now.set(1_000);
        for (long key : KEYS) {
            backend.setCurrentKey(key);
            state.update(key);
        }
        now.set(1_050);
        for (long key : KEYS) {
            backend.setCurrentKey(key);
            assertThat(state.value()).isEqualTo(key);
        }
        now.set(1_200);
        for (long key : KEYS) {
            backend.setCurrentKey(key);
            assertThat(state.value()).as("expired state of key %s", key).isNull();
        }
    }

    @Test
    void applyToAllKeysVisitsEveryVnode() throws Exception {
        VnodeKeyedStateBackend<Long> backend = backend();
        ValueStateDescriptor<Long> descriptor = new ValueStateDescriptor<>("counts", Types.LONG);
        ValueState<Long> state =
                backend.getPartitionedState(
                        org.apache.flink.runtime.state.VoidNamespace.INSTANCE,
                        org.apache.flink.runtime.state.VoidNamespaceSerializer.INSTANCE,
                        descriptor);
        for (long key : KEYS) {
            backend.setCurrentKey(key);
            state.update(key);
        }
        Map<Long, Long> visited = new HashMap<>();
        backend.applyToAllKeys(
                org.apache.flink.runtime.state.VoidNamespace.INSTANCE,
                org.apache.flink.runtime.state.VoidNamespaceSerializer.INSTANCE,
                descriptor,
                (key, value) -> {
                    visited.put(key, value.value());
                    value.update(value.value() * 2);
                });
        assertThat(visited).hasSize(KEYS.size());
        assertThat(visited).allSatisfy((key, value) -> assertThat(value).isEqualTo(key));
        Set<Integer> vnodes =
                KEYS.stream().map(k -> SPEC.layout().vnodeOfKey(k)).collect(Collectors.toSet());
        assertThat(vnodes).as("the keys span every vnode").hasSize(16);
        for (long key : KEYS) {
            backend.setCurrentKey(key);
            assertThat(state.value()).isEqualTo(2 * key);
        }
    }

    private static final class Average
            implements AggregateFunction<Long, Tuple2<Long, Long>, Double> {
        @Override
        public Tuple2<Long, Long> createAccumulator() {
            return Tuple2.of(0L, 0L);
        }

        @Override
        public Tuple2<Long, Long> add(Long value, Tuple2<Long, Long> acc) {
            return Tuple2.of(acc.f0 + value, acc.f1 + 1);
        }

        @Override
        public Double getResult(Tuple2<Long, Long> acc) {
            return acc.f0 / (double) acc.f1;
        }

        @Override
        public Tuple2<Long, Long> merge(Tuple2<Long, Long> a, Tuple2<Long, Long> b) {
            return Tuple2.of(a.f0 + b.f0, a.f1 + b.f1);
        }
    }
}
