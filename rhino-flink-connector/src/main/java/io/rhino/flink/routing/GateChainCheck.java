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

import io.rhino.flink.spec.RhinoOperatorSpec;
import io.rhino.flink.spec.UnsupportedJobShapeException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.runtime.asyncprocessing.operators.AbstractAsyncKeyOrderedStreamOperator;
import org.apache.flink.runtime.asyncprocessing.operators.AbstractAsyncStateStreamOperatorV2;
import org.apache.flink.streaming.api.graph.StreamConfig;
import org.apache.flink.streaming.api.graph.StreamEdge;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.AbstractStreamOperatorV2;
import org.apache.flink.streaming.api.operators.StreamOperatorFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks, when a gate is created, that its task has the one shape a handover can work with: the
 * gate feeds exactly one keyed operator, chained to it (so that the operator's vnode state is in
 * the gate's task), that keeps everything it knows about a key in keyed state. The operator chain
 * is read from the gate's configuration, which holds every chained operator's configuration until
 * the chain is built; the gate is the head of its chain (its input is Rhino's custom partitioning)
 * and is created with it, before any state is restored.
 */
final class GateChainCheck {

    private static final Logger LOG = LoggerFactory.getLogger(GateChainCheck.class);

    /**
     * Classes whose {@code prepareSnapshotPreBarrier} does nothing, or only drains asynchronous
     * state requests (refused separately, by the state backend, with its own message).
     */
    private static final Set<Class<?>> NON_BUFFERING =
            Set.of(
                    AbstractStreamOperator.class,
                    AbstractStreamOperatorV2.class,
                    AbstractAsyncKeyOrderedStreamOperator.class,
                    AbstractAsyncStateStreamOperatorV2.class);

    private static final String CHAIN_FIX =
            "remove disableChaining(), startNewChain() or another slotSharingGroup(...) from the"
                    + " keyed operator, set 'pipeline.operator-chaining.enabled: true', and do not"
                    + " connect() the Rhino keyed stream with another stream (a two-input operator"
                    + " is never chained to its inputs).";

    private GateChainCheck() {}

    static void check(
            RhinoOperatorSpec spec, StreamConfig gate, ClassLoader classLoader, int parallelism) {
        String name = spec.name();
        List<StreamEdge> chainedOutputs = gate.getChainedOutputs(classLoader);
        int outputs = chainedOutputs.size() + gate.getOperatorNonChainedOutputs(classLoader).size();
        if (outputs > 1) {
            throw UnsupportedJobShapeException.atTaskStart(
                    "Rhino keyed stream '"
                            + name
                            + "' feeds "
                            + outputs
                            + " operators, but its gate serves exactly one keyed operator: a"
                            + " handover moves the vnode state of that operator alone. "
                            + anotherKeyBy(name));
        }
        if (chainedOutputs.isEmpty()) {
            throw UnsupportedJobShapeException.atTaskStart(
                    "Rhino keyed stream '"
                            + name
                            + "': its keyed operator is not chained to its gate, so its vnode"
                            + " state is not in the gate's task and the gate cannot move it."
                            + " To chain it, "
                            + CHAIN_FIX);
        }
        Map<Integer, StreamConfig> chain = gate.getTransitiveChainedTaskConfigs(classLoader);
        List<StreamConfig> keyed = keyedOperators(chain, chainedOutputs, classLoader);
        if (keyed.isEmpty()) {
            StreamConfig next = chain.get(chainedOutputs.get(0).getTargetId());
            throw UnsupportedJobShapeException.atTaskStart(
                    "Rhino keyed stream '"
                            + name
                            + "' feeds '"
                            + (next == null ? "an operator" : next.getOperatorName())
                            + "', which is not a keyed operator: the gate's task holds no keyed"
                            + " state to move. Use process(...) or window(...) on the Rhino"
                            + " keyed stream, or a keyed operator on its keyedStream().");
        }
        if (keyed.size() > 1) {
            throw UnsupportedJobShapeException.atTaskStart(
                    "Rhino keyed stream '"
                            + name
                            + "': the gate's task runs "
                            + keyed.size()
                            + " keyed operators ("
                            + String.join(
                                    ", ", keyed.stream().map(c -> c.getOperatorName()).toList())
                            + "), but the gate moves the vnode state of exactly one. "
                            + anotherKeyBy(name));
        }
        checkKeepsItsStateInKeyedState(name, keyed.get(0), classLoader);
    }

    /**
     * Called when the gate opens. Flink initialises the operators of a chain from its tail, so the
     * keyed operator's vnode backend is registered by then unless it runs in another task.
     */
    static void requireVnodeBackend(RhinoOperatorSpec spec, boolean registered) {
        if (!registered) {
            throw UnsupportedJobShapeException.atTaskStart(
                    "Rhino keyed stream '"
                            + spec.name()
                            + "': no keyed operator in the gate's task created its vnode state"
                            + " before the gate opened, so the gate has nothing to move. The"
                            + " keyed operator must be chained to the gate: "
                            + CHAIN_FIX);
        }
    }

    private static String anotherKeyBy(String name) {
        return "For each further keyed operator, key its input again with another Rhino name"
                + " (RhinoStreams.keyBy(stream, key, RhinoKeyedStreamOptions.named(\""
                + name
                + "-2\"))), or do the work in one operator.";
    }

    /**
     * The operators of the chain after the gate that have keyed state: those with a state key
     * serializer, for which Flink creates a keyed backend.
     */
    private static List<StreamConfig> keyedOperators(
            Map<Integer, StreamConfig> chain,
            List<StreamEdge> gateOutputs,
            ClassLoader classLoader) {
        List<StreamConfig> keyed = new ArrayList<>();
        Deque<StreamEdge> edges = new ArrayDeque<>(gateOutputs);
        while (!edges.isEmpty()) {
            StreamConfig operator = chain.get(edges.poll().getTargetId());
            if (operator == null) {
                continue;
            }
            if (operator.getStateKeySerializer(classLoader) != null) {
                keyed.add(operator);
            }
            edges.addAll(operator.getChainedOutputs(classLoader));
        }
        return keyed;
    }

    /**
     * Refuses operators that finish work in {@code prepareSnapshotPreBarrier}: they hold records in
     * memory until the next checkpoint (bundle and mini-batch operators), which a handover between
     * checkpoints would leave behind at the origin.
     */
    private static void checkKeepsItsStateInKeyedState(
            String name, StreamConfig operator, ClassLoader classLoader) {
        Class<?> operatorClass;
        try {
            StreamOperatorFactory<?> factory = operator.getStreamOperatorFactory(classLoader);
            operatorClass = factory.getStreamOperatorClass(classLoader);
            Class<?> declaring =
                    operatorClass
                            .getMethod("prepareSnapshotPreBarrier", long.class)
                            .getDeclaringClass();
            if (NON_BUFFERING.contains(declaring)) {
                return;
            }
        } catch (Exception | LinkageError e) {
            // the chain reads the same configuration and reports any real problem with it
            LOG.warn("Could not inspect the keyed operator of Rhino keyed stream '{}'", name, e);
            return;
        }
        throw UnsupportedJobShapeException.atTaskStart(
                "Rhino keyed stream '"
                        + name
                        + "': its keyed operator '"
                        + operator.getOperatorName()
                        + "' ("
                        + operatorClass.getName()
                        + ") finishes work in prepareSnapshotPreBarrier, as bundle and mini-batch"
                        + " operators do: it holds records in memory until the next checkpoint."
                        + " A handover moves a vnode's keyed state between checkpoints and would"
                        + " leave those records behind. Use an operator that keeps what it knows"
                        + " about each key in keyed state.");
    }
}
