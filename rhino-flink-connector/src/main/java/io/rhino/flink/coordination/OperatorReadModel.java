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

package io.rhino.flink.coordination;

import io.rhino.core.routing.RoutingTable;
import io.rhino.flink.config.RhinoRuntimeSettings;
import io.rhino.flink.reconfiguration.AutoBalancer;
import io.rhino.flink.reconfiguration.OperatorView;
import io.rhino.flink.reconfiguration.ReplicationView;
import io.rhino.flink.replication.ReplicationProgress;
import io.rhino.flink.spec.RhinoOperatorSpec;
import io.rhino.flink.state.RestoreSource;
import io.rhino.handover.HandoverManager;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.flink.api.common.JobID;

/**
 * What REST, the metrics, the auto-balancer and the Java API read of one running Rhino operator:
 * where its gates run, their loads and replication progress, the replica chains last sent and the
 * replica stores left out of them.
 *
 * <p>Written only under the hub's monitor; read from any thread without a lock. Each write replaces
 * an immutable snapshot in a volatile field, so a reader sees every field whole, if perhaps one
 * report older than its neighbour.
 */
final class OperatorReadModel implements OperatorView {

    /** A gate's report and when it arrived here (ages are aged by this JVM's clock only). */
    private record ReceivedProgress(ReplicationProgress progress, long receivedAtMillis) {}

    private final JobID jobId;
    private final RhinoOperatorSpec spec;
    private volatile ManagerRuntime runtime; // null until the gate coordinator first started
    private volatile Map<Integer, String> taskManagerBySubtask = Map.of();
    private volatile Map<Integer, Double> busyTimeBySubtask = Map.of();
    private volatile Map<Integer, ReceivedProgress> replicationProgress = Map.of();
    // the replica chain (TaskManagers) of each gate subtask, as last sent
    private volatile Map<Integer, List<String>> replicaChains = Map.of();
    private volatile Map<String, Long> fullStoreBackoffEnds = Map.of();
    // where the gates' last restores took each vnode from, kept across their later starts
    private volatile Map<Integer, RestoreSource> restoreSources = Map.of();
    private volatile String gateVertexId; // null until the gate coordinator started
    private volatile long restoredCheckpointId = -1;

    OperatorReadModel(JobID jobId, RhinoOperatorSpec spec) {
        this.jobId = jobId;
        this.spec = spec;
    }

    // ---------------------------------------------------------------- writes, under the hub's
    // monitor

    /** The manager runs, created with everything beside it. */
    void running(ManagerRuntime started) {
        runtime = started;
    }

    void gateLocated(int subtask, String taskManager, Map<Integer, RestoreSource> restored) {
        taskManagerBySubtask = with(taskManagerBySubtask, subtask, taskManager);
        if (!restored.isEmpty()) {
            Map<Integer, RestoreSource> sources = new TreeMap<>(restoreSources);
            sources.putAll(restored);
            restoreSources = Map.copyOf(sources);
        }
    }

    void restoredCheckpoint(long checkpointId) {
        restoredCheckpointId = checkpointId;
    }

    /** The gate's operator id, which is also its job vertex's id: it heads its chain. */
    void gateVertex(String operatorId) {
        gateVertexId = operatorId;
    }

    /** A gate's state sizes of the vnodes it owns, its busy time and its replication progress. */
    void gateReported(
            int subtask,
            Map<Integer, Long> stateBytesByVnode,
            double busyTimeMsPerSecond,
            ReplicationProgress replication) {
        ManagerRuntime current = runtime;
        if (current != null) {
            stateBytesByVnode.forEach(current.loads()::stateBytes);
        }
        if (!Double.isNaN(busyTimeMsPerSecond)) {
            busyTimeBySubtask = with(busyTimeBySubtask, subtask, busyTimeMsPerSecond);
        }
        if (replication != null) {
            replicationProgress =
                    with(
                            replicationProgress,
                            subtask,
                            new ReceivedProgress(replication, System.currentTimeMillis()));
        }
    }

    /** A router's records per vnode over its last report period. */
    void routerReported(int router, long[] recordsByVnode, long periodMillis) {
        ManagerRuntime current = runtime;
        if (current != null) {
            current.loads()
                    .routerReport(router, recordsByVnode, periodMillis, System.currentTimeMillis());
        }
    }

    void gateGone(int subtask) {
        taskManagerBySubtask = without(taskManagerBySubtask, subtask);
        replicationProgress = without(replicationProgress, subtask);
        busyTimeBySubtask = without(busyTimeBySubtask, subtask);
    }

    void allGatesGone() {
        taskManagerBySubtask = Map.of();
        replicationProgress = Map.of();
        busyTimeBySubtask = Map.of();
    }

    void chainsSent(Map<Integer, List<String>> chains) {
        replicaChains = Map.copyOf(chains);
    }

    /** When the back-off of each replica store that ran out of space ends (this JVM's millis). */
    void fullStoreBackoffs(Map<String, Long> endsMillis) {
        fullStoreBackoffEnds = Map.copyOf(endsMillis);
    }

    // ---------------------------------------------------------------- reads, from any thread

