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
import io.rhino.core.routing.RoutingTable;
import io.rhino.flink.api.rest.RhinoRestServer;
import io.rhino.flink.config.RhinoOptions;
import io.rhino.flink.testjobs.Events;
import io.rhino.flink.testjobs.Multisets;
import io.rhino.flink.testjobs.ResultSink;
import io.rhino.flink.testjobs.TestPipelines.Mode;
import io.rhino.handover.HandoverManager;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobID;
import org.apache.flink.client.program.rest.RestClusterClient;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectClusterClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A restart-based rescale through the adaptive scheduler, with checkpoints replicated to peer
 * TaskManagers: every vnode of the rescaled operator comes back from a replica, linked on its new
 * subtask's TaskManager or fetched from a peer's, or from a task-local copy, and none is read from
 * the checkpoint storage. The counts are exactly one plain Flink run's. The subclasses run it on a
 * cluster without and with Flink's task-local recovery.
 */
@Timeout(300)
abstract class RescaleRestoreSources {

    private static final Logger LOG = LoggerFactory.getLogger(RescaleRestoreSources.class);

    private static final long EVENTS = 30_000;
    private static final double EVENTS_PER_SECOND = 1_000;
    private static final int KEYS = 40;
    private static final int BEFORE = 4;
    private static final int AFTER = 6;

    @TempDir Path replicas;

    /** The reporter of the subclass's cluster. */
    abstract InMemoryReporter metrics();

    /** The task-local state root of the subclass's cluster, or null without task-local recovery. */
    abstract Path localStateRoot();

    /**
     * Whether the rescale is asked of Rhino's REST API ({@code "allow-restart": true}, Rhino then
     * asks Flink) rather than of Flink's directly.
     */
    abstract boolean throughRhino();

    @Test
    void everyVnodeComesBackWithoutTheStorage(@InjectClusterClient RestClusterClient<?> client)
            throws Exception {
        rescale(client, localStateRoot() != null);
    }

    private void rescale(RestClusterClient<?> client, boolean localRecovery) throws Exception {
        List<String> reference = CountPerKeyRuns.plainFlink(7, EVENTS, KEYS);
        String runId = "rescale-replicas-" + UUID.randomUUID();
        String flinkUrl = client.getWebInterfaceURL().replaceAll("/$", "");
        JobClient job = countPerKey(runId, flinkUrl).executeAsync("rescale-from-replicas");
        JobID jobId = job.getJobID();
        RestCalls flink = new RestCalls(flinkUrl, null);

        RoutingTable before = CountPerKeyRuns.scatter(awaitParallelism(jobId, BEFORE));
        int vnodes = before.layout().numVnodes();
        awaitEverySubtaskReplicated(jobId, before.epoch());
        assertThat(restoredFromReplicas(jobId)).as("vnodes restored before the rescale").isZero();

        // each old subtask's slot, before the rescale's subtasks write their own copies
        Map<Integer, LocalStateSlots.SubtaskDirectory> placedBefore =
                localRecovery ? placementOfKeyedSubtasks(jobId, BEFORE, -1) : Map.of();
        JsonNode restart = null;
        if (throughRhino()) {
            restart = rescaleThroughRhino(jobId);
        } else {
            RhinoClusters.requireParallelism(flink, jobId, AFTER);
        }
        RoutingTable after = awaitParallelism(jobId, AFTER).routingTable();
        assertThat(after.layout()).as("vnodes after the rescale").isEqualTo(before.layout());
        long fromReplicas = awaitRestoredFromReplicas(jobId, vnodes);
        long fetched = RhinoClusters.gaugeSum(metrics(), jobId, "rhinoVnodesFetchedFromPeers");
        long fromLocalCopies =
                RhinoClusters.gaugeSum(metrics(), jobId, "rhinoVnodesRestoredFromLocalCopies");
        LOG.info(
                "Rescale {} -> {}{}: {} of {} vnodes restored from replicas ({} of them fetched"
                        + " from a peer TaskManager), {} from task-local copies",
                BEFORE,
                AFTER,
                localRecovery ? " with task-local recovery" : "",
                fromReplicas,
                vnodes,
                fetched,
                fromLocalCopies);
        assertThat(fromReplicas + fromLocalCopies)
                .as(
                        "vnodes restored from replicas or local copies, none from the checkpoint storage")
                .isEqualTo(vnodes);

        if (restart != null) {
            // Rhino's own report of the restart names the same sources as the gauges
            JsonNode counts = restart.get("restored-from");
            assertThat(counts.get("checkpoint-storage").asLong())
                    .as("vnodes the report has from the checkpoint storage: %s", restart)
                    .isZero();
            assertThat(counts.get("replica").asLong() + counts.get("peer-replica").asLong())
                    .as("vnodes the report has from replicas: %s", restart)
                    .isEqualTo(fromReplicas);
            assertThat(counts.get("peer-replica").asLong())
                    .as("vnodes the report has fetched from peers: %s", restart)
                    .isEqualTo(fetched);
            assertThat(counts.get("task-local").asLong())
                    .as("vnodes the report has from task-local copies: %s", restart)
                    .isEqualTo(fromLocalCopies);
            assertThat(restart.get("restore-source-by-vnode").size()).isEqualTo(vnodes);
            if (localRecovery) {
                assertLocalCopiesUsedWhereTheTaskManagerHasThem(
                        jobId, restart, before, after, placedBefore);
            }
        }

        job.getJobExecutionResult().get(180, TimeUnit.SECONDS);
        List<String> output = new ArrayList<>(ResultSink.take(runId));
        // the rescale restores the last checkpoint and replays what followed it: lines are unique
        // per key and count, so a lost or doubly counted record shows as a missing or extra line
        Multisets.assertSameMultiset("counts across the rescale", reference, new TreeSet<>(output));
    }

