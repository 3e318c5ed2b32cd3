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

import io.rhino.core.routing.KeyGroupSpan;
import io.rhino.core.routing.VnodeLayout;
import io.rhino.flink.replication.PeerVnodeReplication;
import io.rhino.flink.replication.ReplicaRestore;
import io.rhino.flink.spec.RhinoOperatorSpec;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import org.apache.flink.api.common.TaskInfo;
import org.apache.flink.api.common.TaskInfoImpl;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.execution.Environment;
import org.apache.flink.runtime.state.CheckpointableKeyedStateBackend;
import org.apache.flink.runtime.state.ConfigurableStateBackend;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.runtime.state.KeyedStateBackendParametersImpl;
import org.apache.flink.runtime.state.OperatorStateBackend;

/**
 * Runs Flink's keyed-backend contract tests against {@link VnodeKeyedStateBackend}: every keyed
 * backend the tests ask for is created as the subtask of a Rhino operator that owns the requested
 * key-group range, split into several vnodes, so that states, namespaces, key iteration, timers and
 * snapshots all cross vnode boundaries.
 *
 * <p>It goes through {@link RhinoStateBackend#createKeyedStateBackend} as a real task does: the
 * operator is registered in {@link RhinoTaskRegistry} under the task's attempt id (the gate's job)
 * for the duration of the call. The tests pass one environment for every range they ask for, so the
 * environment the backend sees reports the subtask and parallelism whose Flink key-group range is
 * the requested one.
 */
final class VnodeContractStateBackend implements ConfigurableStateBackend {

    private static final long serialVersionUID = 1L;

    private final RhinoStateBackend rhino;
    private final int vnodesPerSubtask;

    /**
     * @param vnodesPerSubtask how many vnodes each subtask should own, where its key-group range is
     *     big enough and such a layout lines up with Flink's ranges; otherwise one per key group
     */
    VnodeContractStateBackend(int vnodesPerSubtask) {
        this(
                new RhinoStateBackend().configure(new Configuration(), classLoader()),
                vnodesPerSubtask);
    }

    private VnodeContractStateBackend(RhinoStateBackend rhino, int vnodesPerSubtask) {
        this.rhino = rhino;
        this.vnodesPerSubtask = vnodesPerSubtask;
    }

    private static ClassLoader classLoader() {
        return VnodeContractStateBackend.class.getClassLoader();
    }

    @Override
    public VnodeContractStateBackend configure(ReadableConfig config, ClassLoader classLoader) {
        return new VnodeContractStateBackend(
                rhino.configure(config, classLoader), vnodesPerSubtask);
    }

    @Override
    public <K> CheckpointableKeyedStateBackend<K> createKeyedStateBackend(
            KeyedStateBackendParameters<K> parameters) throws Exception {
        Placement placement =
                placementOf(
                        parameters.getNumberOfKeyGroups(),
                        parameters.getKeyGroupRange(),
                        vnodesPerSubtask);
        Environment env = asSubtask(parameters.getEnv(), placement);
        KeyedStateBackendParameters<K> asRhinoSubtask =
                new KeyedStateBackendParametersImpl<>(
                        env,
                        parameters.getJobID(),
                        parameters.getOperatorIdentifier(),
                        parameters.getKeySerializer(),
                        parameters.getNumberOfKeyGroups(),
                        parameters.getKeyGroupRange(),
                        parameters.getKvStateRegistry(),
                        parameters.getTtlTimeProvider(),
                        parameters.getMetricGroup(),
                        parameters.getCustomInitializationMetrics(),
                        parameters.getStateHandles(),
                        parameters.getCancelStreamRegistry(),
                        parameters.getManagedMemoryFraction());
        RhinoTaskRegistry.registerGate(
                env.getExecutionId(),
                parameters.getJobID(),
                placement.spec(),
                placement.subtask(),
                ReplicaRestore.forTask(
                        env,
                        PeerVnodeReplication.operatorPrefix(
                                env.getJobID().toString(), placement.spec().name()),
                        true));
        try {
            CheckpointableKeyedStateBackend<K> backend =
                    rhino.createKeyedStateBackend(asRhinoSubtask);
            if (!(backend instanceof VnodeKeyedStateBackend<K> vnodeBackend)) {
                throw new IllegalStateException(
                        "Expected a vnode backend for a registered Rhino operator, got " + backend);
            }
            int owned = vnodeBackend.ownedVnodes().length;
            int expected = placement.vnodesOwned();
            if (owned != expected) {
                throw new IllegalStateException(
                        "Subtask "
                                + placement.subtask()
                                + " owns "
                                + owned
                                + " vnodes, not "
                                + expected);
            }
            return backend;
        } finally {
            RhinoTaskRegistry.unregisterGate(env.getExecutionId());
        }
    }