    @Override
    public String jobId() {
        return jobId.toHexString();
    }

    @Override
    public String name() {
        return spec.name();
    }

    @Override
    public int parallelism() {
        return spec.parallelism();
    }

    @Override
    public Optional<HandoverManager> manager() {
        return Optional.ofNullable(runtime).map(ManagerRuntime::manager);
    }

    /** The settings the operator's gate coordinator runs with, once it started. */
    Optional<RhinoRuntimeSettings> settings() {
        return Optional.ofNullable(runtime).map(ManagerRuntime::settings);
    }

    /** The auto-balancer, if {@code rhino.balancer.auto} is on and the manager runs. */
    Optional<AutoBalancer> autoBalancer() {
        return Optional.ofNullable(runtime).flatMap(ManagerRuntime::autoBalancer);
    }

    @Override
    public Map<Integer, RestoreSource> restoreSourceByVnode() {
        return new TreeMap<>(restoreSources);
    }

    @Override
    public OptionalLong restoredCheckpointId() {
        long id = restoredCheckpointId;
        return id < 0 ? OptionalLong.empty() : OptionalLong.of(id);
    }

    @Override
    public Optional<String> gateVertexId() {
        return Optional.ofNullable(gateVertexId);
    }

    @Override
    public Optional<RhinoRuntimeSettings.Rescale> rescaleSettings() {
        return settings().map(RhinoRuntimeSettings::rescale);
    }

    @Override
    public double[] recordsPerSecond() {
        ManagerRuntime current = runtime;
        return current == null
                ? new double[spec.numVnodes()]
                : current.loads().recordsPerSecond(System.currentTimeMillis());
    }

    @Override
    public long stateBytes(int vnode) {
        ManagerRuntime current = runtime;
        return current == null ? -1 : current.loads().stateBytes(vnode);
    }

    @Override
    public boolean servedOverRest() {
        return settings().map(settings -> settings.rest().enabled()).orElse(false);
    }

    @Override
    public Optional<String> restToken() {
        return settings().flatMap(settings -> settings.rest().token());
    }

    /** Which TaskManager each gate subtask runs on, as reported by the subtasks. */
    @Override
    public Map<Integer, String> taskManagerBySubtask() {
        return new TreeMap<>(taskManagerBySubtask);
    }

    /** The TaskManager gate {@code subtask} runs on, if it reported one. */
    Optional<String> taskManagerOf(int subtask) {
        return Optional.ofNullable(taskManagerBySubtask.get(subtask));
    }

    @Override
    public Map<Integer, Double> busyTimeMsPerSecond() {
        return new TreeMap<>(busyTimeBySubtask);
    }

    /**
     * The TaskManagers of each vnode's owner's replica chain: they hold the vnode's state as of the
     * owner's last replicated checkpoint (once one ran since the chains were set).
     */
    @Override
    public Map<Integer, Set<String>> replicaHolders() {
        Map<Integer, List<String>> chains = replicaChains;
        ManagerRuntime current = runtime;
        if (chains.isEmpty() || current == null) {
            return Map.of();
        }
        RoutingTable table = current.manager().routingTable();
        Map<Integer, Set<String>> holders = new TreeMap<>();
        for (int vnode = 0; vnode < spec.numVnodes(); vnode++) {
            holders.put(
                    vnode,
                    new LinkedHashSet<>(chains.getOrDefault(table.ownerOf(vnode), List.of())));
        }
        return holders;
    }

    @Override
    public ReplicationView replication() {
        RhinoRuntimeSettings current = settings().orElse(null);
        if (current == null || !current.replication().peers()) {
            return current == null
                    ? ReplicationView.NONE
                    : new ReplicationView(
                            current.replication().mode().optionValue(),
                            1,
                            Map.of(),
                            Map.of(),
                            Set.of());
        }
        long now = System.currentTimeMillis();
        Map<Integer, ReplicationProgress> progress = new TreeMap<>();
        replicationProgress.forEach(
                (subtask, received) ->
                        progress.put(
                                subtask,
                                received.progress().agedBy(now - received.receivedAtMillis())));
        return new ReplicationView(
                current.replication().mode().optionValue(),
                current.replication().factor(),
                replicaChains,
                progress,
                fullStoresAt(now));
    }

    /** The replica stores whose back-off has not ended at {@code nowMillis}. */
    private Set<String> fullStoresAt(long nowMillis) {
        Set<String> excluded = new TreeSet<>();
        fullStoreBackoffEnds.forEach(
                (taskManager, endMillis) -> {
                    if (endMillis > nowMillis) {
                        excluded.add(taskManager);
                    }
                });
        return excluded;
    }

    private static <V> Map<Integer, V> with(Map<Integer, V> snapshot, int subtask, V value) {
        Map<Integer, V> next = new HashMap<>(snapshot);
        next.put(subtask, value);
        return Map.copyOf(next);
    }

    private static <V> Map<Integer, V> without(Map<Integer, V> snapshot, int subtask) {
        if (!snapshot.containsKey(subtask)) {
            return snapshot;
        }
        Map<Integer, V> next = new HashMap<>(snapshot);
        next.remove(subtask);
        return Map.copyOf(next);
    }
}
