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

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.functions.CoGroupFunction;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.api.java.typeutils.TypeExtractor;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.functions.windowing.WindowFunction;
import org.apache.flink.streaming.api.windowing.assigners.WindowAssigner;
import org.apache.flink.streaming.api.windowing.evictors.Evictor;
import org.apache.flink.streaming.api.windowing.triggers.Trigger;
import org.apache.flink.streaming.api.windowing.windows.Window;
import org.apache.flink.util.Collector;
import org.apache.flink.util.TaggedUnion;

/**
 * Window co-group of two streams on a Rhino keyed stream. Flink's {@code DataStream.coGroup} keys
 * with Flink's static partitioner, so Rhino builds the same thing itself: tag both inputs, union
 * them, key the union through Rhino, window it, and co-group each window.
 */
public final class RhinoCoGroupedStreams<T1, T2> {

    private final DataStream<T1> first;
    private final DataStream<T2> second;
    private final RhinoKeyedStreamOptions options;

    RhinoCoGroupedStreams(
            DataStream<T1> first, DataStream<T2> second, RhinoKeyedStreamOptions options) {
        this.first = first;
        this.second = second;
        this.options = options;
    }

    public <KEY> Where<KEY> where(KeySelector<T1, KEY> firstKey) {
        return new Where<>(firstKey, TypeExtractor.getKeySelectorTypes(firstKey, first.getType()));
    }

    /** The first input's key is set. */
    public final class Where<KEY> {
        private final KeySelector<T1, KEY> firstKey;
        private final TypeInformation<KEY> keyType;

        Where(KeySelector<T1, KEY> firstKey, TypeInformation<KEY> keyType) {
            this.firstKey = firstKey;
            this.keyType = keyType;
        }

        public EqualTo equalTo(KeySelector<T2, KEY> secondKey) {
            return new EqualTo(secondKey);
        }

        /** Both keys are set. */
        public final class EqualTo {
            private final KeySelector<T2, KEY> secondKey;

            EqualTo(KeySelector<T2, KEY> secondKey) {
                this.secondKey = secondKey;
            }

            public <W extends Window> WithWindow<T1, T2, KEY, W> window(
                    WindowAssigner<? super TaggedUnion<T1, T2>, W> assigner) {
                TaggedUnionTypeInfo<T1, T2> unionType =
                        new TaggedUnionTypeInfo<>(first.getType(), second.getType());
                DataStream<TaggedUnion<T1, T2>> union =
                        first.map(new TagFirst<T1, T2>())
                                .returns(unionType)
                                .name(options.name() + " (Rhino tag first)")
                                .uid("rhino-tag-first-" + options.name())
                                .setParallelism(first.getParallelism())
                                .union(
                                        second.map(new TagSecond<T1, T2>())
                                                .returns(unionType)
                                                .name(options.name() + " (Rhino tag second)")
                                                .uid("rhino-tag-second-" + options.name())
                                                .setParallelism(second.getParallelism()));
                RhinoKeyedStream<TaggedUnion<T1, T2>, KEY> keyed =
                        RhinoStreams.keyBy(
                                union, new UnionKey<>(firstKey, secondKey), keyType, options);
                return new WithWindow<>(keyed.window(assigner), first.getType(), second.getType());
            }
        }
    }

    /** A windowed co-group, ready for its function. */
    public static final class WithWindow<T1, T2, KEY, W extends Window> {
        private final RhinoWindowedStream<TaggedUnion<T1, T2>, KEY, W> windowed;
        private final TypeInformation<T1> firstType;
        private final TypeInformation<T2> secondType;

        WithWindow(
                RhinoWindowedStream<TaggedUnion<T1, T2>, KEY, W> windowed,
                TypeInformation<T1> firstType,
                TypeInformation<T2> secondType) {
            this.windowed = windowed;
            this.firstType = firstType;
            this.secondType = secondType;
        }

        TypeInformation<T1> firstType() {
            return firstType;
        }

        TypeInformation<T2> secondType() {
            return secondType;
        }

        public WithWindow<T1, T2, KEY, W> trigger(
                Trigger<? super TaggedUnion<T1, T2>, ? super W> trigger) {
            windowed.trigger(trigger);
            return this;
        }

        public WithWindow<T1, T2, KEY, W> evictor(
                Evictor<? super TaggedUnion<T1, T2>, ? super W> evictor) {
            windowed.evictor(evictor);
            return this;
        }

        public WithWindow<T1, T2, KEY, W> allowedLateness(Duration lateness) {
            windowed.allowedLateness(lateness);
            return this;
        }

        public <R> SingleOutputStreamOperator<R> apply(CoGroupFunction<T1, T2, R> function) {
            return apply(
                    function,
                    TypeExtractor.getCoGroupReturnTypes(
                            function, firstType, secondType, "CoGroup", false));
        }

        public <R> SingleOutputStreamOperator<R> apply(
                CoGroupFunction<T1, T2, R> function, TypeInformation<R> resultType) {
            return windowed.apply(new CoGroupWindow<>(function), resultType);
        }
    }

    private static final class TagFirst<T1, T2> implements MapFunction<T1, TaggedUnion<T1, T2>> {
        private static final long serialVersionUID = 1L;

        @Override
        public TaggedUnion<T1, T2> map(T1 value) {
            return TaggedUnion.one(value);
        }
    }

    private static final class TagSecond<T1, T2> implements MapFunction<T2, TaggedUnion<T1, T2>> {
        private static final long serialVersionUID = 1L;

        @Override
        public TaggedUnion<T1, T2> map(T2 value) {
            return TaggedUnion.two(value);
        }
    }

    private static final class UnionKey<T1, T2, KEY>
            implements KeySelector<TaggedUnion<T1, T2>, KEY> {
        private static final long serialVersionUID = 1L;
        private final KeySelector<T1, KEY> firstKey;
        private final KeySelector<T2, KEY> secondKey;

        UnionKey(KeySelector<T1, KEY> firstKey, KeySelector<T2, KEY> secondKey) {
            this.firstKey = firstKey;
            this.secondKey = secondKey;
        }

        @Override
        public KEY getKey(TaggedUnion<T1, T2> value) throws Exception {
            return value.isOne()
                    ? firstKey.getKey(value.getOne())
                    : secondKey.getKey(value.getTwo());
        }
    }

    private static final class CoGroupWindow<T1, T2, R, KEY, W extends Window>
            implements WindowFunction<TaggedUnion<T1, T2>, R, KEY, W> {
        private static final long serialVersionUID = 1L;
        private final CoGroupFunction<T1, T2, R> function;

        CoGroupWindow(CoGroupFunction<T1, T2, R> function) {
            this.function = function;
        }

        @Override
        public void apply(KEY key, W window, Iterable<TaggedUnion<T1, T2>> values, Collector<R> out)
                throws Exception {
            List<T1> firsts = new ArrayList<>();
            List<T2> seconds = new ArrayList<>();
            for (TaggedUnion<T1, T2> value : values) {
                if (value.isOne()) {
                    firsts.add(value.getOne());
                } else {
                    seconds.add(value.getTwo());
                }
            }
            function.coGroup(firsts, seconds, out);
        }
    }
}
