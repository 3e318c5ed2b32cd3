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

import io.rhino.flink.spec.RhinoOperatorSpec;
import io.rhino.flink.spec.UnsupportedJobShapeException;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.datastream.KeyedStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.windowing.assigners.WindowAssigner;
import org.apache.flink.streaming.api.windowing.windows.Window;

/**
 * A stream keyed through Rhino's router and gate. Operators created on it are Flink's own; this
 * class pins their parallelism and max parallelism to the Rhino operator's, which the gate and the
 * state backend rely on, and gives them the default uid {@code rhino-keyed-<name>} (set your own
 * with {@code uid(...)} on the returned stream).
 *
 * <p>It feeds exactly one keyed operator: the gate moves the vnode state of that operator alone, so
 * a second {@code process(...)}, {@code window(...)} or {@code keyedStream()} is refused. Key the
 * stream again with another Rhino name for another keyed operator.
 */
public final class RhinoKeyedStream<T, K> {

    private final KeyedStream<T, K> keyedStream;
    private final RhinoOperatorSpec spec;
    private String consumedBy;

    RhinoKeyedStream(KeyedStream<T, K> keyedStream, RhinoOperatorSpec spec) {
        this.keyedStream = keyedStream;
        this.spec = spec;
    }

    public RhinoOperatorSpec spec() {
        return spec;
    }

    /**
     * The underlying Flink keyed stream, for an operator this class does not wrap. Create exactly
     * one keyed operator on it, chained to the gate (no {@code connect(...)}, no {@code
     * disableChaining()}), and pass it through {@link #pin}; the tasks refuse anything else when
     * they start.
     */
    public KeyedStream<T, K> keyedStream() {
        consume("keyedStream()");
        return keyedStream;
    }

    /**
     * Gives a keyed operator the Rhino operator's parallelism and max parallelism, and the uid
     * {@code rhino-keyed-<name>} unless it has one.
     */
    public <R> SingleOutputStreamOperator<R> pin(SingleOutputStreamOperator<R> operator) {
        if (operator.getTransformation().getUid() == null) {
            operator.uid("rhino-keyed-" + spec.name());
        }
        return operator.setParallelism(spec.parallelism()).setMaxParallelism(spec.numKeyGroups());
    }

    public <R> SingleOutputStreamOperator<R> process(KeyedProcessFunction<K, T, R> function) {
        consume("process(...)");
        return pin(keyedStream.process(function)).name(spec.name());
    }

    public <R> SingleOutputStreamOperator<R> process(
            KeyedProcessFunction<K, T, R> function, TypeInformation<R> outputType) {
        consume("process(...)");
        return pin(keyedStream.process(function, outputType)).name(spec.name());
    }

    public <W extends Window> RhinoWindowedStream<T, K, W> window(
            WindowAssigner<? super T, W> assigner) {
        return new RhinoWindowedStream<>(keyedStream.window(assigner), this);
    }

    /** Records that {@code use} creates this stream's keyed operator; refuses a second one. */
    void consume(String use) {
        if (consumedBy != null) {
            throw new UnsupportedJobShapeException(
                    "Rhino keyed stream '"
                            + spec.name()
                            + "' already feeds the keyed operator created by "
                            + consumedBy
                            + ", and "
                            + use
                            + " would add another. One Rhino keyed stream serves exactly one keyed"
                            + " operator: its gate moves the vnode state of that operator alone."
                            + " For another keyed operator, key the stream again with another"
                            + " Rhino name (RhinoStreams.keyBy(stream, key,"
                            + " RhinoKeyedStreamOptions.named(\""
                            + spec.name()
                            + "-2\"))), or do the work in one operator.");
        }
        consumedBy = use;
    }
}