    @Override
    public OperatorStateBackend createOperatorStateBackend(
            OperatorStateBackendParameters parameters) throws Exception {
        return rhino.createOperatorStateBackend(parameters);
    }

    @Override
    public String getName() {
        return rhino.getName();
    }

    @Override
    public boolean useManagedMemory() {
        return rhino.useManagedMemory();
    }

    @Override
    public boolean supportsNoClaimRestoreMode() {
        return rhino.supportsNoClaimRestoreMode();
    }

    @Override
    public boolean supportsSavepointFormat(SavepointFormatType formatType) {
        return rhino.supportsSavepointFormat(formatType);
    }

    // ------------------------------------------------------------------ placement

    /**
     * A Rhino operator and one of its subtasks whose Flink key-group range, and whose initially
     * owned vnodes, are exactly the requested range.
     */
    record Placement(RhinoOperatorSpec spec, int subtask, int vnodesOwned) {}

    static Placement placementOf(int numKeyGroups, KeyGroupRange range, int vnodesPerSubtask) {
        for (int parallelism = 1; parallelism <= numKeyGroups; parallelism++) {
            int subtask =
                    KeyGroupRangeAssignment.computeOperatorIndexForKeyGroup(
                            numKeyGroups, parallelism, range.getStartKeyGroup());
            if (KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(
                            numKeyGroups, parallelism, subtask)
                    .equals(range)) {
                return placementOf(numKeyGroups, parallelism, subtask, range, vnodesPerSubtask);
            }
        }
        throw new IllegalArgumentException(
                "Key-group range "
                        + range
                        + " of "
                        + numKeyGroups
                        + " key groups is no subtask's range at any parallelism; a Rhino "
                        + "operator is only ever given such ranges");
    }

    private static Placement placementOf(
            int numKeyGroups,
            int parallelism,
            int subtask,
            KeyGroupRange range,
            int vnodesPerSubtask) {
        // Prefer a few vnodes per subtask of uneven sizes; one key group per vnode always lines
        // up with Flink's ranges (the initial routing table then equals Flink's assignment).
        int[] candidates = {parallelism * vnodesPerSubtask, numKeyGroups};
        for (int numVnodes : candidates) {
            if (numVnodes > numKeyGroups) {
                continue;
            }
            RhinoOperatorSpec spec =
                    new RhinoOperatorSpec(
                            "contract", numKeyGroups, numVnodes, parallelism, parallelism);
            int[] owned = spec.initialRoutingTable().vnodesOwnedBy(subtask);
            if (covers(spec.layout(), owned, range)) {
                return new Placement(spec, subtask, owned.length);
            }
        }
        throw new IllegalStateException("No vnode layout lines up with " + range);
    }

    private static boolean covers(VnodeLayout layout, int[] vnodes, KeyGroupRange range) {
        int next = range.getStartKeyGroup();
        for (int vnode : vnodes) {
            KeyGroupSpan span = layout.keyGroupsOf(vnode);
            if (span.startKeyGroup() != next) {
                return false;
            }
            next = span.endKeyGroup() + 1;
        }
        return next == range.getEndKeyGroup() + 1;
    }

    /** The environment as the given subtask sees it; everything else is the tests' own. */
    private static Environment asSubtask(Environment env, Placement placement) {
        TaskInfo info = env.getTaskInfo();
        int parallelism = placement.spec().parallelism();
        if (info.getIndexOfThisSubtask() == placement.subtask()
                && info.getNumberOfParallelSubtasks() == parallelism) {
            return env;
        }
        TaskInfo asSubtask =
                new TaskInfoImpl(
                        info.getTaskName(),
                        placement.spec().numKeyGroups(),
                        placement.subtask(),
                        parallelism,
                        info.getAttemptNumber(),
                        info.getAllocationIDAsString());
        return (Environment)
                Proxy.newProxyInstance(
                        classLoader(),
                        new Class<?>[] {Environment.class},
                        (proxy, method, args) -> {
                            if (method.getName().equals("getTaskInfo")) {
                                return asSubtask;
                            }
                            try {
                                return method.invoke(env, args);
                            } catch (InvocationTargetException e) {
                                throw e.getCause();
                            }
                        });
    }
}
