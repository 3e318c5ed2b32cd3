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

import io.rhino.flink.spec.UnsupportedJobShapeException;
import io.rhino.flink.state.RhinoStateBackendFactory;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.apache.flink.api.dag.Transformation;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Refuses, while the job is built, a Rhino keyed stream that the job's configuration already dooms.
 * What only the running job reveals is checked when its tasks start.
 */
final class RhinoBuildCheck {

    /** Suffix of the router's operator name, which also identifies the Rhino name in the job. */
    static final String ROUTER_SUFFIX = " (Rhino router)";

    private RhinoBuildCheck() {}

    static void check(DataStream<?> input, RhinoKeyedStreamOptions options) {
        StreamExecutionEnvironment env = input.getExecutionEnvironment();
        ReadableConfig config = env.getConfiguration();
        String name = options.name();
        requireRhinoBackendIfConfigured(config, name);
        if (!env.isChainingEnabled()) {
            throw new UnsupportedJobShapeException(
                    "Rhino keyed stream '"
                            + name
                            + "' needs its keyed operator chained to its gate, in one task with"
                            + " the vnode state the gate moves, but operator chaining is disabled."
                            + " Set '"
                            + PipelineOptions.OPERATOR_CHAINING.key()
                            + ": true' and do not call disableOperatorChaining().");
        }
        requireUniqueIdentity(input, options);
    }

    /**
     * The name identifies the operator's handover manager, and the uids its routing state: a second
     * Rhino keyed stream with either would take over the first one's.
     */
    private static void requireUniqueIdentity(
            DataStream<?> input, RhinoKeyedStreamOptions options) {
        Set<Transformation<?>> existingTransformations = transformationsSoFar(input);
        for (Transformation<?> existing : existingTransformations) {
            if (existing.getName().equals(options.name() + ROUTER_SUFFIX)) {
                throw new UnsupportedJobShapeException(
                        "The job already has a Rhino keyed stream named '"
                                + options.name()
                                + "'. The name identifies its handover manager and, by default,"
                                + " its uids: give each Rhino keyed stream its own name.");
            }
        }
        for (Transformation<?> existing : existingTransformations) {
            String uid = existing.getUid();
            if (Objects.equals(uid, options.routerUid())
                    || Objects.equals(uid, options.gateUid())) {
                throw new UnsupportedJobShapeException(
                        "Rhino keyed stream '"
                                + options.name()
                                + "' needs the uid '"
                                + uid
                                + "', which operator '"
                                + existing.getName()
                                + "' already has. Give that operator another uid, or set the"
                                + " Rhino uids with RhinoKeyedStreamOptions.Builder.routerUid"
                                + " and gateUid.");
            }
        }
    }

    /**
     * Every transformation of the job built so far: those the environment keeps (operators) and
     * their inputs (sources among them), plus the keyed stream's input and its inputs.
     */
    private static Set<Transformation<?>> transformationsSoFar(DataStream<?> input) {
        Set<Transformation<?>> all = Collections.newSetFromMap(new IdentityHashMap<>());
        List<Transformation<?>> roots =
                new ArrayList<>(input.getExecutionEnvironment().getTransformations());
        roots.add(input.getTransformation());
        for (Transformation<?> root : roots) {
            all.addAll(root.getTransitivePredecessors());
        }
        return all;
    }

    /**
     * Fails when the job configuration selects another state backend. When the job leaves it unset
     * the cluster decides, and the gate checks at task start.
     */
    private static void requireRhinoBackendIfConfigured(ReadableConfig config, String name) {
        config.getOptional(StateBackendOptions.STATE_BACKEND)
                .filter(type -> !type.equals(RhinoStateBackendFactory.class.getName()))
                .ifPresent(
                        type -> {
                            throw new IllegalStateException(
                                    "Rhino keyed stream '"
                                            + name
                                            + "' needs the Rhino state backend, but "
                                            + StateBackendOptions.STATE_BACKEND.key()
                                            + " is '"
                                            + type
                                            + "'. Set '"
                                            + StateBackendOptions.STATE_BACKEND.key()
                                            + ": "
                                            + RhinoStateBackendFactory.class.getName()
                                            + "'.");
                        });
    }
}
