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

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;

/** The test input's events, as a real source of two subtasks emits them. */
class EventsTest {

    @Test
    void twoSourceSubtasksEmitTheSameEventsInterleavedInEventTime() throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        long count = 1_000;
        Map<Integer, List<Long>> timestampsBySubtask = new HashMap<>();
        List<Long> keysAndValues = new ArrayList<>();
        try (CloseableIterator<Tuple2<Integer, Tuple3<Long, Long, Long>>> events =
                Events.stream(env, "events", 3, count, 5, 13, 0, 2)
                        .map(new WithSubtask())
                        .returns(Types.TUPLE(Types.INT, Events.TYPE))
                        .setParallelism(2)
                        .executeAndCollect()) {
            events.forEachRemaining(
                    event -> {
                        timestampsBySubtask
                                .computeIfAbsent(event.f0, s -> new ArrayList<>())
                                .add(event.f1.f1);
                        keysAndValues.add(
                                event.f1.f1 / 5 * 1_000 + event.f1.f0 * 100 + event.f1.f2);
                    });
        }
        // the same events as event(i) for every i, each once
        assertThat(keysAndValues)
                .containsExactlyInAnyOrderElementsOf(
                        LongStream.range(0, count)
                                .mapToObj(i -> Events.event(3, i, 5, 13))
                                .map(e -> e.f1 / 5 * 1_000 + e.f0 * 100 + e.f2)
                                .toList());
        assertThat(timestampsBySubtask).hasSize(2);
        for (List<Long> timestamps : timestampsBySubtask.values()) {
            assertThat(timestamps).hasSize(500).isSorted();
            // each subtask walks through all of event time, not half of it
            assertThat(timestamps.get(0)).isLessThanOrEqualTo(5);
            assertThat(timestamps.get(timestamps.size() - 1)).isGreaterThanOrEqualTo(990 * 5);
        }
    }

    private static final class WithSubtask
            extends RichMapFunction<
                    Tuple3<Long, Long, Long>, Tuple2<Integer, Tuple3<Long, Long, Long>>> {
        @Override
        public Tuple2<Integer, Tuple3<Long, Long, Long>> map(Tuple3<Long, Long, Long> event) {
            return Tuple2.of(getRuntimeContext().getTaskInfo().getIndexOfThisSubtask(), event);
        }
    }
}
