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
import io.rhino.flink.handover.DfsStateTransfer;
import io.rhino.flink.handover.StateTransfer;
import io.rhino.flink.state.RhinoTaskRegistry;
import io.rhino.flink.state.VnodeKeyedStateBackend;
import io.rhino.replication.PeerAddress;
import io.rhino.replication.ReplicationService;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.execution.Environment;
import org.apache.flink.runtime.executiongraph.ExecutionAttemptID;
import org.apache.flink.runtime.metrics.groups.TaskMetricGroup;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One gate's share of replication: it holds its TaskManager's replication service from the gate's
 * start to its close, switches the vnode checkpoints to the chains the coordinator sends, and
 * chooses, once, the transfer that moves the gate's vnodes in the operator's replication mode.
 *
 * <p>Used on the task thread; the chain and the peers' services are also read by the transfer's
 * threads.
 */
public final class GateReplication {

    private static final Logger LOG = LoggerFactory.getLogger(GateReplication.class);

    private final String operator;
    private final int subtask;
    private final ExecutionAttemptID task;
    private final String job;
    private final String prefix;
    private final String taskManager;
    private final RhinoRuntimeSettings.Replication settings;
    // this TaskManager's service: null unless vnodes replicate to peers
    private final ReplicationService service;
    // whether the service is still held, until the gate closes
    private boolean holdsService;
    private volatile Map<Integer, String> serviceBySubtask = Map.of();
    private volatile PeerVnodeReplication current;
    // the last chain while there was none: told to drop its copies once a chain exists again
    private PeerVnodeReplication former;
    private ReplicationProgressTracker progress;

    private GateReplication(
            Environment env,
            String operator,
            RhinoRuntimeSettings.Replication settings,
            ReplicationService service) {
        this.operator = operator;
        this.subtask = env.getTaskInfo().getIndexOfThisSubtask();
        this.task = env.getExecutionId();
        this.job = env.getJobID().toString();
        this.prefix = PeerVnodeReplication.operatorPrefix(job, operator);
        this.taskManager = TaskManagerReplication.taskManagerName(env);
        this.settings = settings;
        this.service = service;
        this.holdsService = service != null;
    }

    /**
     * Starts the gate's replication when the gate is created: with peers, acquires its
     * TaskManager's replication service (so that the keyed operator's restore can fetch replicas
     * through it).
     *
     * @throws UncheckedIOException the service cannot start
     */
    public static GateReplication start(
            Environment env, String operator, RhinoRuntimeSettings.Replication settings) {
        ReplicationService service = settings.peers() ? acquire(env, operator, settings) : null;
        return new GateReplication(env, operator, settings, service);
    }

