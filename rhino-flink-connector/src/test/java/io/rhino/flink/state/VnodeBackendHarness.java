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

import io.rhino.flink.spec.RhinoOperatorSpec;
import java.net.URI;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.RunnableFuture;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.core.fs.CloseableRegistry;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.runtime.checkpoint.CheckpointOptions;
import org.apache.flink.runtime.checkpoint.SavepointType;
import org.apache.flink.runtime.operators.testutils.MockEnvironment;
import org.apache.flink.runtime.operators.testutils.MockEnvironmentBuilder;
import org.apache.flink.runtime.state.CheckpointStorageLocationReference;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.runtime.state.KeyedStateBackendParametersImpl;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.SnapshotResult;
import org.apache.flink.runtime.state.filesystem.FsCheckpointStreamFactory;
import org.apache.flink.runtime.state.ttl.TtlTimeProvider;
import org.apache.flink.util.concurrent.FutureUtils;

/**
 * Creates vnode backends for subtasks of one Rhino operator in this JVM, on real RocksDB, and
 * checkpoints them to a local checkpoint directory, as one TaskManager would.
 */
public final class VnodeBackendHarness implements AutoCloseable {

    private final RhinoOperatorSpec spec;
    private final java.nio.file.Path checkpointDir;
    private final JobID jobId = new JobID();
    private final List<AutoCloseable> resources = new ArrayList<>();
    private final java.util.Map<Integer, java.io.File> workingDirectories =
            new java.util.HashMap<>();

    private final TtlTimeProvider ttlTimeProvider;
    private Configuration configuration = new Configuration();
    private String checkpointScheme = "file";
    private TaskReplicas replicas;
    private java.util.function.Consumer<Throwable> externalFailures;
    private JobID sharedJob;
    private java.io.File sharedTaskManagerDirectory;

    public VnodeBackendHarness(RhinoOperatorSpec spec, java.nio.file.Path checkpointDir) {
        this(spec, checkpointDir, TtlTimeProvider.DEFAULT);
    }

    VnodeBackendHarness(
            RhinoOperatorSpec spec, java.nio.file.Path checkpointDir, TtlTimeProvider ttlTime) {
        this.spec = spec;
        this.checkpointDir = checkpointDir;
        this.ttlTimeProvider = ttlTime;
    }

    /** The configuration the state backend of backends created from now on reads. */
    public VnodeBackendHarness withConfiguration(Configuration configuration) {
        this.configuration = configuration;
        return this;
    }

    /**
     * Backends created from now on belong to job {@code job} and run on one TaskManager, whose
     * temporary working directory is {@code taskManagerDirectory}: harnesses of several operators
     * given the same are operators of one job on one TaskManager. Without it, each backend runs in
     * a job and on a TaskManager of its own.
     */
    public VnodeBackendHarness onTaskManager(JobID job, java.io.File taskManagerDirectory) {
        this.sharedJob = job;
        this.sharedTaskManagerDirectory = taskManagerDirectory;
        return this;
    }

    /**
     * Backends created from now on restore their vnodes from {@code replicas} where these hold
     * them, as a task whose gate registered them does.
     */
    VnodeBackendHarness withReplicas(TaskReplicas replicas) {
        this.replicas = replicas;
        return this;
    }

    /** Tasks of backends created from now on report a failure from outside the task thread here. */
    VnodeBackendHarness withExternalFailures(java.util.function.Consumer<Throwable> failures) {
        this.externalFailures = failures;
        return this;
    }

    /**
     * Checkpoints from now on are written through the file system of {@code scheme} (a local one
     * registered for tests, such as {@code stalling}) and restored through it.
     */
    VnodeBackendHarness withCheckpointScheme(String scheme) {
        this.checkpointScheme = scheme;
        return this;
    }

    public VnodeKeyedStateBackend<Long> create(
            int subtask, Collection<KeyedStateHandle> restoreFrom) throws Exception {
        return create(subtask, restoreFrom, new CloseableRegistry());
    }

    /**
     * Creates subtask {@code subtask}'s backend, restored from {@code restoreFrom}, with the cancel
     * registry Flink's cancellation closes to stop the restore's downloads.
     */
    VnodeKeyedStateBackend<Long> create(
            int subtask, Collection<KeyedStateHandle> restoreFrom, CloseableRegistry cancelRegistry)
            throws Exception {
        MockEnvironmentBuilder environment =
                new MockEnvironmentBuilder()
                        .setParallelism(spec.parallelism())
                        .setSubtaskIndex(subtask)
                        .setMaxParallelism(spec.numKeyGroups())
                        .setManagedMemorySize(64L << 20);
        if (sharedTaskManagerDirectory != null) {
            environment
                    .setJobID(sharedJob)
                    .setTaskManagerRuntimeInfo(
                            new org.apache.flink.runtime.util.TestingTaskManagerRuntimeInfo(
                                    new Configuration(), sharedTaskManagerDirectory));
        }
        MockEnvironment env = environment.build();
        if (externalFailures != null) {
            env.setExternalFailureCauseConsumer(externalFailures);
        }
        resources.add(env);
        workingDirectories.put(subtask, env.getTaskManagerInfo().getTmpWorkingDirectory());
        KeyGroupRange subtaskRange =
                KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(
                        spec.numKeyGroups(), spec.parallelism(), subtask);
        if (replicas != null) {
            RhinoTaskRegistry.registerGate(
                    env.getExecutionId(), env.getJobID(), spec, subtask, replicas);
            resources.add(() -> RhinoTaskRegistry.unregisterGate(env.getExecutionId()));
        }
        RhinoStateBackend stateBackend =
                new RhinoStateBackendFactory()
                        .createFromConfig(configuration, getClass().getClassLoader());
        VnodeKeyedStateBackend<Long> backend =
                stateBackend.createVnodeKeyedStateBackend(
                        new KeyedStateBackendParametersImpl<>(
                                env,
                                jobId,
                                "op_" + subtask,
                                LongSerializer.INSTANCE,
                                spec.numKeyGroups(),
                                subtaskRange,
                                env.getTaskKvStateRegistry(),
                                ttlTimeProvider,
                                new UnregisteredMetricsGroup(),
                                restoreFrom,
                                cancelRegistry),
                        spec);
        resources.add(
                () -> {
                    backend.close();
                    backend.dispose();
                });
        return backend;
    }