    /**
     * A vnode restores from a task-local copy exactly when its new subtask runs on the TaskManager
     * of the old subtask that owned it, in the same slot or another, whatever the two subtasks'
     * indices: Flink's adaptive scheduler puts a new subtask in the slot of the old one whose key
     * groups overlap its own most, which is rarely the old subtask of its index, and Flink itself
     * offers only that one's copies, in that slot.
     */
    private void assertLocalCopiesUsedWhereTheTaskManagerHasThem(
            JobID jobId,
            JsonNode restart,
            RoutingTable before,
            RoutingTable after,
            Map<Integer, LocalStateSlots.SubtaskDirectory> placedBefore)
            throws Exception {
        long restored = restart.get("restored-checkpoint").asLong();
        Map<Integer, LocalStateSlots.SubtaskDirectory> placedAfter =
                placementOfKeyedSubtasks(jobId, AFTER, restored);
        JsonNode sources = restart.get("restore-source-by-vnode");
        int inTheirSlot = 0;
        int otherIndex = 0;
        int otherSlot = 0;
        for (int vnode = 0; vnode < before.layout().numVnodes(); vnode++) {
            int oldOwner = before.ownerOf(vnode);
            int newOwner = after.ownerOf(vnode);
            LocalStateSlots.SubtaskDirectory was = placedBefore.get(oldOwner);
            LocalStateSlots.SubtaskDirectory is = placedAfter.get(newOwner);
            String source = sources.get(String.valueOf(vnode)).asText();
            if (was.taskManager().equals(is.taskManager())) {
                boolean sameSlot = was.slot().equals(is.slot());
                inTheirSlot += sameSlot ? 1 : 0;
                otherIndex += sameSlot && oldOwner != newOwner ? 1 : 0;
                otherSlot += sameSlot ? 0 : 1;
                assertThat(source)
                        .as(
                                "vnode %d, from subtask %d to subtask %d on the same TaskManager"
                                        + " (%s slot): %s",
                                vnode, oldOwner, newOwner, sameSlot ? "same" : "another", restart)
                        .isEqualTo("task-local");
            } else {
                assertThat(source)
                        .as("vnode %d, whose TaskManager holds no copy of it: %s", vnode, restart)
                        .isNotEqualTo("task-local");
            }
        }
        LOG.info(
                "{} of {} vnodes stayed in their slot and restored from its task-local copy, {} of"
                        + " them under another subtask index; {} restored from a copy in another"
                        + " slot of their TaskManager",
                inTheirSlot,
                before.layout().numVnodes(),
                otherIndex,
                otherSlot);
        assertThat(otherIndex)
                .as("vnodes restored from a copy an old subtask of another index left in the slot")
                .isPositive();
        // how many land in another slot of their old TaskManager varies with Flink's placement
        // (1 or 0 of 16 here); TaskManagerLocalCopiesTest shows that such a copy is found
    }