    private static ReplicationService acquire(
            Environment env, String operator, RhinoRuntimeSettings.Replication settings) {
        String taskManager = TaskManagerReplication.taskManagerName(env);
        String job = env.getJobID().toString();
        boolean jobsOwnClasses = RhinoClasses.areTheJobsOwn();
        try {
            ReplicationService service =
                    TaskManagerReplication.acquire(
                            taskManager,
                            TaskManagerReplication.storeName(taskManager, job, jobsOwnClasses),
                            job,
                            PeerVnodeReplication.operatorPrefix(job, operator),
                            settings,
                            env.getTaskManagerInfo().getConfiguration(),
                            env.getTaskManagerInfo().getTaskManagerExternalAddress(),
                            Path.of(
                                    env.getTaskManagerInfo().getTmpDirectories()[0],
                                    "rhino-replicas"),
                            jobsOwnClasses
                                    ? env.getMetricGroup().parent()
                                    : taskManagerMetricGroup(env));
            if (jobsOwnClasses) {
                // Flink releases the class loader once the job left this TaskManager
                env.getUserCodeClassLoader()
                        .registerReleaseHookIfAbsent(
                                "rhino-replication-" + taskManager,
                                () -> TaskManagerReplication.jobLeft(taskManager, job));
            }
            return service;
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "Rhino keyed stream '"
                            + operator
                            + "': the replication service of TaskManager "
                            + taskManager
                            + " cannot start: "
                            + e.getMessage(),
                    e);
        }
    }

    /** The TaskManager's own metric group (Flink's taskmanager scope), above the task's. */
    private static MetricGroup taskManagerMetricGroup(Environment env) {
        TaskMetricGroup task = env.getMetricGroup();
        return task.parent() == null ? null : task.parent().parent();
    }

    /** Registers the replication metrics in the gate's metric group; when the gate opens. */
    public void open(MetricGroup gateMetrics) {
        progress = new ReplicationProgressTracker().register(gateMetrics);
    }

    /** Names the files of this operator of this job, in replica stores and on RhinoDFS. */
    public String prefix() {
        return prefix;
    }

    /** The name of the gate's TaskManager. */
    public String taskManager() {
        return taskManager;
    }

    /** The address of this TaskManager's replication service; null unless peers replicate. */
    public String serviceAddress() {
        return service == null ? null : service.address().toString();
    }

    /**
     * How the gate moves vnodes, chosen once from the operator's replication mode; when the gate
     * opens, before it reports its location.
     *
     * @param configured the transfer the operator was built with
     */
    public StateTransfer transferFor(StateTransfer configured) {
        return switch (settings.mode()) {
            case NONE -> configured;
            case PEERS ->
                    new PeerStateTransfer(
                            configured,
                            service,
                            peer -> serviceBySubtask.get(peer),
                            () -> current,
                            prefix,
                            settings.timeout().toMillis());
            case DFS -> {
                DfsStateTransfer dfs = new DfsStateTransfer(settings.dfsPath(), prefix);
                if (subtask == 0) {
                    // no handover runs until every gate reported its location: none is
                    // mid-transfer
                    dfs.removeLeftovers();
                }
                yield dfs;
            }
        };
    }

    /**
     * The coordinator sent the operator's replication services and this gate's chain: this
     * TaskManager passes the operator's files on to those services, and from the next checkpoint on
     * the vnode checkpoints go along {@code chain}.
     */
    public void onChain(
            Map<Integer, String> serviceBySubtask,
            List<String> chain,
            Supplier<VnodeKeyedStateBackend<?>> backend) {
        this.serviceBySubtask = serviceBySubtask;
        if (holdsService) {
            // before the chain starts: this TaskManager's hops of this job's chains
            TaskManagerReplication.admitMembers(taskManager, prefix, serviceBySubtask.values());
        }
        replicateAlong(chain, backend);
    }

    private void replicateAlong(List<String> chain, Supplier<VnodeKeyedStateBackend<?>> backends) {
        if (service == null) {
            return;
        }
        VnodeKeyedStateBackend<?> backend = backends.get();
        if (chain.isEmpty()) {
            if (current != null) {
                former = current;
            }
            current = null;
            backend.replicateWith(null);
            progress.chainChanged(0);
            LOG.warn(
                    "{} gate {}: no other TaskManager to replicate to; checkpoints are not"
                            + " replicated",
                    operator,
                    subtask);
            return;
        }
        List<PeerAddress> peers = chain.stream().map(PeerAddress::parse).toList();
        if (current != null && current.chain().equals(peers)) {
            // the same chain sent again: what it holds is still known, nothing to resend
            return;
        }
        PeerVnodeReplication previous = current != null ? current : former;
        former = null;
        current =
                new PeerVnodeReplication(
                        service,
                        peers,
                        prefix,
                        backend.transferDirectory().toPath().resolve("replication-" + task),
                        settings.timeout().toMillis(),
                        progress);
        if (previous != null) {
            previous.handOver(current);
        }
        progress.chainChanged(peers.size());
        backend.replicateWith(current);
        LOG.info("{} gate {} replicates its vnode checkpoints to {}", operator, subtask, peers);
    }

    /** How far replication got, for the gate's load report; null unless peers replicate. */
    public ReplicationProgress progress() {
        return service == null ? null : progress.snapshot();
    }

    /** How long ago this TaskManager's replica store last ran out of space; -1: never, or none. */
    public long replicaStoreFullAgoMillis() {
        return service == null ? -1 : service.store().outOfSpaceAgoMillis();
    }

    /**
     * The gate closes: its checkpoints stop replicating and it lets go of the service. A gate that
     * finished its input never restarts, so its job's replicas need no retention.
     */
    public void release(boolean finished) {
        if (!holdsService) {
            return;
        }
        RhinoTaskRegistry.backendOf(task).ifPresent(b -> b.replicateWith(null));
        TaskManagerReplication.release(
                taskManager, job, finished ? Duration.ZERO : settings.retainAfterTasks());
        holdsService = false;
    }
}
