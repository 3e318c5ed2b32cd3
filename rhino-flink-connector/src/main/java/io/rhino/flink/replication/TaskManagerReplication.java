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

package io.rhino.flink.replication;

import io.rhino.flink.config.RhinoRuntimeSettings;
import io.rhino.flink.state.PathSegment;
import io.rhino.replication.ReplicationConfig;
import io.rhino.replication.ReplicationService;
import io.rhino.replication.store.StoreLock;
import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Future;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.execution.Environment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The replication service of each TaskManager, started by the first Rhino gate that runs there and
 * stopped when no gate has used it for a while. Keyed by TaskManager, so the TaskManagers of one
 * JVM (a MiniCluster) act as separate peers with their own ports and replica directories.
 *
 * <p>A job's replicas outlive its tasks on the TaskManager for {@code
 * rhino.replication.retain-after-tasks}: a job restarting after a failure cancels all its tasks
 * first, and its new tasks restore their vnodes from these replicas.
 */
public final class TaskManagerReplication {

    private static final Logger LOG = LoggerFactory.getLogger(TaskManagerReplication.class);

    /**
     * A started service, how many gates of each job on this TaskManager use it, and the pending
     * deletions of the replicas of jobs without gates here.
     */
    private record Running(
            ReplicationService service,
            Map<String, Integer> usersByJob,
            Map<String, Future<?>> deletionsByJob,
            Map<String, Set<String>> scopesByJob,
            JobReplicaMembers members) {
        boolean idle() {
            return usersByJob.isEmpty() && deletionsByJob.isEmpty();
        }
    }

    private static final Map<String, Running> BY_TASK_MANAGER = new HashMap<>();

    private TaskManagerReplication() {}

    /**
     * The TaskManager's service, started if needed.
     *
     * @param taskManager the TaskManager's name
     * @param store the name of the service's store under the replica directory ({@link #storeName})
     * @param job the job of the gate acquiring it
     * @param scope the path prefix of the gate's operator's replicas ({@link
     *     PeerVnodeReplication#operatorPrefix}): peers proving the operator's secret work there
     * @param jobSettings the job's settings, with the operator's secret
     * @param taskManagerConfig the TaskManager's configuration, which {@linkplain
     *     RhinoRuntimeSettings.Replication#onTaskManager overrides} them and holds its TLS stores
     * @param defaultHost its own address, used unless {@code rhino.replication.bind-host} is set
     * @param defaultDirectory where replicas go unless {@code rhino.replication.dir} is set
     * @param taskManagerMetrics the TaskManager's metric group, for the service's metrics, or the
     *     job's group on it where the service is the job's ({@link TaskManagerReplicationMetrics});
     *     null: none
     */
    public static synchronized ReplicationService acquire(
            String taskManager,
            String store,
            String job,
            String scope,
            RhinoRuntimeSettings.Replication jobSettings,
            ReadableConfig taskManagerConfig,
            String defaultHost,
            Path defaultDirectory,
            MetricGroup taskManagerMetrics)
            throws IOException {
        TaskManagerReplicationMetrics.registerOnce(taskManager, taskManagerMetrics);
        Running running = BY_TASK_MANAGER.get(taskManager);
        if (running == null) {
            RhinoRuntimeSettings.Replication settings =
                    jobSettings.onTaskManager(taskManagerConfig);
            Path root =
                    settings.directory() != null ? Path.of(settings.directory()) : defaultDirectory;
            String host =
                    settings.bindHost() != null
                            ? settings.bindHost()
                            : defaultHost == null || defaultHost.isBlank()
                                    ? "127.0.0.1"
                                    : defaultHost;
            ReplicationService service =
                    ReplicationService.start(
                            new ReplicationConfig(
                                    host,
                                    settings.firstPort(),
                                    settings.lastPort(),
                                    root.resolve(PathSegment.of(store)),
                                    null, // every peer works in a scope, with its secret
                                    settings.timeout(),
                                    settings.tls()
                                            ? FlinkInternalTls.fromTaskManager(taskManagerConfig)
                                            : null,
                                    settings.streamsPerPeer(),
                                    settings.limits().forReplicationTimeout(settings.timeout()),
                                    true));
            service.store().listen(new VnodeReplicaCollector(service.store()));
            JobReplicaMembers members = new JobReplicaMembers();
            service.setPeerPolicy(members);
            // a TaskManager that died here before this one left its store behind
            StoreLock.removeAbandoned(root, service.store().root());
            LOG.info("TaskManager {} replicates through {}", taskManager, service.address());
            running =
                    new Running(
                            service, new HashMap<>(), new HashMap<>(), new HashMap<>(), members);
            BY_TASK_MANAGER.put(taskManager, running);
        }
        Future<?> deletion = running.deletionsByJob().remove(job);
        if (deletion != null) {
            deletion.cancel(false);
            LOG.info("Job {} runs again on TaskManager {}: its replicas stay", job, taskManager);
        }
        // the secret travels with the operator, the same in every attempt of the job: registering
        // it again is harmless
        running.service().registerScope(scope, jobSettings.secret());
        running.scopesByJob().computeIfAbsent(job, j -> new HashSet<>()).add(scope);
        running.usersByJob().merge(job, 1, Integer::sum);
        return running.service();
    }

