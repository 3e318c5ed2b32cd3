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

package io.rhino.benchmarks.nexmark.queries;

import io.rhino.flink.api.RhinoKeyedStreamOptions;
import java.io.Serializable;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;

/**
 * How a query keys its streams: the variant, the parallelism of the keyed operators, for Rhino the
 * vnodes of each keyed operator ({@code 0}: the job configuration's {@code rhino.vnodes}) and the
 * active parallelism: Rhino deploys {@code parallelism} subtasks of which the first {@code
 * activeParallelism} own vnodes at start, the others stand by until vnodes move to them (plain
 * Flink ignores it: its keyed operators run at {@code parallelism}).
 */
public record Keying(Variant variant, int parallelism, int vnodes, int activeParallelism)
        implements Serializable {

    public Keying {
        if (parallelism < 1 || vnodes < 0) {
            throw new IllegalArgumentException("parallelism >= 1 and vnodes >= 0 needed");
        }
        if (activeParallelism < 1 || activeParallelism > parallelism) {
            throw new IllegalArgumentException(
                    "active parallelism must be in [1, parallelism]: " + activeParallelism);
        }
    }

    /** Every deployed subtask active. */
    public Keying(Variant variant, int parallelism, int vnodes) {
        this(variant, parallelism, vnodes, parallelism);
    }

    public boolean rhino() {
        return variant == Variant.RHINO;
    }

    /** Options of the Rhino keyed operator named {@code name}. */
    RhinoKeyedStreamOptions options(String name) {
        RhinoKeyedStreamOptions.Builder builder =
                RhinoKeyedStreamOptions.builder(name)
                        .parallelism(parallelism)
                        .activeParallelism(activeParallelism);
        if (vnodes > 0) {
            builder.vnodes(vnodes);
        }
        return builder.build();
    }

    /** Names a plain keyed operator and gives it the parallelism (Rhino's are set by options). */
    <T> SingleOutputStreamOperator<T> plain(SingleOutputStreamOperator<T> operator, String name) {
        return operator.name(name).uid(name).setParallelism(parallelism);
    }

    /** Names a Rhino keyed operator (its parallelism comes from its options). */
    static <T> SingleOutputStreamOperator<T> named(
            SingleOutputStreamOperator<T> operator, String name) {
        return operator.name(name).uid(name);
    }
}
