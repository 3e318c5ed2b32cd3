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

import io.rhino.core.routing.RoutingTable;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;

/**
 * The upstream half of a Rhino keyed stream: sends each record to the subtask that owns its key's
 * vnode in the current routing table. Runs chained to the upstream operator.
 */
public final class RhinoRouterFunction<T, K> extends ProcessFunction<T, RhinoElement<T>> {

    private static final long serialVersionUID = 1L;

    private final RhinoOperatorSpec spec;
    private final KeySelector<T, K> keySelector;
    private transient RoutingTable routingTable;

    public RhinoRouterFunction(RhinoOperatorSpec spec, KeySelector<T, K> keySelector) {
        this.spec = spec;
        this.keySelector = keySelector;
    }

    @Override
    public void open(OpenContext openContext) {
        routingTable = spec.initialRoutingTable();
    }

    @Override
    public void processElement(T value, Context ctx, Collector<RhinoElement<T>> out)
            throws Exception {
        int keyGroup =
                KeyGroupRangeAssignment.assignToKeyGroup(
                        keySelector.getKey(value), spec.numKeyGroups());
        out.collect(RhinoElement.record(routingTable.ownerOfKeyGroup(keyGroup), value));
    }
}
