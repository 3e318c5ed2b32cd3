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

import io.rhino.flink.config.RhinoRuntimeSettings;
import io.rhino.flink.coordination.OperatorServing;
import io.rhino.flink.coordination.RhinoGateCoordinator;
import io.rhino.flink.handover.StateTransfer;
import io.rhino.flink.spec.RhinoOperatorSpec;
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

/**
 * Creates Rhino gates, always chained in front of the user's keyed operator, and the gate
 * coordinator that hosts the operator's handover manager.
 */
public final class RhinoGateOperatorFactory<T> extends AbstractStreamOperatorFactory<T>
        implements OneInputStreamOperatorFactory<RhinoElement<T>, T>,
                CoordinatedOperatorFactory<T> {

    private static final long serialVersionUID = 1L;

    private final RhinoOperatorSpec spec;
    private final KeySelector<T, ?> keySelector;
    private final StateTransfer stateTransfer;
    private final int routerParallelism;
    private final RhinoRuntimeSettings settings;
    private final OperatorServing serving;

    /** {@code serving} serves the operator beyond the Java API while it runs (e.g. REST). */
    public RhinoGateOperatorFactory(
            RhinoOperatorSpec spec,
            KeySelector<T, ?> keySelector,
            StateTransfer stateTransfer,
            int routerParallelism,
            RhinoRuntimeSettings settings,
            OperatorServing serving) {
        this.spec = spec;
        this.keySelector = keySelector;
        this.stateTransfer = stateTransfer;
        this.routerParallelism = routerParallelism;
        this.settings = settings;
        this.serving = serving;
        setChainingStrategy(ChainingStrategy.ALWAYS);
    }

    public RhinoOperatorSpec spec() {
        return spec;
    }

    @SuppressWarnings("unchecked")
    @Override
    public <O extends StreamOperator<T>> O createStreamOperator(
            StreamOperatorParameters<T> parameters) {
        OperatorID operatorId = parameters.getStreamConfig().getOperatorID();
        OperatorEventDispatcher dispatcher = parameters.getOperatorEventDispatcher();
        RhinoGateOperator<T> gate =
                new RhinoGateOperator<>(
                        parameters,
                        spec,
                        keySelector,
                        stateTransfer,
                        dispatcher.getOperatorEventGateway(operatorId),
                        settings.handoverTimeout(),
                        settings.handoverBufferMemory().getBytes(),
                        settings.handoverThreads(),
                        settings.loadReportInterval(),
                        settings.replication());
        dispatcher.registerEventHandler(operatorId, gate);
        return (O) gate;
    }

    @Override
    public OperatorCoordinator.Provider getCoordinatorProvider(
            String operatorName, OperatorID operatorId) {
        return new RhinoGateCoordinator.Provider(
                operatorId, spec, routerParallelism, settings, serving);
    }

    @SuppressWarnings("rawtypes")
    @Override
    public Class<? extends StreamOperator> getStreamOperatorClass(ClassLoader classLoader) {
        return RhinoGateOperator.class;
    }
}
