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
import org.apache.flink.api.common.functions.AggregateFunction;
import org.apache.flink.api.common.functions.ReduceFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.datastream.WindowedStream;
import org.apache.flink.streaming.api.functions.windowing.ProcessWindowFunction;
import org.apache.flink.streaming.api.functions.windowing.WindowFunction;
import org.apache.flink.streaming.api.windowing.evictors.Evictor;
import org.apache.flink.streaming.api.windowing.triggers.Trigger;
import org.apache.flink.streaming.api.windowing.windows.Window;
import org.apache.flink.util.OutputTag;

/**
 * Flink's {@link WindowedStream} on a Rhino keyed stream: every call goes to Flink's window
 * operator; the resulting operator is pinned to the Rhino operator's parallelism.
 */
public final class RhinoWindowedStream<T, K, W extends Window> {

    private final WindowedStream<T, K, W> windowedStream;
    private final RhinoKeyedStream<T, K> keyedStream;

    RhinoWindowedStream(WindowedStream<T, K, W> windowedStream, RhinoKeyedStream<T, K> keyed) {
        this.windowedStream = windowedStream;
        this.keyedStream = keyed;
    }

    private <R> SingleOutputStreamOperator<R> pin(SingleOutputStreamOperator<R> operator) {
        return keyedStream.pin(operator).name(keyedStream.spec().name());
    }

    /** Called before Flink's window operator is created: it is the stream's one keyed operator. */
    private void consume() {
        keyedStream.consume("window(...)");
    }

    public RhinoWindowedStream<T, K, W> trigger(Trigger<? super T, ? super W> trigger) {
        windowedStream.trigger(trigger);
        return this;
    }

    public RhinoWindowedStream<T, K, W> evictor(Evictor<? super T, ? super W> evictor) {
        windowedStream.evictor(evictor);
        return this;
    }

    public RhinoWindowedStream<T, K, W> allowedLateness(Duration lateness) {
        windowedStream.allowedLateness(lateness);
        return this;
    }

    public RhinoWindowedStream<T, K, W> sideOutputLateData(OutputTag<T> outputTag) {
        windowedStream.sideOutputLateData(outputTag);
        return this;
    }

    public SingleOutputStreamOperator<T> reduce(ReduceFunction<T> function) {
        consume();
        return pin(windowedStream.reduce(function));
    }

    public <R> SingleOutputStreamOperator<R> reduce(
            ReduceFunction<T> reduceFunction, WindowFunction<T, R, K, W> function) {
        consume();
        return pin(windowedStream.reduce(reduceFunction, function));
    }

    public <R> SingleOutputStreamOperator<R> reduce(
            ReduceFunction<T> reduceFunction, ProcessWindowFunction<T, R, K, W> function) {
        consume();
        return pin(windowedStream.reduce(reduceFunction, function));
    }

    public <ACC, R> SingleOutputStreamOperator<R> aggregate(AggregateFunction<T, ACC, R> function) {
        consume();
        return pin(windowedStream.aggregate(function));
    }

    public <ACC, V, R> SingleOutputStreamOperator<R> aggregate(
            AggregateFunction<T, ACC, V> aggregate, WindowFunction<V, R, K, W> function) {
        consume();
        return pin(windowedStream.aggregate(aggregate, function));
    }

    public <ACC, V, R> SingleOutputStreamOperator<R> aggregate(
            AggregateFunction<T, ACC, V> aggregate, ProcessWindowFunction<V, R, K, W> function) {
        consume();
        return pin(windowedStream.aggregate(aggregate, function));
    }

    public <R> SingleOutputStreamOperator<R> apply(WindowFunction<T, R, K, W> function) {
        consume();
        return pin(windowedStream.apply(function));
    }

    public <R> SingleOutputStreamOperator<R> apply(
            WindowFunction<T, R, K, W> function, TypeInformation<R> resultType) {
        consume();
        return pin(windowedStream.apply(function, resultType));
    }

    public <R> SingleOutputStreamOperator<R> process(ProcessWindowFunction<T, R, K, W> function) {
        consume();
        return pin(windowedStream.process(function));
    }

    public <R> SingleOutputStreamOperator<R> process(
            ProcessWindowFunction<T, R, K, W> function, TypeInformation<R> resultType) {
        consume();
        return pin(windowedStream.process(function, resultType));
    }
}
