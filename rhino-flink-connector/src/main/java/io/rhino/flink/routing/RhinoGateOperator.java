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

import io.rhino.flink.state.RhinoStateBackendCheck;
import io.rhino.flink.state.RhinoTaskRegistry;
import org.apache.flink.runtime.execution.Environment;
import org.apache.flink.runtime.executiongraph.ExecutionAttemptID;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.operators.StreamOperatorParameters;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * The downstream half of a Rhino keyed stream, chained in front of the user's keyed operator: it
 * unwraps records from the router and hands them on unchanged.
 */
public final class RhinoGateOperator<T> extends AbstractStreamOperator<T>
        implements OneInputStreamOperator<RhinoElement<T>, T> {

    private static final long serialVersionUID = 1L;

    private final RhinoOperatorSpec spec;
    private final ExecutionAttemptID task;

    RhinoGateOperator(RhinoOperatorSpec spec, StreamOperatorParameters<T> parameters) {
        super(parameters);
        this.spec = spec;
        Environment env = parameters.getContainingTask().getEnvironment();
        RhinoStateBackendCheck.requireRhinoStateBackend(
                spec.name(),
                parameters.getStreamConfig(),
                env.getJobConfiguration(),
                env.getTaskManagerInfo().getConfiguration(),
                env.getUserCodeClassLoader().asClassLoader());
        this.task = env.getExecutionId();
        RhinoTaskRegistry.registerGate(task, spec);
    }

    public RhinoOperatorSpec spec() {
        return spec;
    }

    @Override
    public void close() throws Exception {
        RhinoTaskRegistry.unregisterGate(task);
        super.close();
    }

    @Override
    public void processElement(StreamRecord<RhinoElement<T>> element) {
        output.collect(element.replace(element.getValue().value()));
    }
}
