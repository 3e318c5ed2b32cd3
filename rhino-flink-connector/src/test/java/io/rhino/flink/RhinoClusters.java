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

package io.rhino.flink;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rhino.core.handover.VnodeMove;
import io.rhino.core.routing.RoutingTable;
import io.rhino.flink.coordination.RhinoHandovers;
import io.rhino.flink.state.RhinoStateBackendFactory;
import io.rhino.flink.testjobs.FailOnDemand;
import io.rhino.flink.testjobs.TestPipelines.Mode;
import io.rhino.handover.HandoverManager;
import io.rhino.handover.HandoverResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Assumptions;

/** MiniClusters and job configurations shared by the integration tests. */
final class RhinoClusters {

    private RhinoClusters() {}

    /** Two TaskManagers with two slots each: jobs of parallelism 3 span both, over Netty. */
    static MiniClusterExtension twoTaskManagers() {
        return twoTaskManagers(new Configuration());
    }

    /** As {@link #twoTaskManagers()}, reporting every metric to {@code metrics}. */
    static MiniClusterExtension twoTaskManagers(InMemoryReporter metrics) {
        return twoTaskManagers(metrics.addToConfiguration(new Configuration()));
    }

    /** As {@link #twoTaskManagers()}, with {@code config} as cluster configuration. */
    static MiniClusterExtension twoTaskManagers(Configuration config) {
        config.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, MemorySize.parse("256m"));
        return new MiniClusterExtension(
                new MiniClusterResourceConfiguration.Builder()
                        .setNumberTaskManagers(2)
                        .setNumberSlotsPerTaskManager(2)
                        .setConfiguration(config)
                        .build());
    }

    /** Three TaskManagers with two slots each: each subtask of a parallelism-3 job on its own. */
    static MiniClusterExtension threeTaskManagers() {
        return threeTaskManagers(new Configuration());
    }

    /** As {@link #threeTaskManagers()}, reporting every metric to {@code metrics}. */
    static MiniClusterExtension threeTaskManagers(InMemoryReporter metrics) {
        return threeTaskManagers(metrics.addToConfiguration(new Configuration()));
    }

    /** As {@link #threeTaskManagers()}, with {@code config} as cluster configuration. */
    static MiniClusterExtension threeTaskManagers(Configuration config) {
        config.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, MemorySize.parse("256m"));
        return new MiniClusterExtension(
                new MiniClusterResourceConfiguration.Builder()
                        .setNumberTaskManagers(3)
                        .setNumberSlotsPerTaskManager(2)
                        .setConfiguration(config)
                        .build());
    }

    static Configuration jobConfig(Mode mode) {
        Configuration config = new Configuration();
        config.set(
                StateBackendOptions.STATE_BACKEND,
                mode == Mode.RHINO ? RhinoStateBackendFactory.class.getName() : "rocksdb");
        // any free port: tests must not depend on the machine's ports
        config.set(io.rhino.flink.config.RhinoOptions.REST_PORT, 0);
        return config;
    }

    /**
     * {@code config} with checkpoints replicated to peer TaskManagers, each TaskManager's replicas
     * in a directory of its own under {@code replicas}, peers proving {@code secret} (null: none
     * configured, each Rhino operator's own random one).
     */
    static Configuration withPeerReplication(
            Configuration config, java.nio.file.Path replicas, String secret) {
        config.set(io.rhino.flink.config.RhinoOptions.REPLICATION_MODE, "peers");
        config.set(io.rhino.flink.config.RhinoOptions.REPLICATION_DIR, replicas.toString());
        if (secret != null) {
            config.set(io.rhino.flink.config.RhinoOptions.REPLICATION_SECRET, secret);
        }
        return config;
    }

    /**
     * A checkpoint interval for tests that trigger every checkpoint they rely on. Flink schedules
     * the first periodic checkpoint after a random delay of up to the interval ({@code
     * CheckpointCoordinator#startCheckpointScheduler}): with ten minutes, one landed within a
     * test's first minute, just before a TaskManager was killed, and was the checkpoint the job
     * restored instead of the test's. With a year that practically never happens.
     */
    static final Duration ONLY_TRIGGERED_CHECKPOINTS = Duration.ofDays(365);

    /**
     * Skips a variant of a long process-cluster test outside the {@code lifecycle} profile ({@code
     * -Drhino.it.all-variants=true}), which runs them all: the default build keeps one variant of
     * each such test, to stay within its 30 minutes on two cores.
     */
    static void onlyWithAllVariants(String variant) {
        Assumptions.assumeTrue(
                Boolean.getBoolean("rhino.it.all-variants"),
                variant + " runs with -Plifecycle (-Drhino.it.all-variants=true)");
    }

    /** {@code config} with checkpoints every {@code interval} into {@code directory}. */
    static Configuration withCheckpoints(
            Configuration config, java.nio.file.Path directory, Duration interval) {
        config.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, interval);
        config.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, directory.toUri().toString());
        return config;
    }

    /** {@code config} restarting a failed job up to {@code attempts} times after {@code delay}. */
    /**
     * Flink's task-local recovery on {@code config} (a cluster's): local backup of every
     * checkpoint, restores offered the local copies, kept under {@code root}.
     */
    static Configuration withLocalRecovery(Configuration config, java.nio.file.Path root) {
        config.set(CheckpointingOptions.LOCAL_BACKUP_ENABLED, true);
        config.set(org.apache.flink.configuration.StateRecoveryOptions.LOCAL_RECOVERY, true);
        config.set(
                CheckpointingOptions.LOCAL_RECOVERY_TASK_MANAGER_STATE_ROOT_DIRS, root.toString());
        return config;
    }

    /** Checkpoints of the running job completed so far. */
    static long completedCheckpoints(
            org.apache.flink.runtime.minicluster.MiniCluster miniCluster, JobID jobId)
            throws Exception {
        return miniCluster
                .getExecutionGraph(jobId)
                .get()
                .getCheckpointStatsSnapshot()
                .getCounts()
                .getNumberOfCompletedCheckpoints();
    }

    /** A new directory for a test class's task-local state, to delete after its tests. */
    static java.nio.file.Path localStateRoot(String prefix) {
        try {
            return java.nio.file.Files.createTempDirectory(prefix);
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The sum of a gauge over every operator of the job that registered it, restarts included. */
    static long gaugeSum(InMemoryReporter metrics, JobID jobId, String name) {
        long sum = 0;
        for (Map.Entry<
                        org.apache.flink.metrics.MetricGroup,
                        Map<String, org.apache.flink.metrics.Metric>>
                group : metrics.getMetricsByGroup().entrySet()) {
            org.apache.flink.metrics.Metric metric = group.getValue().get(name);
            if (metric != null
                    && jobId.toString().equals(group.getKey().getAllVariables().get("<job_id>"))) {
                sum +=
                        ((Number) ((org.apache.flink.metrics.Gauge<?>) metric).getValue())
                                .longValue();
            }
        }
        return sum;
    }

    static Configuration withRestarts(Configuration config, int attempts, Duration delay) {
        config.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        config.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, attempts);
        config.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, delay);
        return config;
    }

    /**
     * Takes a checkpoint on demand and waits until it completed. Right after a (re)start the job
     * manager may still be initializing or some tasks deploying, and Flink declines the checkpoint:
     * it is tried again then.
     *
     * @return the checkpoint's id
     */
    static long checkpoint(org.apache.flink.runtime.minicluster.MiniCluster cluster, JobID jobId)
            throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (true) {
            try {
                String pointer =
                        cluster.triggerCheckpoint(jobId)
                                .get(60, java.util.concurrent.TimeUnit.SECONDS);
                // <checkpoints>/<job>/chk-<id>
                return Long.parseLong(pointer.substring(pointer.lastIndexOf("chk-") + 4));
            } catch (java.util.concurrent.ExecutionException e) {
                // the job manager still initializing, tasks still deploying, or the coordinator
                // suspended by a restart in progress
                boolean transientRefusal =
                        org.apache.flink.util.ExceptionUtils.findThrowable(
                                                e,
                                                org.apache.flink.runtime.dispatcher
                                                        .UnavailableDispatcherOperationException
                                                        .class)
                                        .isPresent()
                                || org.apache.flink.util.ExceptionUtils.findThrowableWithMessage(
                                                e, "not being executed")
                                        .isPresent()
                                || org.apache.flink.util.ExceptionUtils.findThrowableWithMessage(
                                                e, "is suspending")
                                        .isPresent()
                                // restarting after a failure or for a rescale
                                || org.apache.flink.util.ExceptionUtils.findThrowableWithMessage(
                                                e, "currently not executing")
                                        .isPresent();
                if (!transientRefusal || System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(100);
            }
        }
    }

    /**
     * Waits until the failure injected by {@link FailOnDemand} under {@code failurePoint} happened,
     * the coordinators saw it, and the operator is ready again after the restart.
     */
    static HandoverManager awaitRecovered(JobID jobId, String operator, String failurePoint)
            throws Exception {
        while (FailOnDemand.failures(failurePoint) == 0) {
            Thread.sleep(10);
        }
        // the failure is seen by the coordinators a moment later
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (RhinoHandovers.isReady(jobId, operator) && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        return RhinoHandovers.awaitReady(jobId, operator, Duration.ofSeconds(60));
    }

    /**
     * Hands {@code moves} random vnodes of {@code operator} over to subtasks on other TaskManagers
     * than their owners', one at a time, each expected to complete.
     */
    static void moveAcrossTaskManagers(
            JobID jobId, String operator, HandoverManager manager, Random random, int moves)
            throws Exception {
        for (int move = 0; move < moves; move++) {
            Map<Integer, String> taskManagers = RhinoHandovers.operators(jobId).get(operator);
            RoutingTable table = manager.routingTable();
            int vnode = random.nextInt(table.layout().numVnodes());
            int owner = table.ownerOf(vnode);
            List<Integer> targets = new ArrayList<>();
            taskManagers.forEach(
                    (subtask, taskManager) -> {
                        if (!taskManager.equals(taskManagers.get(owner))) {
                            targets.add(subtask);
                        }
                    });
            assertThat(targets).as("subtasks on other TaskManagers than %d's", owner).isNotEmpty();
            int target = targets.get(random.nextInt(targets.size()));
            HandoverResult result =
                    manager.handover(List.of(new VnodeMove(vnode, owner, target)))
                            .get(60, TimeUnit.SECONDS);
            assertThat(result.isCompleted())
                    .as("move of vnode %d from %d to %d: %s", vnode, owner, target, result)
                    .isTrue();
        }
    }

    /** The bytes in flight into the Rhino gates that the job's completed checkpoints persisted. */
    static long persistedInFlightBytesOfGates(
            org.apache.flink.runtime.minicluster.MiniCluster miniCluster, JobID jobId)
            throws Exception {
        return persistedInFlightBytesOfGates(miniCluster, jobId, -1);
    }

    /**
     * As above, over the completed checkpoints after {@code afterCheckpointId} only: the adaptive
     * scheduler keeps one checkpoint history across its rescales.
     */
    static long persistedInFlightBytesOfGates(
            org.apache.flink.runtime.minicluster.MiniCluster miniCluster,
            JobID jobId,
            long afterCheckpointId)
            throws Exception {
        var graph = miniCluster.getExecutionGraph(jobId).get();
        List<org.apache.flink.runtime.jobgraph.JobVertexID> gates = new ArrayList<>();
        graph.getAllVertices()
                .forEach(
                        (id, vertex) -> {
                            if (vertex.getName().contains("(Rhino gate)")) {
                                gates.add(id);
                            }
                        });
        long bytes = 0;
        for (var checkpoint : graph.getCheckpointStatsSnapshot().getHistory().getCheckpoints()) {
            if (checkpoint.getStatus().isCompleted()
                    && checkpoint.getCheckpointId() > afterCheckpointId) {
                for (var gate : gates) {
                    var stats = checkpoint.getTaskStateStats(gate);
                    bytes += stats == null ? 0 : stats.getPersistedDataStats();
                }
            }
        }
        return bytes;
    }

    /** The id of the job's latest completed checkpoint, or -1 if none completed. */
    static long latestCompletedCheckpointId(
            org.apache.flink.runtime.minicluster.MiniCluster miniCluster, JobID jobId)
            throws Exception {
        var latest =
                miniCluster
                        .getExecutionGraph(jobId)
                        .get()
                        .getCheckpointStatsSnapshot()
                        .getHistory()
                        .getLatestCompletedCheckpoint();
        return latest == null ? -1 : latest.getCheckpointId();
    }

    /**
     * A cluster configuration with the adaptive scheduler, rescaling as soon as resources or
     * requirements change.
     */
    static Configuration adaptiveScheduler() {
        Configuration config = new Configuration();
        config.set(JobManagerOptions.SCHEDULER, JobManagerOptions.SchedulerType.Adaptive);
        config.set(JobManagerOptions.SCHEDULER_EXECUTING_COOLDOWN_AFTER_RESCALING, Duration.ZERO);
        config.set(
                JobManagerOptions.SCHEDULER_EXECUTING_RESOURCE_STABILIZATION_TIMEOUT,
                Duration.ZERO);
        return config;
    }

    /**
     * Asks the adaptive scheduler, over Flink's REST API (FLIP-291), for {@code n} subtasks of
     * every vertex but the source's (parallelism 1).
     */
    static void requireParallelism(RestCalls flink, JobID jobId, int n) throws Exception {
        String path = "/jobs/" + jobId + "/resource-requirements";
        RestCalls.Reply current = flink.get(path);
        assertThat(current.status()).as("GET %s: %s", path, current.text()).isEqualTo(200);
        ObjectNode requirements = (ObjectNode) current.json().deepCopy();
        for (Iterator<Map.Entry<String, JsonNode>> it = requirements.fields(); it.hasNext(); ) {
            ObjectNode parallelism = (ObjectNode) it.next().getValue().get("parallelism");
            if (parallelism.get("upperBound").asInt() > 1) {
                parallelism.put("lowerBound", 1);
                parallelism.put("upperBound", n);
            }
        }
        RestCalls.Reply put = flink.send("PUT", path, requirements.toString(), null);
        assertThat(put.status()).as("PUT %s: %s", path, put.text()).isEqualTo(200);
    }
}
