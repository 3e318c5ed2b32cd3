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

import java.util.HashMap;
import java.util.Map;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.functions.co.KeyedBroadcastProcessFunction;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.util.Collector;

/** Small keyed functions and operators for the job shapes Rhino supports or refuses. */
public final class ShapeFunctions {

    private ShapeFunctions() {}

    /** The event key. */
    public static final class ByKey implements KeySelector<Tuple3<Long, Long, Long>, Long> {
        @Override
        public Long getKey(Tuple3<Long, Long, Long> event) {
            return event.f0;
        }
    }

    /** Counts events per key in value state and emits {@code key=count} for each. */
    public static class CountPerKey
            extends KeyedProcessFunction<Long, Tuple3<Long, Long, Long>, String> {
        private transient ValueState<Long> count;

        @Override
        public void open(OpenContext openContext) {
            count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Types.LONG));
        }

        @Override
        public void processElement(
                Tuple3<Long, Long, Long> event, Context ctx, Collector<String> out)
                throws Exception {
            Long before = count.value();
            long now = (before == null ? 0 : before) + 1;
            count.update(now);
            out.collect(ctx.getCurrentKey() + "=" + now);
        }
    }

    /**
     * {@link CountPerKey} that also appends a padded entry per event to a list it never reads:
     * state that grows with the input (about 100 bytes per event), for tests that measure bytes
     * moved.
     */
    public static final class CountPerKeyWithHistory extends CountPerKey {
        private transient org.apache.flink.api.common.state.ListState<String> history;

        @Override
        public void open(OpenContext openContext) {
            super.open(openContext);
            history =
                    getRuntimeContext()
                            .getListState(
                                    new org.apache.flink.api.common.state.ListStateDescriptor<>(
                                            "history", Types.STRING));
        }

        @Override
        public void processElement(
                Tuple3<Long, Long, Long> event, Context ctx, Collector<String> out)
                throws Exception {
            super.processElement(event, ctx, out);
            java.util.SplittableRandom random = new java.util.SplittableRandom(event.f1 ^ event.f2);
            StringBuilder entry = new StringBuilder(100);
            for (int i = 0; i < 6; i++) {
                entry.append(Long.toHexString(random.nextLong()));
            }
            history.add(entry.toString());
        }
    }

    /** {@link CountPerKey} with Flink's asynchronous state API (State V2). */
    public static final class AsyncCountPerKey
            extends KeyedProcessFunction<Long, Tuple3<Long, Long, Long>, String> {
        private transient org.apache.flink.api.common.state.v2.ValueState<Long> count;

        @Override
        public void open(OpenContext openContext) {
            count =
                    getRuntimeContext()
                            .getState(
                                    new org.apache.flink.api.common.state.v2.ValueStateDescriptor<>(
                                            "count", Types.LONG));
        }

        @Override
        public void processElement(
                Tuple3<Long, Long, Long> event, Context ctx, Collector<String> out) {
            Long key = ctx.getCurrentKey();
            count.asyncValue()
                    .thenCompose(
                            before -> {
                                long now = (before == null ? 0 : before) + 1;
                                out.collect(key + "=" + now);
                                return count.asyncUpdate(now);
                            });
        }
    }

    /** Counts events per key, ignoring the broadcast side. */
    public static final class CountWithRules
            extends KeyedBroadcastProcessFunction<Long, Tuple3<Long, Long, Long>, Long, String> {
        private transient ValueState<Long> count;

        @Override
        public void open(OpenContext openContext) {
            count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Types.LONG));
        }

        @Override
        public void processElement(
                Tuple3<Long, Long, Long> event, ReadOnlyContext ctx, Collector<String> out)
                throws Exception {
            Long before = count.value();
            count.update((before == null ? 0 : before) + 1);
        }

        @Override
        public void processBroadcastElement(Long rule, Context ctx, Collector<String> out) {}
    }

    /**
     * A bundle operator: counts events per key in memory and adds the bundle to keyed state only
     * before a checkpoint barrier, as Flink's mini-batch operators do.
     */
    public static final class BundlingCounter extends AbstractStreamOperator<String>
            implements OneInputStreamOperator<Tuple3<Long, Long, Long>, String> {
        private transient Map<Long, Long> bundle;
        private transient ValueState<Long> count;

        @Override
        public void open() throws Exception {
            super.open();
            bundle = new HashMap<>();
            count = getKeyedStateStore().getState(new ValueStateDescriptor<>("count", Types.LONG));
        }

        @Override
        public void processElement(StreamRecord<Tuple3<Long, Long, Long>> element) {
            bundle.merge(element.getValue().f0, 1L, Long::sum);
        }

        @Override
        public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
            for (Map.Entry<Long, Long> entry : bundle.entrySet()) {
                setCurrentKey(entry.getKey());
                Long before = count.value();
                count.update((before == null ? 0 : before) + entry.getValue());
            }
            bundle.clear();
        }
    }
}
