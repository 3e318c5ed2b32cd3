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

import org.apache.flink.api.common.functions.CoGroupFunction;
import org.apache.flink.api.common.functions.JoinFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.api.java.typeutils.TypeExtractor;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.windowing.assigners.WindowAssigner;
import org.apache.flink.streaming.api.windowing.windows.Window;
import org.apache.flink.util.Collector;
import org.apache.flink.util.TaggedUnion;

/**
 * Window join of two streams on a Rhino keyed stream: a {@link RhinoCoGroupedStreams} whose
 * co-group function pairs every element of one side with every element of the other, as Flink's
 * {@code JoinedStreams} does.
 */
public final class RhinoJoinedStreams<T1, T2> {

    private final RhinoCoGroupedStreams<T1, T2> coGrouped;

    RhinoJoinedStreams(
            DataStream<T1> first, DataStream<T2> second, RhinoKeyedStreamOptions options) {
        this.coGrouped = new RhinoCoGroupedStreams<>(first, second, options);
    }

    public <KEY> Where<KEY> where(KeySelector<T1, KEY> firstKey) {
        return new Where<>(coGrouped.where(firstKey));
    }

    /** The first input's key is set. */
    public final class Where<KEY> {
        private final RhinoCoGroupedStreams<T1, T2>.Where<KEY> where;

        Where(RhinoCoGroupedStreams<T1, T2>.Where<KEY> where) {
            this.where = where;
        }

        public EqualTo equalTo(KeySelector<T2, KEY> secondKey) {
            return new EqualTo(where.equalTo(secondKey));
        }

        /** Both keys are set. */
        public final class EqualTo {
            private final RhinoCoGroupedStreams<T1, T2>.Where<KEY>.EqualTo equalTo;

            EqualTo(RhinoCoGroupedStreams<T1, T2>.Where<KEY>.EqualTo equalTo) {
                this.equalTo = equalTo;
            }

            public <W extends Window> WithWindow<T1, T2, KEY, W> window(
                    WindowAssigner<? super TaggedUnion<T1, T2>, W> assigner) {
                return new WithWindow<>(equalTo.window(assigner));
            }
        }
    }

    /** A windowed join, ready for its function. */
    public static final class WithWindow<T1, T2, KEY, W extends Window> {
        private final RhinoCoGroupedStreams.WithWindow<T1, T2, KEY, W> coGroupWindow;

        WithWindow(RhinoCoGroupedStreams.WithWindow<T1, T2, KEY, W> coGroupWindow) {
            this.coGroupWindow = coGroupWindow;
        }

        public <R> SingleOutputStreamOperator<R> apply(JoinFunction<T1, T2, R> function) {
            return apply(
                    function,
                    TypeExtractor.getJoinReturnTypes(
                            function,
                            coGroupWindow.firstType(),
                            coGroupWindow.secondType(),
                            "Join",
                            false));
        }

        public <R> SingleOutputStreamOperator<R> apply(
                JoinFunction<T1, T2, R> function, TypeInformation<R> resultType) {
            return coGroupWindow.apply(new JoinAsCoGroup<>(function), resultType);
        }
    }

    private static final class JoinAsCoGroup<T1, T2, R> implements CoGroupFunction<T1, T2, R> {
        private static final long serialVersionUID = 1L;
        private final JoinFunction<T1, T2, R> function;

        JoinAsCoGroup(JoinFunction<T1, T2, R> function) {
            this.function = function;
        }

        @Override
        public void coGroup(Iterable<T1> firsts, Iterable<T2> seconds, Collector<R> out)
                throws Exception {
            for (T1 left : firsts) {
                for (T2 right : seconds) {
                    out.collect(function.join(left, right));
                }
            }
        }
    }
}