    /** The first {@code count} keys, from 0 up, that the layout puts in {@code vnode}. */
    public List<Long> keysOf(int vnode, int count) {
        return java.util.stream.LongStream.iterate(0, k -> k + 1)
                .filter(k -> spec.layout().vnodeOfKey(k) == vnode)
                .limit(count)
                .boxed()
                .toList();
    }

    /**
     * Moves a vnode as a handover on one machine does: exported into {@code directory}, installed
     * at the target, removed at the origin, the export deleted.
     */
    VnodeExport move(
            VnodeKeyedStateBackend<Long> origin,
            VnodeKeyedStateBackend<Long> target,
            int vnode,
            java.nio.file.Path directory)
            throws Exception {
        VnodeExport export = origin.exportVnode(vnode, directory);
        target.installMovedVnode(vnode, export.handle());
        origin.removeVnode(vnode);
        export.delete();
        return export;
    }

    /** Where the last backend created for {@code subtask} keeps its RocksDB instances. */
    public java.io.File workingDirectory(int subtask) {
        return workingDirectories.get(subtask);
    }

    /** Runs a whole checkpoint of the backend and reports it complete. */
    public KeyedStateHandle checkpoint(VnodeKeyedStateBackend<Long> backend, long checkpointId)
            throws Exception {
        return checkpoint(backend, checkpointId, 1024);
    }

    /**
     * Runs a whole checkpoint of the backend, with streams of at most {@code inlineThreshold} bytes
     * inlined in the handles (Flink's {@code state.storage.fs.memory-threshold}), and reports it
     * complete.
     */
    KeyedStateHandle checkpoint(
            VnodeKeyedStateBackend<Long> backend, long checkpointId, int inlineThreshold)
            throws Exception {
        KeyedStateHandle handle =
                FutureUtils.runIfNotDoneAndGet(
                                startCheckpoint(backend, checkpointId, inlineThreshold))
                        .getJobManagerOwnedSnapshot();
        backend.notifyCheckpointComplete(checkpointId);
        return handle;
    }

    /**
     * Runs the synchronous part of a checkpoint; the returned future uploads it. Nothing is
     * notified.
     */
    RunnableFuture<SnapshotResult<KeyedStateHandle>> startCheckpoint(
            VnodeKeyedStateBackend<Long> backend, long checkpointId, int inlineThreshold)
            throws Exception {
        java.nio.file.Path exclusive = checkpointDir.resolve("chk-" + checkpointId);
        java.nio.file.Path shared = checkpointDir.resolve("shared");
        Files.createDirectories(exclusive);
        Files.createDirectories(shared);
        FsCheckpointStreamFactory streams =
                new FsCheckpointStreamFactory(
                        FileSystem.get(URI.create(checkpointScheme + ":///")),
                        new Path(checkpointScheme, null, exclusive.toString()),
                        new Path(checkpointScheme, null, shared.toString()),
                        inlineThreshold,
                        Math.max(4096, inlineThreshold));
        return backend.snapshot(
                checkpointId,
                System.currentTimeMillis(),
                streams,
                CheckpointOptions.forCheckpointWithDefaultLocation());
    }

    /**
     * Takes a native savepoint of the backend into {@code directory}, as Flink does (every file
     * exclusive to the savepoint). Flink notifies only a stop-with-savepoint as complete.
     */
    KeyedStateHandle savepoint(
            VnodeKeyedStateBackend<Long> backend,
            long checkpointId,
            java.nio.file.Path directory,
            boolean stopping)
            throws Exception {
        Files.createDirectories(directory);
        Path target = new Path(directory.toUri());
        FsCheckpointStreamFactory streams =
                new FsCheckpointStreamFactory(
                        FileSystem.getLocalFileSystem(), target, target, 1024, 4096);
        KeyedStateHandle handle =
                FutureUtils.runIfNotDoneAndGet(
                                backend.snapshot(
                                        checkpointId,
                                        System.currentTimeMillis(),
                                        streams,
                                        new CheckpointOptions(
                                                SavepointType.savepoint(SavepointFormatType.NATIVE),
                                                CheckpointStorageLocationReference.getDefault())))
                        .getJobManagerOwnedSnapshot();
        if (stopping) {
            backend.notifyCheckpointComplete(checkpointId);
        }
        return handle;
    }

    @Override
    public void close() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }
}
