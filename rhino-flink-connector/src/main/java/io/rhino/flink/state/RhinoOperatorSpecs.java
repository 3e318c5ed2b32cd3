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

import org.apache.flink.runtime.execution.Environment;
import org.apache.flink.streaming.api.graph.StreamConfig;
import org.apache.flink.streaming.api.operators.StreamOperatorFactory;

import io.rhino.flink.routing.RhinoGateOperatorFactory;
import io.rhino.flink.routing.RhinoOperatorSpec;

import java.util.Optional;

/**
 * Tells whether a keyed operator is a Rhino operator: it is when its task starts with a Rhino
 * gate, which is how a Rhino keyed stream is built (gate chained in front of the keyed operator).
 */
final class RhinoOperatorSpecs {

    private RhinoOperatorSpecs() {}

    static Optional<RhinoOperatorSpec> of(Environment env) {
        StreamConfig head = new StreamConfig(env.getTaskConfiguration());
        ClassLoader classLoader = env.getUserCodeClassLoader().asClassLoader();
        Class<?> factoryClass;
        try {
            factoryClass = head.getStreamOperatorFactoryClass(classLoader);
        } catch (RuntimeException e) {
            return Optional.empty(); // not a streaming task head we understand
        }
        if (factoryClass == null || !RhinoGateOperatorFactory.class.isAssignableFrom(factoryClass)) {
            return Optional.empty();
        }
        StreamOperatorFactory<?> factory = head.getStreamOperatorFactory(classLoader);
        return Optional.of(((RhinoGateOperatorFactory<?>) factory).spec());
    }
}
