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

package io.rhino.flink.routing;

import org.apache.flink.streaming.api.operators.AbstractStreamOperatorFactory;
import org.apache.flink.streaming.api.operators.ChainingStrategy;
import org.apache.flink.streaming.api.operators.OneInputStreamOperatorFactory;
import org.apache.flink.streaming.api.operators.StreamOperator;
import org.apache.flink.streaming.api.operators.StreamOperatorParameters;

/** Creates {@link RhinoGateOperator}s, always chained in front of the user's keyed operator. */
public final class RhinoGateOperatorFactory<T> extends AbstractStreamOperatorFactory<T>
        implements OneInputStreamOperatorFactory<RhinoElement<T>, T> {

    private static final long serialVersionUID = 1L;

    private final RhinoOperatorSpec spec;

    public RhinoGateOperatorFactory(RhinoOperatorSpec spec) {
        this.spec = spec;
        setChainingStrategy(ChainingStrategy.ALWAYS);
    }

    public RhinoOperatorSpec spec() {
        return spec;
    }

    @SuppressWarnings("unchecked")
    @Override
    public <O extends StreamOperator<T>> O createStreamOperator(
            StreamOperatorParameters<T> parameters) {
        return (O) new RhinoGateOperator<>(spec, parameters);
    }

    @SuppressWarnings("rawtypes")
    @Override
    public Class<? extends StreamOperator> getStreamOperatorClass(ClassLoader classLoader) {
        return RhinoGateOperator.class;
    }
}
