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

import io.rhino.flink.coordination.RhinoRouterCoordinator;
import io.rhino.flink.spec.RhinoOperatorSpec;
import java.time.Duration;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.runtime.jobgraph.OperatorID;
import org.apache.flink.runtime.operators.coordination.OperatorCoordinator;
import org.apache.flink.runtime.operators.coordination.OperatorEventDispatcher;
import org.apache.flink.streaming.api.operators.AbstractStreamOperatorFactory;
import org.apache.flink.streaming.api.operators.ChainingStrategy;
import org.apache.flink.streaming.api.operators.CoordinatedOperatorFactory;
import org.apache.flink.streaming.api.operators.OneInputStreamOperatorFactory;
import org.apache.flink.streaming.api.operators.StreamOperator;
import org.apache.flink.streaming.api.operators.StreamOperatorParameters;

/** Creates Rhino routers, chained to their upstream, each with its coordinator. */
public final class RhinoRouterOperatorFactory<T, K>
        extends AbstractStreamOperatorFactory<RhinoElement<T>>
        implements OneInputStreamOperatorFactory<T, RhinoElement<T>>,
                CoordinatedOperatorFactory<RhinoElement<T>> {

    private static final long serialVersionUID = 1L;

    private final RhinoOperatorSpec spec;
    private final KeySelector<T, K> keySelector;
    private final int parallelism;
    private final Duration loadReportInterval;

    /**
     * @param parallelism the router's parallelism when the job is built, which the handover
     *     coordinators rely on
     * @param loadReportInterval how often each router reports its per-vnode record counts
     */
    public RhinoRouterOperatorFactory(
            RhinoOperatorSpec spec,
            KeySelector<T, K> keySelector,
            int parallelism,
            Duration loadReportInterval) {
        this.spec = spec;
        this.keySelector = keySelector;
        this.parallelism = parallelism;
        this.loadReportInterval = loadReportInterval;
        setChainingStrategy(ChainingStrategy.ALWAYS);
    }

    @SuppressWarnings("unchecked")
    @Override
    public <O extends StreamOperator<RhinoElement<T>>> O createStreamOperator(
            StreamOperatorParameters<RhinoElement<T>> parameters) {
        OperatorID operatorId = parameters.getStreamConfig().getOperatorID();
        OperatorEventDispatcher dispatcher = parameters.getOperatorEventDispatcher();
        int gateParallelism =
                GateParallelism.of(
                        parameters.getStreamConfig(),
                        parameters.getContainingTask().getConfiguration(),
                        parameters.getContainingTask().getEnvironment());
        RhinoRouterOperator<T, K> router =
                new RhinoRouterOperator<>(
                        parameters,
                        spec,
                        keySelector,
                        gateParallelism,
                        dispatcher.getOperatorEventGateway(operatorId),
                        loadReportInterval);
        dispatcher.registerEventHandler(operatorId, router);
        return (O) router;
    }

    @Override
    public OperatorCoordinator.Provider getCoordinatorProvider(
            String operatorName, OperatorID operatorId) {
        return new RhinoRouterCoordinator.Provider(operatorId, spec);
    }

    @SuppressWarnings("rawtypes")
    @Override
    public Class<? extends StreamOperator> getStreamOperatorClass(ClassLoader classLoader) {
        return RhinoRouterOperator.class;
    }
}