    /**
     * The slot and TaskManager of each of the keyed operator's {@code parallelism} subtasks, read
     * from Flink's task-local state root; with {@code after} >= 0 only directories holding a
     * checkpoint after it count (the rescaled subtasks', not the old ones' left behind).
     */
    private Map<Integer, LocalStateSlots.SubtaskDirectory> placementOfKeyedSubtasks(
            JobID jobId, int parallelism, long after) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        List<LocalStateSlots.SubtaskDirectory> directories = List.of();
        while (System.nanoTime() < deadline) {
            List<LocalStateSlots.SubtaskDirectory> all =
                    LocalStateSlots.of(localStateRoot(), jobId);
            // the keyed operator's vertex: the one whose local copies are RocksDB instances
            Set<String> vertices = new TreeSet<>();
            all.stream()
                    .filter(LocalStateSlots.SubtaskDirectory::holdsCopies)
                    .forEach(directory -> vertices.add(directory.vertex()));
            directories =
                    all.stream()
                            .filter(directory -> vertices.contains(directory.vertex()))
                            .filter(directory -> directory.latestCheckpoint() > after)
                            .toList();
            Map<Integer, LocalStateSlots.SubtaskDirectory> latest = new TreeMap<>();
            for (LocalStateSlots.SubtaskDirectory directory : directories) {
                // an index's directory in a slot it left holds only older checkpoints
                latest.merge(
                        directory.subtask(),
                        directory,
                        (a, b) -> a.latestCheckpoint() >= b.latestCheckpoint() ? a : b);
            }
            assertThat(vertices)
                    .as("vertices with RocksDB copies: only the keyed operator's: %s", all)
                    .hasSizeLessThanOrEqualTo(1);
            if (latest.size() == parallelism) {
                return latest;
            }
            Thread.sleep(100);
        }
        throw new AssertionError(
                "Not every one of "
                        + parallelism
                        + " subtasks kept task-local state: "
                        + directories);
    }

    /**
     * Asks Rhino's REST API for the rescale past the deployed parallelism, follows its status under
     * the request id through Flink's restart (the server answers throughout, on the same port) and
     * returns its report once COMPLETED.
     */
    private static JsonNode rescaleThroughRhino(JobID jobId) throws Exception {
        RestCalls rhino = rhinoRest();
        String operator = "/jobs/" + jobId + "/operators/counts";
        RestCalls.Reply live =
                rhino.post(operator + "/rescale", "{\"active-subtasks\": " + AFTER + "}");
        assertThat(live.status()).as(live.text()).isEqualTo(400);
        assertThat(live.json().get("errors").get(0).asText()).contains("\"allow-restart\": true");

        RestCalls.Reply accepted =
                rhino.post(
                        operator + "/rescale",
                        "{\"active-subtasks\": "
                                + AFTER
                                + ", \"allow-restart\": true, \"request-id\": \"grow\"}");
        assertThat(accepted.status()).as(accepted.text()).isEqualTo(202);
        String status = "/jobs/" + jobId + "/reconfigurations/grow";
        Set<String> phasesSeen = new LinkedHashSet<>();
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        JsonNode last = null;
        while (System.nanoTime() < deadline) {
            RestCalls.Reply reply = rhino.get(status);
            assertThat(reply.status())
                    .as("status during the restart: %s", reply.text())
                    .isEqualTo(200);
            last = reply.json();
            JsonNode restart = last.at("/operation/handovers/0/restart");
            phasesSeen.add(restart.path("phase").asText());
            String state = last.at("/status/id").asText();
            if (state.equals("COMPLETED")) {
                LOG.info("Restart-based rescale, phases seen {}: {}", phasesSeen, restart);
                assertThat(restart.get("phase").asText()).isEqualTo("RUNNING");
                assertThat(restart.get("reached-parallelism").asInt()).isEqualTo(AFTER);
                assertThat(restart.get("from-parallelism").asInt()).isEqualTo(BEFORE);
                assertThat(restart.has("restored-checkpoint")).as("%s", restart).isTrue();
                assertThat(restart.at("/phase-durations-ms/downtime").asLong(-1))
                        .as("%s", restart)
                        .isNotNegative();
                return restart;
            }
            assertThat(state).as("status: %s", last).isEqualTo("IN_PROGRESS");
            Thread.sleep(50);
        }
        throw new AssertionError("The rescale did not complete: " + last);
    }

    private static RestCalls rhinoRest() {
        int port = RhinoRestServer.address().orElseThrow().getPort();
        return new RestCalls("http://127.0.0.1:" + port + "/rhino/v1", null);
    }

    private long restoredFromReplicas(JobID jobId) {
        return RhinoClusters.gaugeSum(metrics(), jobId, "rhinoVnodesRestoredFromReplicas");
    }

    /** Waits until the rescaled subtasks report {@code vnodes} restored from replicas. */
    private long awaitRestoredFromReplicas(JobID jobId, int vnodes) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (restoredWithoutTheStorage(jobId) < vnodes && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        return restoredFromReplicas(jobId);
    }

    private long restoredWithoutTheStorage(JobID jobId) {
        return restoredFromReplicas(jobId)
                + RhinoClusters.gaugeSum(metrics(), jobId, "rhinoVnodesRestoredFromLocalCopies");
    }

    /**
     * Waits until every gate subtask replicated a checkpoint taken after the handovers that set
     * {@code epoch}, read from Rhino's REST API.
     */
    private static void awaitEverySubtaskReplicated(JobID jobId, long epoch) throws Exception {
        RestCalls rhino = rhinoRest();
        String path = "/jobs/" + jobId + "/operators/counts/replication";
        long firstCheckpoint = -1;
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        JsonNode last = null;
        while (System.nanoTime() < deadline) {
            RestCalls.Reply reply = rhino.get(path);
            assertThat(reply.status()).as(reply.text()).isEqualTo(200);
            last = reply.json();
            long lowest = Long.MAX_VALUE;
            long highest = -1;
            for (JsonNode subtask : last.get("subtasks")) {
                long checkpoint = subtask.path("last-replicated-checkpoint").asLong(-1);
                lowest = Math.min(lowest, checkpoint);
                highest = Math.max(highest, checkpoint);
            }
            if (firstCheckpoint < 0) {
                // a checkpoint after this one follows the handovers that ended before the call
                firstCheckpoint = highest;
            } else if (lowest > firstCheckpoint) {
                return;
            }
            Thread.sleep(200);
        }
        throw new AssertionError(
                "Not every subtask replicated a checkpoint after epoch " + epoch + ": " + last);
    }

    private static HandoverManager awaitParallelism(JobID jobId, int parallelism) throws Exception {
        return CountPerKeyRuns.awaitParallelism(jobId, parallelism, Duration.ofSeconds(90));
    }

    private StreamExecutionEnvironment countPerKey(String runId, String flinkUrl) {
        Configuration config =
                RhinoClusters.withPeerReplication(
                        RhinoClusters.jobConfig(Mode.RHINO), replicas, null);
        config.set(RhinoOptions.RESCALE_FLINK_REST_ADDRESS, flinkUrl);
        config.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(300));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        env.setParallelism(BEFORE);
        CountPerKeyRuns.rhinoCounts(
                Events.stream(env, "events", 7, EVENTS, 5, KEYS, EVENTS_PER_SECOND, 1)
                        .uid("events"),
                runId);
        return env;
    }
}
