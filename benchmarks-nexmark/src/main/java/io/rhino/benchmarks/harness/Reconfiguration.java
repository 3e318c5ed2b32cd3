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

package io.rhino.benchmarks.harness;

import java.util.Map;

/**
 * A reconfiguration a scenario asks for.
 *
 * @param kind what to do, e.g. {@link #FAILURE}, {@link #SCALE_OUT}, {@link #REBALANCE}
 * @param parameters details of the kind, e.g. which task manager fails or the new parallelism
 */
public record Reconfiguration(String kind, Map<String, String> parameters) {

    /** Recover from the loss of a worker (paper §5.4.2). */
    public static final String FAILURE = "failure";

    /** Add instances (paper §5.4.4.1). */
    public static final String SCALE_OUT = "scale-out";

    /** Move virtual nodes between instances (paper §5.4.4.2). */
    public static final String REBALANCE = "rebalance";

    public Reconfiguration {
        parameters = Map.copyOf(parameters);
    }

    public static Reconfiguration of(String kind) {
        return new Reconfiguration(kind, Map.of());
    }
}
