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

import io.rhino.flink.routing.RhinoOperatorSpec;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.datastream.KeyedStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.windowing.assigners.WindowAssigner;
import org.apache.flink.streaming.api.windowing.windows.Window;

/**
 * A stream keyed through Rhino's router and gate. Operators created on it are Flink's own; this
 * class only pins their parallelism and max parallelism to the Rhino operator's, which the gate and
 * the state backend rely on.
 */
public final class RhinoKeyedStream<T, K> {

    private final KeyedStream<T, K> keyedStream;
    private final RhinoOperatorSpec spec;

    RhinoKeyedStream(KeyedStream<T, K> keyedStream, RhinoOperatorSpec spec) {
        this.keyedStream = keyedStream;
        this.spec = spec;
    }

    public RhinoOperatorSpec spec() {
        return spec;
    }

    /**
     * The underlying Flink keyed stream, for operators this class does not wrap. Pass every
     * operator created on it through {@link #pin}.
     */
    public KeyedStream<T, K> keyedStream() {
        return keyedStream;
    }

    /** Gives a keyed operator the Rhino operator's parallelism and max parallelism. */
    public <R> SingleOutputStreamOperator<R> pin(SingleOutputStreamOperator<R> operator) {
        return operator.setParallelism(spec.parallelism()).setMaxParallelism(spec.numKeyGroups());
    }

    public <R> SingleOutputStreamOperator<R> process(KeyedProcessFunction<K, T, R> function) {
        return pin(keyedStream.process(function)).name(spec.name());
    }

    public <R> SingleOutputStreamOperator<R> process(
            KeyedProcessFunction<K, T, R> function, TypeInformation<R> outputType) {
        return pin(keyedStream.process(function, outputType)).name(spec.name());
    }

    public <W extends Window> RhinoWindowedStream<T, K, W> window(
            WindowAssigner<? super T, W> assigner) {
        return new RhinoWindowedStream<>(keyedStream.window(assigner), this);
    }
}