    /**
     * The replication services of one operator's gates, as its coordinator sent them with the
     * chains: the members this TaskManager passes the files of that operator's {@code scope} on to
     * when a peer's chain names them, and no others.
     */
    public static synchronized void admitMembers(
            String taskManager, String scope, Collection<String> services) {
        Running running = BY_TASK_MANAGER.get(taskManager);
        if (running != null) {
            running.members().admit(scope, services);
        }
    }

    /**
     * The name of a TaskManager's replica store: the TaskManager's name when Rhino's classes are
     * the TaskManager's (in Flink's lib/), so every job shares the one service; its name and the
     * job's when they are the job's own (in its jar, loaded by its user-code class loader), where
     * each job has its own copy of this class and so its own service, which must not take the store
     * of another job's.
     */
    public static String storeName(String taskManager, String job, boolean jobsOwnClasses) {
        return jobsOwnClasses ? taskManager + "-job-" + job : taskManager;
    }

    /**
     * The job left this TaskManager and its user-code class loader is released: with Rhino's
     * classes in the job's jar, nothing of this copy of Rhino may run on, so the job's replicas
     * here go now instead of after their retention, and the service stops (its threads run this
     * class loader's code).
     */
    public static synchronized void jobLeft(String taskManager, String job) {
        Running running = BY_TASK_MANAGER.get(taskManager);
        if (running == null) {
            return;
        }
        running.usersByJob().remove(job);
        Future<?> deletion = running.deletionsByJob().remove(job);
        if (deletion != null) {
            deletion.cancel(false);
        }
        LOG.info(
                "Job {} left TaskManager {} and its classes are released: deleting its replicas",
                job,
                taskManager);
        deleteReplicas(running, job);
        if (running.idle()) {
            BY_TASK_MANAGER.remove(taskManager);
            running.service().close();
        }
    }

    /**
     * Names a task's TaskManager: its address plus its I/O directory, which every TaskManager
     * creates for itself ({@code flink-io-<uuid>}), so TaskManagers sharing a host (a MiniCluster,
     * or several on one machine) get distinct names.
     */
    public static String taskManagerName(Environment env) {
        File[] ioDirectories = env.getIOManager().getSpillingDirectories();
        return env.getTaskManagerInfo().getTaskManagerExternalAddress()
                + ":"
                + (ioDirectories.length > 0
                        ? ioDirectories[0].getName()
                        : env.getTaskManagerInfo().getTmpWorkingDirectory().getName());
    }

    /**
     * This TaskManager's replication service while it runs (a gate uses it, or a job's replicas are
     * retained after its tasks ended), for restoring vnodes from its store or its peers.
     */
    public static synchronized Optional<ReplicationService> serviceOf(String taskManager) {
        return Optional.ofNullable(BY_TASK_MANAGER.get(taskManager)).map(Running::service);
    }

    /**
     * A gate that acquired the service ended. Once the last gate of a job on this TaskManager
     * ended, the job's replicas here are deleted after {@code retain} (other TaskManagers still
     * running the job send them again when they find them missing), unless a gate of the job
     * acquires the service again before. The service stops once no gate uses it and no replicas
     * wait for deletion.
     */
    public static synchronized void release(String taskManager, String job, Duration retain) {
        Running running = BY_TASK_MANAGER.get(taskManager);
        if (running == null || !running.usersByJob().containsKey(job)) {
            return;
        }
        if (running.usersByJob().merge(job, -1, Integer::sum) > 0) {
            return;
        }
        running.usersByJob().remove(job);
        if (retain.isZero()) {
            deleteReplicas(running, job);
        } else {
            running.deletionsByJob()
                    .put(
                            job,
                            running.service()
                                    .schedule(
                                            () -> retentionEnded(taskManager, running, job),
                                            retain));
        }
        if (running.idle()) {
            BY_TASK_MANAGER.remove(taskManager);
            running.service().close();
        }
    }

    private static synchronized void retentionEnded(
            String taskManager, Running running, String job) {
        if (BY_TASK_MANAGER.get(taskManager) != running
                || running.deletionsByJob().remove(job) == null) {
            return; // the job came back, or the service stopped
        }
        LOG.info(
                "No task of job {} ran on TaskManager {} for the retention time: deleting its"
                        + " replicas",
                job,
                taskManager);
        deleteReplicas(running, job);
        if (running.idle()) {
            BY_TASK_MANAGER.remove(taskManager);
            running.service().closeAsync(); // this is the service's own thread
        }
    }

    private static void deleteReplicas(Running running, String job) {
        for (String scope : running.scopesByJob().getOrDefault(job, Set.of())) {
            running.members().forget(scope);
            running.service().forgetScope(scope);
        }
        running.scopesByJob().remove(job);
        try {
            running.service().store().deleteTree(PathSegment.of(job));
        } catch (IOException e) {
            LOG.warn("Could not delete the replicas of job {}: {}", job, e.toString());
        }
    }
}
